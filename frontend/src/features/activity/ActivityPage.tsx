import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useQuery } from "urql";
import type { ActivityDeploymentFragment } from "../../gql/graphql";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { FailureText } from "../../shared/FailureText";
import { elapsed, formatDuration } from "../../shared/format";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { attemptNote, planProgress } from "../../shared/progress";
import { StepProgress } from "../../shared/StepProgress";
import { isFinal } from "../../shared/states";
import { StartsAt, Time, useNow } from "../../shared/time";
import { applyEvent, applySnapshot, split, type Feed } from "./feed";
import { ActivityFeedSubscription, ActivityPageQuery } from "./queries";
import styles from "./ActivityPage.module.css";

/** Where a deploy stands, in its row: the error it ended with, when a delayed one starts, or its step (and attempt). */
function StepCell({ d }: { d: ActivityDeploymentFragment }) {
  if (d.error) return <FailureText error={d.error} brief />;
  if (isFinal(d.state)) return null;
  if (d.state === "DELAYED" && d.startAt) return <StartsAt iso={d.startAt} />;
  const attempt = attemptNote(planProgress(d.plan.steps, d.steps));
  return (
    <>
      {d.currentStep ?? ""}
      {attempt && <span className={styles.attempt}> · {attempt}</span>}
    </>
  );
}

function ActivityTable({ rows, caption, now }: { rows: ActivityDeploymentFragment[]; caption: string; now: number }) {
  return (
    <div className="m-table-wrap">
      <table className={`m-table ${styles.table}`}>
        <caption className="m-visually-hidden">{caption}</caption>
        {/* Fixed widths: the running and the finished tables line up. */}
        <colgroup>
          <col className={styles.colState} />
          <col />
          <col className={styles.colTenant} />
          <col className={styles.colVersion} />
          <col className={styles.colProgress} />
          <col className={styles.colStep} />
          <col className={styles.colRequester} />
          <col className={styles.colCreated} />
          <col className={styles.colDuration} />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Deploy</th>
            <th scope="col">Tenant</th>
            <th scope="col">Version</th>
            <th scope="col">Progress</th>
            <th scope="col">Step</th>
            <th scope="col">Requester</th>
            <th scope="col">Created</th>
            <th scope="col" className="m-num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => {
            const duration = elapsed(d.startedAt, d.finishedAt, now);
            return (
              <tr key={d.id} data-deployment-id={d.id} data-state={d.state}>
                <td>
                  <StateBadge state={d.state} size="small" />
                </td>
                <td>
                  <Link to={`/deployments/${encodeURIComponent(d.id)}`} className={styles.deployLink}>
                    {d.application} <span aria-hidden="true">→</span>
                    <span className="m-visually-hidden"> to </span> {d.environment}
                  </Link>
                  <div className={`m-mono m-muted ${styles.id}`}>{d.id}</div>
                </td>
                <td>{d.tenant}</td>
                <td className="m-nowrap">
                  {d.artifact.version}
                  {d.dryRun && <span className="m-muted"> (dry run)</span>}
                </td>
                <td>
                  <StepProgress plan={d.plan.steps} steps={d.steps} />
                </td>
                <td className={`m-ellipsis ${d.error ? styles.errorText : ""}`}>
                  <StepCell d={d} />
                </td>
                <td className="m-mono m-nowrap">{d.requester}</td>
                <td>
                  <Time iso={d.createdAt} />
                </td>
                <td className="m-num">{duration === null ? "—" : formatDuration(duration)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Everything running or waiting right now, and what just finished, live. */
export function ActivityPage() {
  const [result, refetch] = useQuery({ query: ActivityPageQuery });
  const [feed, setFeed] = useState<Feed>(() => new Map());
  const now = useNow();

  useEffect(() => {
    if (result.data) {
      const { activity, recent } = result.data;
      setFeed((f) => applySnapshot(f, activity, recent.nodes));
    }
  }, [result.data]);

  useSubscriptionEvents(ActivityFeedSubscription, {}, (data) => setFeed((f) => applyEvent(f, data.activity.deployment)));
  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  const { active, finished } = split(feed);
  const loaded = result.data !== undefined || feed.size > 0;
  const running = active.filter((d) => d.state === "PENDING").length;

  return (
    <>
      <PageHeader
        title="Activity"
        subtitle={loaded ? `${running} running, ${active.length - running} waiting. Updated live.` : "Everything running or waiting right now, updated live."}
      />
      {result.error && (
        <ErrorMessage error={result.error} context="Loading the activity" onRetry={() => refetch({ requestPolicy: "network-only" })} />
      )}
      <section className="m-section" aria-labelledby="active-title">
        <h2 id="active-title">
          Running and waiting <span className="m-count">{loaded ? active.length : ""}</span>
        </h2>
        <div className="m-card">
          {!loaded && !result.error ? (
            <Loading label="Loading the activity…" />
          ) : active.length === 0 ? (
            <Empty title="Nothing is running or waiting right now.">New deploys appear here as soon as they are submitted.</Empty>
          ) : (
            <ActivityTable rows={active} caption="Deploys running or waiting" now={now} />
          )}
        </div>
      </section>
      <section className="m-section" aria-labelledby="finished-title">
        <h2 id="finished-title">
          Finished recently <span className="m-count">{loaded ? finished.length : ""}</span>
        </h2>
        <div className="m-card">
          {!loaded ? null : finished.length === 0 ? (
            <Empty title="No deploy has finished yet." />
          ) : (
            <ActivityTable rows={finished} caption="Deploys finished recently" now={now} />
          )}
        </div>
        <p className={styles.more}>
          <Link to="/deployments">All deploys, with filters →</Link>
        </p>
      </section>
    </>
  );
}
