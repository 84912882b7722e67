import { useState } from "react";
import { useMutation } from "urql";
import { ConfirmDialog } from "../../shared/ConfirmDialog";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { ApproveDeploymentMutation, RejectDeploymentMutation } from "./queries";

export interface ApprovalActionsProps {
  id: string;
  title: string;
  /** From canAnswer: the server's canApprove while the deploy waits. */
  visible: boolean;
  onAnswered?(): void;
}

type Choice = "approve" | "reject";

/**
 * Approve and Reject, each behind a confirmation with a comment (kept in the
 * audit log). Absent for those who may not answer: the server refuses them
 * anyway, and its refusal is shown in the dialog.
 */
export function ApprovalActions({ id, title, visible, onAnswered }: ApprovalActionsProps) {
  const [choice, setChoice] = useState<Choice | null>(null);
  const [comment, setComment] = useState("");
  const [approveResult, approve] = useMutation(ApproveDeploymentMutation);
  const [rejectResult, reject] = useMutation(RejectDeploymentMutation);
  if (!visible && choice === null) return null;

  const result = choice === "reject" ? rejectResult : approveResult;
  async function confirm() {
    const r = choice === "reject" ? await reject({ id, comment }) : await approve({ id, comment });
    if (!r.error) {
      setChoice(null);
      setComment("");
      onAnswered?.();
    }
  }
  const fieldId = `approval-comment-${id}`;

  return (
    <div className="m-approval-actions">
      <button type="button" className="m-button m-button-primary" onClick={() => setChoice("approve")}>
        Approve…
      </button>
      <button type="button" className="m-button m-button-danger" onClick={() => setChoice("reject")}>
        Reject…
      </button>
      <ConfirmDialog
        open={choice !== null}
        title={choice === "reject" ? "Reject this deploy?" : "Approve this deploy?"}
        confirmLabel={choice === "reject" ? "Reject deploy" : "Approve deploy"}
        cancelLabel="Not now"
        danger={choice === "reject"}
        busy={result.fetching}
        onConfirm={confirm}
        onCancel={() => setChoice(null)}
      >
        <p>
          <strong>{title}</strong>{" "}
          {choice === "reject"
            ? "ends REJECTED: nothing runs. One rejection is enough."
            : "runs once every approval it needs is given. Your approval counts once."}
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
