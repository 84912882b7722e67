import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { useQuery } from "urql";
import type { InFlightFragment } from "../../gql/graphql";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { isFinal } from "../../shared/states";
import { isFailing, matrixCells } from "./cells";
import { FreezeNote } from "./FreezeNote";
import { PromoteActions } from "../actions/DeploymentActions";
import { LastFailure, ReleaseInService } from "./Inventory";
import { buildMatrix, cellKey } from "./matrix";
import { EnvironmentsFeedSubscription, EnvironmentsPageQuery } from "./queries";
import { useMatrixFreezes } from "./useMatrixFreezes";
import styles from "./EnvironmentsPage.module.css";

/** The release in service of each application in each environment, and what is being deployed there now. */
export function EnvironmentsPage() {
  const [result, refetch] = useQuery({ query: EnvironmentsPageQuery });
  const [inFlight, setInFlight] = useState<Map<string, InFlightFragment>>(() => new Map());
  const refresh = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (!result.data) return;
    const m = new Map<string, InFlightFragment>();
    for (const d of result.data.activity) m.set(cellKey(d.tenant, d.application, d.environment), d);
    setInFlight(m);
  }, [result.data]);

  useEffect(() => () => clearTimeout(refresh.current), []);

  useSubscriptionEvents(EnvironmentsFeedSubscription, {}, (data) => {
    const d = data.activity.deployment;
    const key = cellKey(d.tenant, d.application, d.environment);
    setInFlight((m) => {
      const current = m.get(key);
      if (isFinal(d.state)) {
        if (current?.id !== d.id) return m;
        const next = new Map(m);
        next.delete(key);
        return next;
      }
      if (current && current.id !== d.id && current.state === "PENDING" && d.state !== "PENDING") return m; // the running one wins the cell
      return new Map(m).set(key, d);
    });
    if (isFinal(d.state)) {
      // A deploy that ends may have changed the release in service: read the
      // inventory again, once per burst of endings.
      clearTimeout(refresh.current);
      refresh.current = setTimeout(() => refetch({ requestPolicy: "network-only" }), 250);
    }
  });
  useOnReconnect(() => refetch({ requestPolicy: "network-only" }));

  const inventory = result.data?.inventory;
  const matrix = inventory ? buildMatrix(inventory, [...inFlight.values()]) : null;

  // The freeze notes of every cell, in batches of the server's limit,
  // asked again only when the cells change (an application or environment
  // appears).
  const cells = matrix ? matrixCells(matrix) : [];
  const freezes = useMatrixFreezes(cells);
  const calendars = freezes.calendars;

  return (
    <>
      <PageHeader
        title="Environments"
        subtitle="The release in service of every application in every environment and its last failure, updated live, and the freezes in force or coming."
      />
      {result.error && <ErrorMessage error={result.error} context="Loading the environments" onRetry={() => refetch({ requestPolicy: "network-only" })} />}
      {freezes.error && <ErrorMessage error={freezes.error} context="Loading the freeze windows" onRetry={freezes.retry} />}
      {!matrix ? (
        !result.error && <Loading label="Loading the environments…" />
      ) : matrix.tenants.length === 0 ? (
        <div className="m-card">
          <Empty title="No release in service yet.">An application appears here after its first deploy that succeeds or fails.</Empty>
        </div>
      ) : (
        <div className={`m-card m-table-wrap ${styles.wrap}`}>
          <table className={`m-table ${styles.matrix}`} style={{ ["--env-count" as string]: matrix.environments.length }}>
            <thead>
              <tr>
                <th scope="col">Application</th>
                {matrix.environments.map((env) => (
                  <th key={env} scope="col">
                    {env}
                  </th>
                ))}
              </tr>
            </thead>
            {matrix.tenants.map(({ tenant, applications }) => (
              <tbody key={tenant}>
                {matrix.tenants.length > 1 && (
                  <tr className={styles.tenantRow}>
                    <th scope="rowgroup" colSpan={matrix.environments.length + 1}>
                      {tenant}
                    </th>
                  </tr>
                )}
                {applications.map((app) => (
                  <tr key={app}>
                    <th scope="row" className={styles.app}>
                      {app}
                      {matrix.tenants.length === 1 && <div className="m-muted">{tenant}</div>}
                    </th>
                    {matrix.environments.map((env) => {
                      const entry = matrix.cell(tenant, app, env);
                      const moving = inFlight.get(cellKey(tenant, app, env));
                      const failing = isFailing(entry);
                      return (
                        <td key={env} className={styles.cell} data-environment={env} data-failing={failing || undefined}>
                          <ReleaseInService entry={entry} />
                          {entry?.lastFailure && <LastFailure failure={entry.lastFailure} recovered={!failing} />}
                          {entry?.deploymentId && entry.artifact && entry.promotionTargets.length > 0 && (
                            <div className={styles.cellActions}>
                              <PromoteActions
                                compact
                                deployment={{ id: entry.deploymentId, application: app, environment: env, artifact: entry.artifact }}
                                targets={entry.promotionTargets}
                              />
                            </div>
                          )}
                          {moving && (
                            <Link to={`/deployments/${encodeURIComponent(moving.id)}`} className={styles.moving}>
                              <StateBadge state={moving.state} size="small" /> {moving.artifact.version}
                              {moving.currentStep && moving.state === "PENDING" && <span className="m-muted"> · {moving.currentStep}</span>}
                            </Link>
                          )}
                          <FreezeNote tenant={tenant} application={app} environment={env} calendar={calendars.get(cellKey(tenant, app, env))} />
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </div>
      )}
    </>
  );
}
