import { useState, type ReactNode } from "react";
import type { CombinedError } from "@urql/core";
import { ConfirmDialog } from "../../shared/ConfirmDialog";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { requestKey } from "./requestId";

export interface ConfirmedActionProps {
  /** The button's words ("Redeploy…"). */
  label: string;
  title: string;
  confirmLabel: string;
  /** Exactly what will happen, in the dialog. */
  text: ReactNode;
  danger?: boolean;
  /** What the error says it was doing ("Promoting"). */
  context: string;
  /**
   * Runs the mutation: an error keeps the dialog open and shows it there. key is
   * chosen when the dialog opens and is the same for every try in it: an action
   * that starts a deploy names it with it (newDeployId), so that a retry is the
   * same request again.
   */
  run(key: string): Promise<{ error?: CombinedError | undefined }>;
  /** Extra attributes for tests and styles. */
  testId?: string;
}

/**
 * A button behind a confirmation that says what will happen. Its callers
 * render it only when the server's affordance field says the viewer may:
 * the client never guesses a permission.
 */
export function ConfirmedAction({ label, title, confirmLabel, text, danger, context, run, testId }: ConfirmedActionProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CombinedError | null>(null);
  const [key, setKey] = useState("");
  async function confirm() {
    setBusy(true);
    const r = await run(key);
    setBusy(false);
    if (r.error) {
      setError(r.error);
      return;
    }
    setError(null);
    setOpen(false);
  }
  return (
    <>
      <button
        type="button"
        className={`m-button ${danger ? "m-button-danger" : ""}`}
        data-testid={testId}
        onClick={() => {
          setError(null);
          setKey(requestKey());
          setOpen(true);
        }}
      >
        {label}
      </button>
      <ConfirmDialog
        open={open}
        title={title}
        confirmLabel={confirmLabel}
        cancelLabel="Not now"
        danger={danger}
        busy={busy}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        <p>{text}</p>
        {error && <ErrorMessage error={error} context={context} />}
      </ConfirmDialog>
    </>
  );
}
