import { useEffect, useRef, useState } from "react";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { isFinal } from "../../shared/states";
import { formatAbsolute, Time, useNow } from "../../shared/time";
import { isFailing } from "./cells";
import { freezeHeadline, freezeState, upcomingWindows, windowLength, windowOrigin } from "./freezes";
import { LastFailure, ReleaseInService } from "./Inventory";
import { EnvironmentInventoryQuery, EnvironmentsFeedSubscription, FreezeCalendarQuery } from "./queries";
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
            Tenant <strong>{tenant}</strong>: the release in service, the last failure, and the freeze calendar (no deploy runs in a window without a
            freeze override).{" "}
            <Link to="/environments">All environments</Link>
          </>
        }
      />
      <InService tenant={tenant} application={application} environment={environment} />
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

/** The release in service and the last failure of the environment, from the inventory. */
function InService({ tenant, application, environment }: { tenant: string; application: string; environment: string }) {
  const [result, refetch] = useQuery({ query: EnvironmentInventoryQuery });
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refresh.current), []);
  useSubscriptionEvents(EnvironmentsFeedSubscription, {}, (data) => {
    const d = data.activity.deployment;
    if (!isFinal(d.state) || d.tenant !== tenant || d.application !== application || d.environment !== environment) return;
    // A deploy that ends here may have changed what is in service or failed.
    clearTimeout(refresh.current);
    refresh.current = setTimeout(() => refetch({ requestPolicy: "network-only" }), 250);
  });
  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  const entry = result.data?.inventory.find((e) => e.tenant === tenant && e.application === application && e.environment === environment);
  return (
    <section className={`m-card m-card-pad ${styles.inServiceCard}`} aria-labelledby="in-service-title">
      <h2 id="in-service-title" className={styles.cardHeading}>
        In service
      </h2>
      {result.error ? (
        <ErrorMessage error={result.error} context="Loading the release in service" onRetry={() => refetch({ requestPolicy: "network-only" })} />
      ) : !result.data ? (
        <Loading label="Loading the release in service…" />
      ) : (
        <div className={styles.inService}>
          <div>
            <ReleaseInService entry={entry} />
          </div>
          {entry?.lastFailure && <LastFailure failure={entry.lastFailure} detailed recovered={!isFailing(entry)} />}
        </div>
      )}
    </section>
  );
}
