import { useMemo, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { useQuery } from "urql";
import type { DeploymentsPageQuery as Result } from "../../gql/graphql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { elapsed, formatDuration } from "../../shared/format";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { StateBadge } from "../../shared/StateBadge";
import { isFinal } from "../../shared/states";
import { Time, formatClock, useNow } from "../../shared/time";
import { DeploymentFilters, type Suggestions } from "./DeploymentFilters";
import { hasFilters, toDeploymentFilter, writeFilters } from "./filters";
import { DeploymentsPageQuery, DeploymentsSuggestionsQuery } from "./queries";
import { useUrlFilters } from "./useUrlFilters";
import styles from "./DeploymentsPage.module.css";
import { FailureText } from "../../shared/FailureText";

const pageSize = 50;

/** The cursors of the pages before this one, kept in the history entry so Back and "Newer" agree. */
interface PageState {
  previous?: string[];
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort((a, b) => a.localeCompare(b));
}

type Row = Result["deployments"]["edges"][number]["node"];

function RowView({ d, now }: { d: Row; now: number }) {
  const duration = elapsed(d.startedAt, d.finishedAt, now);
  return (
    <tr>
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
      <td className="m-mono m-nowrap">{d.requester}</td>
      <td>
        <Time iso={d.createdAt} />
      </td>
      <td className="m-num">{duration === null ? "—" : formatDuration(duration)}</td>
      <td className={`m-ellipsis ${d.error ? styles.errorText : "m-muted"}`} title={d.error ? undefined : (d.currentStep ?? undefined)}>
        {d.error ? <FailureText error={d.error} brief /> : !isFinal(d.state) && d.currentStep ? `on ${d.currentStep}` : ""}
      </td>
    </tr>
  );
}

/** Every deploy the viewer may read, filtered and paged, with the filters in the URL. */
export function DeploymentsPage() {
  const { filters, after, setFilters } = useUrlFilters();
  const navigate = useNavigate();
  const location = useLocation();
  const filterKey = writeFilters(filters).toString();
  // A relative range ("last hour") is fixed when the filters are set or
  // refreshed, not at every render: the variables must stay stable.
  const [refreshedAt, setRefreshedAt] = useState(() => Date.now());
  const [anchor, setAnchor] = useState({ key: filterKey, at: refreshedAt });
  if (anchor.key !== filterKey) setAnchor({ key: filterKey, at: Date.now() });
  const variables = useMemo(
    () => ({ filter: toDeploymentFilter(filters, anchor.at), first: pageSize, after }),
    [filterKey, anchor.at, after],
  );
  const [result, refetch] = useQuery({ query: DeploymentsPageQuery, variables });
  const [suggestionResult] = useQuery({ query: DeploymentsSuggestionsQuery });
  const now = useNow();

  const suggestions: Suggestions | undefined = suggestionResult.data
    ? {
        tenant: unique(suggestionResult.data.inventory.map((e) => e.tenant)),
        application: unique(suggestionResult.data.inventory.map((e) => e.application)),
        environment: unique(suggestionResult.data.inventory.map((e) => e.environment)),
      }
    : undefined;

  const previous = (location.state as PageState | null)?.previous ?? [];

  function goTo(cursor: string | null, stack: string[]) {
    const p = writeFilters(filters);
    if (cursor) p.set("after", cursor);
    navigate({ search: p.toString() ? `?${p}` : "" }, { state: { previous: stack } satisfies PageState });
  }

  const connection = result.data?.deployments;
  const rows = connection?.edges ?? [];
  return (
    <>
      <PageHeader
        title="Deployments"
        subtitle={`Every deploy you may read, newest first. Updated ${formatClock(refreshedAt)}.`}
        actions={
          <button
            type="button"
            className="m-button"
            onClick={() => {
              const at = Date.now();
              setRefreshedAt(at);
              setAnchor({ key: filterKey, at });
              refetch({ requestPolicy: "network-only" });
            }}
          >
            Refresh
          </button>
        }
      />
      <DeploymentFilters value={filters} onChange={setFilters} suggestions={suggestions} />
      <section className="m-card" aria-label="Deploys" aria-busy={result.fetching}>
        {result.error && !connection ? (
          <div className="m-card-pad">
            <ErrorMessage error={result.error} context="Loading the deploys" onRetry={() => refetch({ requestPolicy: "network-only" })} />
          </div>
        ) : !connection ? (
          <Loading label="Loading the deploys…" />
        ) : rows.length === 0 ? (
          <Empty title={hasFilters(filters) ? "No deploy matches these filters." : "No deploys yet."}>
            {hasFilters(filters) ? "Widen the filters, or clear them." : "Submit one with the CLI: manent deploy -f deploy.yml"}
          </Empty>
        ) : (
          <div className="m-table-wrap">
            <table className="m-table">
              <thead>
                <tr>
                  <th scope="col">State</th>
                  <th scope="col">Deploy</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Version</th>
                  <th scope="col">Requester</th>
                  <th scope="col">Created</th>
                  <th scope="col" className="m-num">
                    Duration
                  </th>
                  <th scope="col">Step or error</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <RowView key={e.node.id} d={e.node} now={now} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {connection && (rows.length > 0 || after) && (
        <nav className={styles.pager} aria-label="Pages">
          <button type="button" className="m-button" disabled={!after} onClick={() => goTo(null, [])}>
            ⇤ Newest
          </button>
          <button
            type="button"
            className="m-button"
            disabled={!after}
            onClick={() => {
              const stack = previous.slice(0, -1);
              goTo(previous[previous.length - 1] ?? null, stack);
            }}
          >
            ← Newer
          </button>
          <span className="m-muted">
            {rows.length} {rows.length === 1 ? "deploy" : "deploys"} on this page
          </span>
          <button
            type="button"
            className="m-button"
            disabled={!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor}
            onClick={() => goTo(connection.pageInfo.endCursor ?? null, after ? [...previous, after] : [...previous, ""])}
          >
            Older →
          </button>
        </nav>
      )}
    </>
  );
}
