import { Link } from "react-router";
import type { InventoryCellFragment } from "../../gql/graphql";
import { shortSha } from "../../shared/format";
import { StateBadge } from "../../shared/StateBadge";
import { Time } from "../../shared/time";
import styles from "./EnvironmentsPage.module.css";
import { FailureText } from "../../shared/FailureText";

type Failure = NonNullable<InventoryCellFragment["lastFailure"]>;

const deployPath = (id: string) => `/deployments/${encodeURIComponent(id)}`;

/**
 * The release in service of an entry: its version linking to its deploy,
 * when and by whom, and the release before it (what a rollback goes back
 * to); or that nothing is in service (every deploy there failed, or none
 * ran).
 */
export function ReleaseInService({ entry }: { entry: InventoryCellFragment | undefined }) {
  if (!entry?.deploymentId || !entry.artifact) {
    return <span className="m-muted">{entry ? "nothing in service" : "not deployed"}</span>;
  }
  return (
    <>
      <Link to={deployPath(entry.deploymentId)} className={styles.version} title={entry.sha256 ? `sha256 ${entry.sha256}` : undefined}>
        {entry.artifact.version}
      </Link>
      <div className={styles.when}>
        <Time iso={entry.deployedAt} /> <span className="m-muted">by</span> <span className="m-mono">{entry.deployedBy}</span>
      </div>
      {entry.sha256 && <div className={`m-mono m-muted ${styles.sha}`}>{shortSha(entry.sha256)}</div>}
      {entry.previous && (
        <div role="group" aria-label="Previous release" className={styles.previous}>
          <span className="m-muted">before</span>{" "}
          <Link to={deployPath(entry.previous.deploymentId)} className="m-mono">
            {entry.previous.artifact.version}
          </Link>{" "}
          <Time iso={entry.previous.deployedAt} />
        </div>
      )}
    </>
  );
}

/**
 * The last deploy of an environment that failed: a link to it, the step
 * that failed, when, and what its automatic rollback did; with detailed,
 * its error too. Recovered, a deploy has succeeded there since: it is
 * history, drawn quietly.
 */
export function LastFailure({ failure, detailed = false, recovered = false }: { failure: Failure; detailed?: boolean; recovered?: boolean }) {
  return (
    <div role="group" aria-label="Last failure" className={styles.lastFailure} data-rollback={failure.rollback ?? undefined} data-recovered={recovered || undefined}>
      <div>
        <span className={styles.failureLabel}>{recovered ? "Last failure" : "Last deploy failed"}</span>{" "}
        <Link to={deployPath(failure.deploymentId)} className="m-mono">
          {failure.deploymentId}
        </Link>
      </div>
      <div className={styles.failureWhat}>
        {failure.step ? (
          <>
            failed in <strong>{failure.step}</strong>
          </>
        ) : (
          "failed"
        )}{" "}
        <Time iso={failure.finishedAt} />
        {recovered && <span> · recovered since</span>}
      </div>
      {detailed && failure.error && (
        <div className={styles.failureError}>
          <FailureText error={failure.error} />
        </div>
      )}
      {failure.rollback && (
        <div>
          <StateBadge state={failure.rollback} kind="rollback" size="small" />
        </div>
      )}
    </div>
  );
}
