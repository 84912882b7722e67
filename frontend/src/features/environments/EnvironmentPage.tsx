import { useEffect, useRef, useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { formatDuration } from "../../shared/format";
import { StateBadge } from "../../shared/StateBadge";
import type { EnvironmentPageQuery as EnvironmentPageData, InventoryCellFragment } from "../../gql/graphql";
import { PromoteActions } from "../actions/DeploymentActions";
import { RollbackAction } from "../actions/RollbackAction";
import { formatAbsolute, Time, useNow } from "../../shared/time";
import { isFailing } from "./cells";
import { freezeHeadline, freezeState, upcomingWindows, windowLength, windowOrigin } from "./freezes";
import { LastFailure, ReleaseInService } from "./Inventory";
import { EnvironmentPageQuery, EnvironmentsFeedSubscription, FreezeCalendarQuery } from "./queries";
import styles from "./EnvironmentsPage.module.css";

const ranges = [7, 30, 90];

/**
 * One environment of an application: the release in service and the last
 * failure (read again live when a deploy there ends), then its freeze
 * calendar: what is frozen now, what is next, and the windows ahead.
 */
export function EnvironmentPage() {
  const { tenant = "", application = "", environment = "" } = useParams();
  const [days, setDays] = useState(30);
  // The end is fixed when the range is chosen: a variable that moved with
  // the clock would ask the server again every second.
  const [to, setTo] = useState<string | null>(null);
  const [result, refetch] = useQuery({ query: FreezeCalendarQuery, variables: { tenant, application, environment, to } });
  const now = useNow();
  const cal = result.data?.freezeCalendar;
  const state = cal ? freezeState(cal.windows, now) : null;
  const windows = cal ? upcomingWindows(cal.windows, now) : [];

  return (
    <>
      <PageHeader
        title={`${application} → ${environment}`}
        subtitle={
          <>
            Tenant <strong>{tenant}</strong>: the release in service, the last failure, the history of deploys, and the freeze calendar (no deploy runs in a window without a
            freeze override).{" "}
            <Link to="/environments">All environments</Link>
          </>
        }
      />
      <Overview tenant={tenant} application={application} environment={environment} />
      {result.error && <ErrorMessage error={result.error} context="Loading the freeze calendar" onRetry={() => refetch({ requestPolicy: "network-only" })} />}
      {!cal && !result.error && <Loading label="Loading the freeze calendar…" />}
      {cal && state && (
        <>
          <div className="m-card m-card-pad">
            <p className={styles.headline} data-freeze={state.kind} data-testid="freeze-headline">
              {freezeHeadline(state, now, cal)}
            </p>
            <div className={`m-muted ${styles.range}`}>
              <span>
                From {formatAbsolute(cal.from)} to {formatAbsolute(cal.to)}.
              </span>
              <label className="m-field">
                <span className="m-visually-hidden">Range</span>
                <select
                  className="m-select"
                  value={days}
                  onChange={(e) => {
                    const d = Number(e.target.value);
                    setDays(d);
                    setTo(new Date(Date.now() + d * 86_400_000).toISOString());
                  }}
                >
                  {ranges.map((d) => (
                    <option key={d} value={d}>
                      next {d} days
                    </option>
                  ))}
                </select>
              </label>
            </div>
          </div>
          <section className="m-section" aria-labelledby="freeze-windows">
            <h2 id="freeze-windows">
              Windows <span className="m-count">{windows.length}</span>
            </h2>
            {windows.length === 0 ? (
              <div className="m-card">
                <Empty title="No freeze window in this range.">Freeze windows come from the governance section of manent.yml.</Empty>
              </div>
            ) : (
              <div className="m-card m-table-wrap">
                <table className="m-table" aria-label="Freeze windows">
                  <thead>
                    <tr>
                      <th scope="col">Window</th>
                      <th scope="col">Starts</th>
                      <th scope="col">Ends</th>
                      <th scope="col">Lasts</th>
                      <th scope="col">Schedule</th>
                    </tr>
                  </thead>
                  <tbody>
                    {windows.map((w) => {
                      const inForce = Date.parse(w.start) <= now;
                      return (
                        <tr key={`${w.rule} ${w.start}`} className={inForce ? styles.inForce : undefined} data-rule={w.rule}>
                          <td>
                            <strong>{w.rule}</strong>
                            {inForce && <span className="m-muted"> · in force</span>}
                          </td>
                          <td>
                            <Time iso={w.start} mode="both" />
                          </td>
                          <td>
                            <Time iso={w.end} mode="both" />
                          </td>
                          <td className="m-nowrap">{windowLength(w)}</td>
                          <td className="m-mono">{windowOrigin(w)}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

type EnvironmentData = NonNullable<EnvironmentPageData["environment"]>;
type HistoryRow = EnvironmentData["history"]["nodes"][number];

const pageSize = 20;

/**
 * The release in service, the last failure and the history of deploys of
 * the environment (read again live when a deploy there ends), with the
 * rollback and promote actions the server offers this viewer.
 */
function Overview({ tenant, application, environment }: { tenant: string; application: string; environment: string }) {
  // The cursors of the pages shown before this one: Newer goes back one.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const [result, refetch] = useQuery({ query: EnvironmentPageQuery, variables: { tenant, application, environment, first: pageSize, after } });
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);
  useSubscriptionEvents(EnvironmentsFeedSubscription, {}, (data) => {
    const d = data.activity.deployment;
    if (d.tenant !== tenant || d.application !== application || d.environment !== environment) return;
    // A deploy that starts or ends here changes the history, and may change what is in service.
    clearTimeout(refresh.current);
    refresh.current = setTimeout(() => refetch({ requestPolicy: "network-only" }), 250);
  });
  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  const env = result.data?.environment;
  const entry = env?.inService ?? undefined;
  const history = env?.history;
  const neverDeployed = !entry && !env?.lastFailure && (history?.nodes.length ?? 0) === 0 && cursors.length === 1;
  const shown: InventoryCellFragment | undefined = entry ?? (env && !neverDeployed ? nothingInService(env) : undefined);
  const failing = shown ? isFailing({ ...shown, lastFailure: env?.lastFailure ?? null }) : false;
  return (
    <>
      <section className={`m-card m-card-pad ${styles.inServiceCard}`} aria-labelledby="in-service-title">
        <h2 id="in-service-title" className={styles.cardHeading}>
          In service
        </h2>
        {result.error ? (
          <ErrorMessage error={result.error} context="Loading the environment" onRetry={() => refetch({ requestPolicy: "network-only" })} />
        ) : !result.data ? (
          <Loading label="Loading the release in service…" />
        ) : (
          <div className={styles.inService}>
            <div>
              <ReleaseInService entry={shown} />
              {entry?.deploymentId && entry.artifact && (
                <div className={styles.cellActions}>
                  {/* The release before is what the button sends (rollback to:): shown on its own canRollbackTo. */}
                  {entry.previous?.canRollbackTo && (
                    <RollbackAction
                      tenant={tenant}
                      label={`Roll back to ${entry.previous.artifact.version}…`}
                      target={{
                        id: entry.previous.deploymentId,
                        application,
                        environment,
                        version: entry.previous.artifact.version,
                        deployedBy: entry.previous.deployedBy,
                        deployedAt: entry.previous.deployedAt,
                      }}
                    />
                  )}
                  <PromoteActions deployment={{ id: entry.deploymentId, application, environment, artifact: entry.artifact }} targets={entry.promotionTargets} />
                </div>
              )}
            </div>
            {env?.lastFailure && <LastFailure failure={env.lastFailure} detailed recovered={!failing} />}
          </div>
        )}
      </section>
      {history && (
        <section className="m-section" aria-labelledby="history-title">
          <h2 id="history-title">History</h2>
          {history.nodes.length === 0 ? (
            <div className="m-card">
              <Empty title="No deploy here yet.">The deploys of {application} to {environment} show here, newest first.</Empty>
            </div>
          ) : (
            <div className="m-card m-table-wrap">
              <table className="m-table" aria-label="Deploys here">
                <thead>
                  <tr>
                    <th scope="col">Deploy</th>
                    <th scope="col">State</th>
                    <th scope="col">Version</th>
                    <th scope="col">Requested by</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Rollback</th>
                    <th scope="col">
                      <span className="m-visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {history.nodes.map((d) => (
                    <HistoryLine key={d.id} row={d} tenant={tenant} application={application} environment={environment} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {(cursors.length > 1 || history.pageInfo.hasNextPage) && (
            <div className={styles.cellActions}>
              {cursors.length > 1 && (
                <button type="button" className="m-button" onClick={() => setCursors((c) => c.slice(0, -1))}>
                  ← Newer
                </button>
              )}
              {history.pageInfo.hasNextPage && history.pageInfo.endCursor && (
                <button type="button" className="m-button" onClick={() => setCursors((c) => [...c, history.pageInfo.endCursor ?? null])}>
                  Older →
                </button>
              )}
            </div>
          )}
        </section>
      )}
    </>
  );
}

/** An environment with deploys but none in service, as the inventory words it. */
function nothingInService(env: EnvironmentData): InventoryCellFragment {
  return {
    tenant: env.tenant,
    application: env.application,
    environment: env.environment,
    deploymentId: null,
    artifact: null,
    sha256: null,
    deployedAt: null,
    deployedBy: null,
    previous: null,
    lastFailure: env.lastFailure,
    promotionTargets: [],
  };
}

function HistoryLine({ row: d, tenant, application, environment }: { row: HistoryRow; tenant: string; application: string; environment: string }) {
  return (
    <tr data-deployment-id={d.id} data-state={d.state}>
      <td>
        <Link to={`/deployments/${encodeURIComponent(d.id)}`} className="m-mono">
          {d.id}
        </Link>
        <div className="m-muted">
          <Time iso={d.createdAt} />
          {d.dryRun && " · dry run"}
        </div>
      </td>
      <td>
        <StateBadge state={d.state} size="small" />
      </td>
      <td>{d.artifact.version}</td>
      <td className="m-mono">{d.requester}</td>
      <td className="m-nowrap">{d.durationMs === null ? <span className="m-muted">—</span> : formatDuration(d.durationMs)}</td>
      <td>{d.rollback ? <StateBadge state={d.rollback.state} kind="rollback" size="small" /> : <span className="m-muted">—</span>}</td>
      <td>
        {d.canRollbackTo && (
          <RollbackAction
            tenant={tenant}
            target={{ id: d.id, application, environment, version: d.artifact.version, deployedBy: d.requester, deployedAt: d.finishedAt }}
          />
        )}
      </td>
    </tr>
  );
}
