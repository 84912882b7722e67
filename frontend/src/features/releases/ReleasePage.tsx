import { useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import type { ReleaseViewFragment } from "../../gql/graphql";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { Time } from "../../shared/time";
import { CancelReleaseAction } from "../actions/CancelReleaseAction";
import { isFinal } from "../../shared/states";
import { ReleaseGraph, type ReleaseGraphDeploy } from "./ReleaseGraph";
import { ReleaseLiveSubscription, ReleasePageQuery } from "./queries";
import { ReleaseStateBadge } from "./ReleaseStateBadge";
import { nodeLook } from "./graph";
import styles from "./Releases.module.css";
import { FailureText } from "../../shared/FailureText";

export function ReleasePage() {
  const { id = "" } = useParams();
  return <ReleaseView key={id} id={id} />;
}

type Deploy = ReleaseViewFragment["deploys"][number];

function graphDeploy(d: Deploy): ReleaseGraphDeploy {
  const dep = d.deployment;
  return {
    ...d,
    version: dep?.artifact.version,
    step: d.state === "PENDING" ? (dep?.currentStep ?? undefined) : undefined,
    application: d.application,
    environment: d.environment,
    failedStep: d.failedStep,
  };
}

/**
 * A release, live: the releaseEvents subscription sends it again whenever
 * it or one of its deploys changes, so the graph recolours node by node.
 */
function ReleaseView({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: ReleasePageQuery, variables: { id } });
  const [live, setLive] = useState<ReleaseViewFragment | null>(null);
  const [liveError, setLiveError] = useState<CombinedError | null>(null);
  useSubscriptionEvents(
    ReleaseLiveSubscription,
    { id },
    (data) => {
      setLive(data.releaseEvents);
      setLiveError(null);
    },
    { onError: setLiveError },
  );
  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  // The subscription's first event is the release now; until it comes, the query's answer.
  const r = live ?? result.data?.release ?? null;
  if (!r) {
    if (result.error) return <ErrorMessage error={result.error} context="Loading the release" onRetry={() => refetch({ requestPolicy: "network-only" })} />;
    if (result.fetching || !result.data) return <Loading label="Loading the release…" />;
    return (
      <Empty title={`No release ${id}.`}>
        It does not exist, or your identity may not read all its deploys. <Link to="/releases">All releases</Link>
      </Empty>
    );
  }
  const exported = r.deploys.flatMap((d) => (d.deployment?.exports ?? []).map((e) => ({ deploy: d.name, ...e })));
  return (
    <article aria-labelledby="release-title" data-release-id={r.id} data-state={r.state}>
      <nav aria-label="Breadcrumb" className="m-muted">
        <Link to="/releases">Releases</Link> <span aria-hidden="true">›</span> <span className="m-mono">{r.id}</span>
      </nav>
      <PageHeader
        title={
          <span id="release-title">
            {r.id} <ReleaseStateBadge state={r.state} size="large" />
          </span>
        }
        subtitle={
          <>
            {r.deploys.length} deploys · onFailure <strong>{r.onFailure}</strong> · by <span className="m-mono">{r.requester}</span> ·
            submitted <Time iso={r.createdAt} />
            {r.finishedAt && (
              <>
                {" "}
                · ended <Time iso={r.finishedAt} />
              </>
            )}
          </>
        }
      />
      <div className={styles.releaseActions}>
        <CancelReleaseAction id={r.id} canCancel={r.canCancel} openDeploys={r.deploys.filter((d) => !d.state || !isFinal(d.state)).length} />
      </div>
      {r.error && (
        <div className={styles.errorText} role="note">
          <FailureText error={r.error} />
        </div>
      )}
      {liveError && <ErrorMessage error={liveError} context="Following the release live" />}
      <section className="m-card m-card-pad" aria-label="Dependency graph">
        <ReleaseGraph releaseId={r.id} deploys={r.deploys.map(graphDeploy)} edges={r.edges} />
        <p className={`m-muted ${styles.legend}`}>
          Each deploy runs after those on its left; an edge names the exports the later deploy imports. The colours follow the
          deploys live.
        </p>
      </section>
      <section className={`m-card ${styles.section}`} aria-label="Deploys of the release">
        <div className="m-table-wrap">
          <table className="m-table">
            <thead>
              <tr>
                <th scope="col">Deploy</th>
                <th scope="col">State</th>
                <th scope="col">After</th>
                <th scope="col">Rollback</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {r.deploys.map((d) => {
                const look = nodeLook(d.state, d.rollbackState);
                return (
                  <tr key={d.name} data-deploy={d.name} data-state={d.state ?? "NONE"}>
                    <td>
                      <strong>{d.name}</strong> <span className="m-muted">{d.application} → {d.environment}</span>
                      <div className={`m-mono m-muted ${styles.id}`}>
                        <Link to={`/deployments/${encodeURIComponent(d.deploymentId)}`}>{d.deploymentId}</Link>
                      </div>
                    </td>
                    <td>{d.state ? <StateBadge state={d.state} size="small" /> : <span className="m-muted">{look.label}</span>}</td>
                    <td>{d.after.length ? d.after.join(", ") : <span className="m-muted">—</span>}</td>
                    <td>
                      {look.rollback ? (
                        d.rollbackDeploymentId ? (
                          <Link to={`/deployments/${encodeURIComponent(d.rollbackDeploymentId)}`}>{look.rollback.label}</Link>
                        ) : (
                          look.rollback.label
                        )
                      ) : (
                        <span className="m-muted">—</span>
                      )}
                      {d.rollbackError && (
                        <div className={styles.errorText}>
                          <FailureText error={d.rollbackError} brief />
                        </div>
                      )}
                    </td>
                    <td className={`m-ellipsis ${d.error ? styles.errorText : "m-muted"}`}>{d.failedStep && <strong>{d.failedStep}: </strong>}
                      {d.error ? <FailureText error={d.error} brief /> : ""}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      {exported.length > 0 && (
        <section className={`m-card ${styles.section}`} aria-label="Exports">
          <div className="m-table-wrap">
            <table className="m-table">
              <thead>
                <tr>
                  <th scope="col">Deploy</th>
                  <th scope="col">Export</th>
                  <th scope="col">Format</th>
                  <th scope="col">Value</th>
                </tr>
              </thead>
              <tbody>
                {exported.map((e) => (
                  <tr key={`${e.deploy}.${e.name}`} data-export={`${e.deploy}.${e.name}`}>
                    <td>{e.deploy}</td>
                    <td className="m-mono">{e.name}</td>
                    <td>{e.format}</td>
                    <td className="m-mono m-ellipsis" title={e.value}>
                      {e.value}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </article>
  );
}
