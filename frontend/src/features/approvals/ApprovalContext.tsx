import { Link } from "react-router";
import type { ApprovalContextViewFragment } from "../../gql/graphql";
import { Time } from "../../shared/time";
import styles from "./ApprovalContext.module.css";

const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : null);
const deployPath = (id: string) => `/deployments/${encodeURIComponent(id)}`;

/** Who may approve, in words: "1 approval from an identity other than token:ci, in group sre or with role approver". */
export function approversText(a: ApprovalContextViewFragment["approvers"]): string {
  const n = a.required === 1 ? "1 approval" : `${a.required} approvals`;
  const from = a.required === 1 ? "an identity" : "distinct identities";
  const limits = [...a.groups.map((g) => `group ${g}`), ...a.roles.map((r) => `role ${r}`)];
  const within = limits.length ? `, in ${limits.join(" or ")}` : "";
  return `${n} from ${from} other than ${a.excluded}${within}.`;
}

/**
 * What an approver needs to decide: the release in service now against the
 * one proposed, the deploys that satisfied the mandatory promotion (links),
 * the rule in words and who may approve.
 */
export function ApprovalContextPanel({ context: c }: { context: ApprovalContextViewFragment }) {
  const cur = c.inService;
  return (
    <div className={styles.context} data-testid="approval-context">
      <dl className={styles.compare} aria-label="In service now against proposed">
        <div data-testid="approval-current">
          <dt>In service now</dt>
          <dd>
            {cur?.deploymentId && cur.artifact ? (
              <>
                <Link to={deployPath(cur.deploymentId)} className={styles.version}>
                  {cur.artifact.name} {cur.artifact.version}
                </Link>
                {cur.sha256 && <span className="m-mono m-muted"> sha256 {shortSha(cur.sha256)}</span>}
                <div className="m-muted">
                  deployed by <span className="m-mono">{cur.deployedBy ?? "unknown"}</span> <Time iso={cur.deployedAt} mode="both" />
                </div>
              </>
            ) : (
              <span className="m-muted">nothing in service</span>
            )}
          </dd>
        </div>
        {/* The arrow is drawn by the stylesheet: a <dl> may hold only its groups. */}
        <div data-testid="approval-proposed" className={styles.proposed}>
          <dt>Proposed</dt>
          <dd>
            <strong className={styles.version}>
              {c.proposed.name} {c.proposed.version}
            </strong>
            {c.proposedSha256 ? <span className="m-mono m-muted"> sha256 {shortSha(c.proposedSha256)}</span> : <span className="m-muted"> digest not known yet</span>}
          </dd>
        </div>
      </dl>
      <p className={styles.explanation} data-testid="approval-explanation">
        {c.explanation}
      </p>
      {c.promotionEvidence.length > 0 && (
        <ul className={styles.evidence} aria-label="Promotion evidence">
          {c.promotionEvidence.map((e) => (
            <li key={`${e.environment} ${e.deploymentId ?? ""}`}>
              {e.environment} ran {e.version} successfully:{" "}
              {e.deploymentId ? (
                <Link to={deployPath(e.deploymentId)} className="m-mono">
                  {e.deploymentId}
                </Link>
              ) : (
                <span className="m-muted">a deploy you may not read</span>
              )}
              {e.finishedAt && (
                <>
                  {" "}
                  <Time iso={e.finishedAt} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className={styles.approvers} data-testid="approval-approvers">
        <strong>Who may approve:</strong> {approversText(c.approvers)}
        {c.approvers.holders.length > 0 && (
          <>
            {" "}
            Holders of deployment.approve here:{" "}
            {c.approvers.holders.map((h, i) => (
              <span key={h}>
                {i > 0 && ", "}
                <span className="m-mono">{h}</span>
              </span>
            ))}
            .
          </>
        )}
      </p>
    </div>
  );
}
