import { useState } from "react";
import { useMutation } from "urql";
import { ConfirmDialog } from "../../shared/ConfirmDialog";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { CancelDeploymentMutation } from "./queries";

export interface CancelDeploymentProps {
  id: string;
  title: string;
  /** The server's word on whether this viewer may cancel it now. */
  canCancel: boolean;
  cancelRequested: boolean;
}

/**
 * Cancel, for those allowed to: absent for the others (the server refuses
 * them anyway). A confirmation first, since a cancel cannot be undone.
 */
export function CancelDeployment({ id, title, canCancel, cancelRequested }: CancelDeploymentProps) {
  const [open, setOpen] = useState(false);
  const [result, cancel] = useMutation(CancelDeploymentMutation);

  if (cancelRequested) {
    return (
      <span className="m-muted" role="status">
        Cancel requested: it stops at the start of the next step.
      </span>
    );
  }
  if (!canCancel) return null;

  async function confirm() {
    const r = await cancel({ id });
    if (!r.error) setOpen(false);
  }

  return (
    <>
      <button type="button" className="m-button m-button-danger" onClick={() => setOpen(true)}>
        Cancel deploy…
      </button>
      <ConfirmDialog
        open={open}
        title="Cancel this deploy?"
        confirmLabel="Cancel deploy"
        danger
        busy={result.fetching}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        <p>
          <strong>{title}</strong> stops at the start of its next step: the step in progress still completes, so no target is left half-written. This cannot be
          undone.
        </p>
        {result.error && <ErrorMessage error={result.error} context="Cancelling" />}
      </ConfirmDialog>
    </>
  );
}
