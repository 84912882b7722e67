import { Link } from "react-router";
import type { DeploymentViewFragment } from "../../gql/graphql";
import { StateBadge } from "../../shared/StateBadge";
import { Time } from "../../shared/time";
import { afterStatusLabel, targetLines } from "./chain";
import styles from "./DeploymentPage.module.css";

type After = NonNullable<DeploymentViewFragment["after"]>;
type Export = DeploymentViewFragment["exports"][number];
type Dependency = DeploymentViewFragment["dependents"][number];

/** The deploys at the other end of an after, each with its state now (none once removed by retention) and a link to it. */
function DeployList({ label, deploys }: { label: string; deploys: Dependency[] }) {
  return (
    <ul className={styles.targets} aria-label={label}>
      {deploys.map((dep) => (
        <li key={dep.id} className={styles.dependency}>
          <Link to={`/deployments/${encodeURIComponent(dep.id)}`} className="m-mono">
            {dep.id}
          </Link>{" "}
          {dep.state ? <StateBadge state={dep.state} size="small" /> : <span className="m-muted">removed</span>}
        </li>
      ))}
    </ul>
  );
}

/** The deploys this one waits for (after), each with its state now and a link to it. */
export function WaitsFor({ after }: { after: After }) {
  return (
    <section className="m-card m-card-pad" aria-labelledby="after-title" data-after-status={after.status}>
      <h2 id="after-title" className={styles.sideTitle}>
        Waits for
      </h2>
      <p>
        {afterStatusLabel(after.status)}
        {after.status === "waiting" && after.expiresAt && (
          <span className="m-muted">
            {" "}
            · gives up <Time iso={after.expiresAt} mode="both" />
          </span>
        )}
      </p>
      {after.reason && <p className="m-mono">{after.reason}</p>}
      <DeployList label="Dependencies" deploys={after.dependencies} />
    </section>
  );
}

/** The deploys whose after names this one, each with its state now and a link to it. */
export function WaitedOnBy({ dependents }: { dependents: Dependency[] }) {
  return (
    <section className="m-card m-card-pad" aria-labelledby="dependents-title">
      <h2 id="dependents-title" className={styles.sideTitle}>
        Waited on by
      </h2>
      <DeployList label="Dependents" deploys={dependents} />
    </section>
  );
}

/** The checked exports of a succeeded deploy: what the deploys after it can import. */
export function Exports({ exports }: { exports: Export[] }) {
  return (
    <section className="m-card m-card-pad" aria-labelledby="exports-title">
      <h2 id="exports-title" className={styles.sideTitle}>
        Exports
      </h2>
      <dl className="m-facts">
        {exports.map((e) => (
          <div key={e.name} className={styles.factRow}>
            <dt className="m-mono">{e.name}</dt>
            <dd data-export={e.name}>
              <span className="m-muted">
                {e.format}
                {e.public && ", public"}
              </span>
              {e.format === "targets" ? (
                <ul className={styles.targets} aria-label={`Targets of ${e.name}`}>
                  {targetLines(e.value).map((t, i) => (
                    <li key={`${i}-${t}`} className="m-mono">
                      {t}
                    </li>
                  ))}
                </ul>
              ) : (
                <div className={`m-mono ${styles.exportValue}`}>{e.value}</div>
              )}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
