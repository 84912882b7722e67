import { Time } from "../../shared/time";
import { explainDecision, type ApprovalItem } from "./inbox";

/** The governance decision explained, and who answered, when and why. */
export function ApprovalSummary({ deployment: d }: { deployment: Pick<ApprovalItem, "decision" | "approval"> }) {
  const a = d.approval;
  return (
    <div className="m-approval-summary" data-approval-status={a?.status}>
      <ul className="m-approval-explained">
        {explainDecision(d).map((line) => (
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
