import { useState } from "react";
import { useMutation } from "urql";
import { ConfirmDialog } from "../../shared/ConfirmDialog";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { answerOutcome } from "./outcome";
import { ApproveDeploymentMutation, RejectDeploymentMutation } from "./queries";

export interface ApprovalActionsProps {
  id: string;
  title: string;
  /** From canAnswer: the server's canApprove while the deploy waits. */
  visible: boolean;
  /**
   * Set when the approval asked is a wave's of the deploy's rollout, not the
   * deploy's own: the dialog names the wave and the release it rolls out
   * ("Approve wave eu of hello-1.2.0?").
   */
  wave?: { name: string; release: string };
  /** Called with what happens next ("1 more approval needed"), once the server took the answer. */
  onAnswered?(outcome: string): void;
}

type Choice = "approve" | "reject";

/** The dialog's words for a choice, about the deploy or one of its waves. */
function dialogCopy(choice: Choice, title: string, wave: ApprovalActionsProps["wave"]) {
  if (wave) {
    const subject = `wave ${wave.name} of ${wave.release}`;
    return choice === "reject"
      ? {
          title: `Reject ${subject}?`,
          confirm: `Reject wave ${wave.name}`,
          text: "does not start: the rollout aborts, then its rollback policy applies. One rejection is enough.",
          subject: `The ${subject}`,
        }
      : {
          title: `Approve ${subject}?`,
          confirm: `Approve wave ${wave.name}`,
          text: "starts once every approval it needs is given. Your approval counts once.",
          subject: `The ${subject}`,
        };
  }
  return choice === "reject"
    ? { title: "Reject this deploy?", confirm: "Reject deploy", text: "ends REJECTED: nothing runs. One rejection is enough.", subject: title }
    : { title: "Approve this deploy?", confirm: "Approve deploy", text: "runs once every approval it needs is given. Your approval counts once.", subject: title };
}

/**
 * Approve and Reject, each behind a confirmation with a comment (kept in the
 * audit log). Absent for those who may not answer: the server refuses them
 * anyway, and its refusal is shown in the dialog.
 */
export function ApprovalActions({ id, title, visible, wave, onAnswered }: ApprovalActionsProps) {
  const [choice, setChoice] = useState<Choice | null>(null);
  const [comment, setComment] = useState("");
  const [approveResult, approve] = useMutation(ApproveDeploymentMutation);
  const [rejectResult, reject] = useMutation(RejectDeploymentMutation);
  // Kept after the buttons go (the viewer may not answer twice): the answer
  // is told, not met with silence.
  const [outcome, setOutcome] = useState<string | null>(null);
  if (!visible && choice === null) {
    return outcome ? (
      <p className="m-approval-outcome" role="status" data-testid="approval-outcome">
        {outcome}
      </p>
    ) : null;
  }

  const result = choice === "reject" ? rejectResult : approveResult;
  async function confirm() {
    const r = choice === "reject" ? await reject({ id, comment }) : await approve({ id, comment });
    if (!r.error) {
      const d = r.data ? ("rejectDeployment" in r.data ? r.data.rejectDeployment : r.data.approveDeployment) : null;
      const said = d ? answerOutcome(d, choice === "reject", wave?.name) : choice === "reject" ? "Rejected." : "Approved.";
      setOutcome(said);
      setChoice(null);
      setComment("");
      onAnswered?.(said);
    }
  }
  const fieldId = `approval-comment-${id}`;
  const c = dialogCopy(choice ?? "approve", title, wave);

  return (
    <div className="m-approval-actions">
      {outcome && (
        <p className="m-approval-outcome" role="status" data-testid="approval-outcome">
          {outcome}
        </p>
      )}
      <button type="button" className="m-button m-button-primary" onClick={() => setChoice("approve")}>
        Approve…
      </button>
      <button type="button" className="m-button m-button-danger" onClick={() => setChoice("reject")}>
        Reject…
      </button>
      <ConfirmDialog
        open={choice !== null}
        title={c.title}
        confirmLabel={c.confirm}
        cancelLabel="Not now"
        danger={choice === "reject"}
        busy={result.fetching}
        onConfirm={confirm}
        onCancel={() => setChoice(null)}
      >
        <p>
          <strong>{c.subject}</strong> {c.text}
        </p>
        <label className="m-field" htmlFor={fieldId}>
          <span>Comment (kept in the audit log)</span>
          <textarea id={fieldId} className="m-input m-textarea" rows={3} value={comment} onChange={(e) => setComment(e.target.value)} />
        </label>
        {result.error && <ErrorMessage error={result.error} context={choice === "reject" ? "Rejecting" : "Approving"} />}
      </ConfirmDialog>
    </div>
  );
}
