import { useState } from "react";
import type { DeploymentViewFragment } from "../../gql/graphql";
import { elapsed, formatDuration } from "../../shared/format";
import { Time, useNow } from "../../shared/time";
import { policySummary } from "./rollback";
import styles from "./DeploymentPage.module.css";

function CopyValue({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="m-button m-button-quiet"
      aria-label={`Copy ${label}`}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setDone(true);
          setTimeout(() => setDone(false), 2000);
        } catch {
          setDone(false);
        }
      }}
    >
      {done ? "Copied" : "Copy"}
    </button>
  );
}

/** The facts of a deploy: who, when, what artifact, the plan and where it goes. */
export function DeploymentFacts({ deployment: d }: { deployment: DeploymentViewFragment }) {
  const now = useNow();
  const sha = d.sha256 ?? null;
  const pinned = d.artifact.pinnedSha256;
  const duration = elapsed(d.startedAt, d.finishedAt, now);
  return (
    <>
      <section className="m-card m-card-pad" aria-labelledby="facts-title">
        <h2 id="facts-title" className={styles.sideTitle}>
          Deploy
        </h2>
        <dl className="m-facts">
          <dt>ID</dt>
          <dd className="m-mono">{d.id}</dd>
          <dt>Requester</dt>
          <dd className="m-mono">{d.requester}</dd>
          {d.cancelledBy && (
            <>
              <dt>Cancelled by</dt>
              <dd className="m-mono">{d.cancelledBy}</dd>
            </>
          )}
          <dt>Created</dt>
          <dd>
            <Time iso={d.createdAt} mode="both" />
          </dd>
          {d.startAt && (
            <>
              <dt>Starts at</dt>
              <dd data-testid="start-at">
                <Time iso={d.startAt} mode="both" />
              </dd>
            </>
          )}
          <dt>Started</dt>
          <dd>
            <Time iso={d.startedAt} mode="both" empty="not yet" />
          </dd>
          <dt>Finished</dt>
          <dd>
            <Time iso={d.finishedAt} mode="both" empty="not yet" />
          </dd>
          <dt>Duration</dt>
          <dd>{duration === null ? "—" : formatDuration(duration)}</dd>
          {d.release && (
            <>
              <dt>Release</dt>
              <dd className="m-mono">{d.release}</dd>
            </>
          )}
          {d.labels.map((l) => (
            <div key={l.key} className={styles.factRow}>
              <dt>{l.key}</dt>
              <dd>{l.value}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="m-card m-card-pad" aria-labelledby="artifact-title">
        <h2 id="artifact-title" className={styles.sideTitle}>
          Artifact
        </h2>
        <dl className="m-facts">
          <dt>Name</dt>
          <dd>
            {d.artifact.name} <strong>{d.artifact.version}</strong> <span className="m-muted">({d.artifact.type})</span>
          </dd>
          <dt>Source</dt>
          <dd className="m-mono">{d.artifact.source}</dd>
          <dt>SHA-256</dt>
          <dd>
            {sha ? (
              <span className={styles.sha}>
                <code data-testid="artifact-sha256">{sha}</code>
                <CopyValue value={sha} label="SHA-256" />
              </span>
            ) : (
              <span className="m-muted">known once the artifact is downloaded</span>
            )}
          </dd>
          {pinned && (
            <>
              <dt>Pinned</dt>
              <dd>
                <code>{pinned}</code>{" "}
                {sha && (sha === pinned ? <span className={styles.ok}>matches</span> : <span className={styles.bad}>differs</span>)}
              </dd>
            </>
          )}
        </dl>
      </section>
      <section className="m-card m-card-pad" aria-labelledby="plan-title">
        <h2 id="plan-title" className={styles.sideTitle}>
          Plan
        </h2>
        <table className={styles.plan}>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Retries</th>
              <th scope="col">Time limit</th>
              <th scope="col">
                <span className="m-visually-hidden">Mandatory</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {d.plan.steps.map((s) => (
              <tr key={s.name}>
                <td>
                  <span className={styles.planName}>{s.name}</span>
                  {s.type !== s.name && s.type !== "standard" && <span className="m-muted"> {s.type}</span>}
                  {s.specHash && (
                    // The specification the plan captured is known by its hash only:
                    // commands and URLs never reach the browser.
                    <code className={styles.specHash} title={`spec_hash ${s.specHash}`} aria-label={`spec_hash ${s.specHash}`}>
                      {s.specHash.slice(0, 12)}…
                    </code>
                  )}
                </td>
                <td>{s.maxRetries}</td>
                <td>{formatDuration(s.timeoutSeconds * 1000)}</td>
                <td className="m-muted">{s.mandatory ? "mandatory" : "optional"}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <dl className="m-facts">
          <dt>Plugin</dt>
          <dd>{d.effective.plugin}</dd>
          <dt>Targets</dt>
          <dd>
            {d.effective.targets.length === 0 ? (
              <span className="m-muted">none</span>
            ) : (
              <ul className={styles.targets}>
                {d.effective.targets.map((t) => (
                  <li key={t.name} className="m-mono">
                    {t.host ? `${t.user ? `${t.user}@` : ""}${t.host}${t.port ? `:${t.port}` : ""}${t.path ? `:${t.path}` : ""}` : (t.path ?? t.name)}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          {d.effective.healthChecks.length > 0 && (
            <>
              <dt>Health</dt>
              <dd>
                <ul className={styles.targets}>
                  {d.effective.healthChecks.map((h) => (
                    <li key={h} className="m-mono">
                      {h}
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
          {d.effective.secretNames.length > 0 && (
            <>
              <dt>Secrets</dt>
              <dd className="m-mono">{d.effective.secretNames.join(", ")}</dd>
            </>
          )}
          {d.effective.configSource && (
            <>
              <dt>Config</dt>
              <dd className="m-mono">
                {d.effective.configSource}
                {d.effective.configRevision && <span className="m-muted"> @ {d.effective.configRevision.slice(0, 12)}</span>}
              </dd>
            </>
          )}
          <dt>Rollback</dt>
          <dd>{policySummary(d.effective.rollback)}</dd>
          {(d.decision.rule || d.decision.requires.length > 0) && (
            <>
              <dt>Governance</dt>
              <dd>
                {d.decision.rule}
                {d.decision.requires.length > 0 && <> · requires {d.decision.requires.join(", ")}</>}
                {d.decision.reason && <span className="m-muted"> · {d.decision.reason}</span>}
              </dd>
            </>
          )}
        </dl>
      </section>
    </>
  );
}
