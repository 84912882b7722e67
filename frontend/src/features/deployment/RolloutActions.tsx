import { useState } from "react";
import { useMutation } from "urql";
import type { RolloutViewFragment } from "../../gql/graphql";
import { ConfirmDialog } from "../../shared/ConfirmDialog";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { AbortRolloutMutation, PauseRolloutMutation, ResumeRolloutMutation } from "./queries";

export interface RolloutActionsProps {
  id: string;
  title: string;
  /** With its pause while paused: a resume names the pause it answers. */
  rollout: Pick<RolloutViewFragment, "state" | "request"> & Partial<Pick<RolloutViewFragment, "pause">>;
  /** The server's word on what this viewer may ask of the rollout now. */
  canPause: boolean;
  canResume: boolean;
  canAbort: boolean;
}

type Action = "pause" | "resume" | "abort";

const copy: Record<Action, { button: string; title: string; confirm: string; field: string; text: string; danger: boolean; context: string }> = {
  pause: {
    button: "Pause…",
    title: "Pause this rollout?",
    confirm: "Pause rollout",
    field: "Reason (shown in the status, kept in the audit log)",
    text: "pauses after the batch in flight: no batch is stopped in the middle. The deploy keeps its environment's slot until someone resumes or aborts it, or the pause times out and aborts.",
    danger: false,
    context: "Pausing",
  },
  resume: {
    button: "Resume…",
    title: "Resume this rollout?",
    confirm: "Resume rollout",
    field: "Comment (kept in the audit log)",
    text: "goes on with the next batch or wave, as if the gates that paused it had passed: you judge that it may.",
    danger: false,
    context: "Resuming",
  },
  abort: {
    button: "Abort…",
    title: "Abort this rollout?",
    confirm: "Abort rollout",
    field: "Reason (in the deploy's error and the audit log)",
    text: "stops now (after the step in flight) and fails; with automatic rollback on, every batch done is rolled back, the most recent first. This cannot be undone.",
    danger: true,
    context: "Aborting",
  },
};

const pending: Record<string, string> = {
  PAUSE: "Pause requested: it takes effect after the batch in flight",
  RESUME: "Resume requested",
  ABORT: "Abort requested: it stops after the step in flight",
};

/**
 * Pause, resume and abort of a rollout, for those allowed to: absent for the
 * others (the server refuses them anyway). Each behind a confirmation with
 * a reason or a comment; a request not done yet is said instead.
 */
export function RolloutActions({ id, title, rollout, canPause, canResume, canAbort }: RolloutActionsProps) {
  const [action, setAction] = useState<Action | null>(null);
  const [text, setText] = useState("");
  // The pause the person looked at when they chose to resume: if the
  // rollout pauses again meanwhile, the server refuses the resume rather
  // than end a pause they never saw.
  const [pauseSeen, setPauseSeen] = useState<string | undefined>(undefined);
  const [pauseResult, pause] = useMutation(PauseRolloutMutation);
  const [resumeResult, resume] = useMutation(ResumeRolloutMutation);
  const [abortResult, abort] = useMutation(AbortRolloutMutation);
  const request = rollout.request;
  const allowed: Record<Action, boolean> = { pause: canPause, resume: canResume, abort: canAbort };
  if (!canPause && !canResume && !canAbort && action === null) {
    return request ? <RequestNote request={request} /> : null;
  }

  const result = action === "resume" ? resumeResult : action === "abort" ? abortResult : pauseResult;
  async function confirm() {
    const r =
      action === "resume"
        ? await resume({ id, comment: text, pause: pauseSeen ?? null })
        : action === "abort"
          ? await abort({ id, reason: text })
          : await pause({ id, reason: text });
    if (!r.error) {
      setAction(null);
      setText("");
    }
  }
  const c = action ? copy[action] : null;
  const fieldId = `rollout-text-${id}`;
  return (
    <div className="m-rollout-actions" role="group" aria-label="Rollout actions">
      {request && <RequestNote request={request} />}
      {(["pause", "resume", "abort"] as const)
        .filter((a) => allowed[a])
        .map((a) => (
          <button
            key={a}
            type="button"
            className={`m-button ${copy[a].danger ? "m-button-danger" : ""}`}
            onClick={() => {
              setPauseSeen(rollout.pause?.step);
              setAction(a);
            }}
          >
            {copy[a].button}
          </button>
        ))}
      <ConfirmDialog
        open={c !== null}
        title={c?.title ?? ""}
        confirmLabel={c?.confirm ?? ""}
        cancelLabel="Not now"
        danger={c?.danger}
        busy={result.fetching}
        onConfirm={confirm}
        onCancel={() => setAction(null)}
      >
        {c && (
          <>
            <p>
              The rollout of <strong>{title}</strong> {c.text}
            </p>
            <label className="m-field" htmlFor={fieldId}>
              <span>{c.field}</span>
              <textarea id={fieldId} className="m-input m-textarea" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
            </label>
            {result.error && <ErrorMessage error={result.error} context={c.context} />}
          </>
        )}
      </ConfirmDialog>
    </div>
  );
}

function RequestNote({ request }: { request: NonNullable<RolloutViewFragment["request"]> }) {
  return (
    <span className="m-muted" role="status">
      {pending[request.action] ?? "Request pending"} (by <span className="m-mono">{request.by}</span>).
    </span>
  );
}
