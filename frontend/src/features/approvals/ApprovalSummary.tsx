import { Time } from "../../shared/time";
import { approvalStatusLabel, approvalStatusTone, explainDecision, type ApprovalItem, type ApprovalLike, type AskingWave } from "./inbox";

/** The approval status as the server words it, coloured by its tone; a word, never colour alone. */
export function ApprovalStatusBadge({ status }: { status: string }) {
  return (
    <span className="m-badge" data-size="small" data-tone={approvalStatusTone(status)} data-approval-status={status} title={`Approval ${status}`}>
      <span className="m-badge-dot" aria-hidden="true" />
      {approvalStatusLabel(status)}
    </span>
  );
}

/**
 * The governance decision explained, and who answered, when and why. The
 * status is shown unless the caller lists only deploys that wait (the inbox).
 * With wave, the approval is that of the wave of the deploy's rollout.
 */
export function ApprovalSummary({
  deployment: d,
  showStatus = true,
  wave = null,
  explained = false,
}: {
  deployment: { decision: ApprovalItem["decision"]; approval: ApprovalLike | null };
  showStatus?: boolean;
  wave?: AskingWave | null;
  /** The server's explanation is shown beside it (ApprovalContextPanel): the decision's own lines are left out, but for the count so far. */
  explained?: boolean;
}) {
  const a = d.approval;
  return (
    <div className="m-approval-summary" data-approval-status={a?.status} data-approval-wave={wave?.name}>
      {showStatus && a && (
        <p className="m-approval-status">
          Approval <ApprovalStatusBadge status={a.status} />
        </p>
      )}
      <ul className="m-approval-explained">
        {explainDecision(d, wave, explained).map((line) => (
          <li key={line}>{line}</li>
        ))}
        {a?.expiresAt && (a.status === "waiting" || a.status === "expired") && (
          <li>
            {a.status === "waiting" ? "Expires" : "Expired"} <Time iso={a.expiresAt} mode="both" />.
          </li>
        )}
      </ul>
      {a && a.approvals.length > 0 && (
        <ul className="m-approval-answers" aria-label="Answers">
          {a.approvals.map((x) => (
            <li key={x.identity + x.time} data-approved={x.approved}>
              <span className="m-mono">{x.identity}</span> <strong>{x.approved ? "approved" : "rejected"}</strong> <Time iso={x.time} />
              {x.comment && (
                <>
                  {" "}
                  <q className="m-muted">{x.comment}</q>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
