import { useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import type { AuditPageQuery as Result } from "../../gql/graphql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { Time } from "../../shared/time";
import {
  auditOutcome,
  auditRanges,
  auditTextKeys,
  parseAuditFilters,
  toAuditFilter,
  writeAuditFilters,
  type AuditFilters,
  type AuditRange,
} from "./filters";
import { AuditPageQuery } from "./queries";
import styles from "./AuditPage.module.css";

const pageSize = 50;

const labels: Record<(typeof auditTextKeys)[number], string> = {
  tenant: "Tenant",
  application: "Application",
  environment: "Environment",
  actor: "Identity",
  action: "Action",
};

type Entry = Result["auditEntries"]["nodes"][number];

/** The target of an entry: a deploy links to its page, a release to its graph. */
function TargetLink({ e }: { e: Entry }) {
  if (!e.target) return <span className="m-muted">—</span>;
  if (e.action.startsWith("release.")) return <Link to={`/releases/${encodeURIComponent(e.target)}`} className="m-mono">{e.target}</Link>;
  if (e.action.startsWith("schedule.")) return <span className="m-mono">{e.target}</span>;
  return (
    <Link to={`/deployments/${encodeURIComponent(e.target)}`} className="m-mono">
      {e.target}
    </Link>
  );
}

/** The filter bar: typed values apply together on Apply (or Enter), the range at once. */
function AuditFilterBar({ value, onChange }: { value: AuditFilters; onChange(next: AuditFilters): void }) {
  const [draft, setDraft] = useState(value);
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setDraft(value);
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange(draft);
  };
  return (
    <form role="search" aria-label="Filter the audit log" className={styles.filters} onSubmit={submit}>
      {auditTextKeys.map((k) => (
        <label key={k} className="m-field">
          <span>{labels[k]}</span>
          <input
            className="m-input"
            name={k}
            value={draft[k]}
            placeholder={k === "action" ? "deployment.*" : "any"}
            onChange={(e) => setDraft({ ...draft, [k]: e.target.value })}
          />
        </label>
      ))}
      <label className="m-field">
        <span>Time</span>
        <select
          className="m-select"
          name="since"
          value={draft.since}
          onChange={(e) => {
            const next = { ...draft, since: e.target.value as AuditRange | "" };
            setDraft(next);
            onChange(next);
          }}
        >
          <option value="">any time</option>
          {Object.entries(auditRanges).map(([k, r]) => (
            <option key={k} value={k}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="m-button">
        Apply
      </button>
    </form>
  );
}

/** The audit log entries the viewer may read, newest first, filtered and paged, with the filters in the URL. */
export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const filters = useMemo(() => parseAuditFilters(new URLSearchParams(key)), [key]);
  const after = params.get("after");
  const filterKey = writeAuditFilters(filters).toString();
  // A relative range is fixed when the filters change, not at every render:
  // the variables must stay stable.
  const [anchor, setAnchor] = useState(() => ({ key: filterKey, at: Date.now() }));
  if (anchor.key !== filterKey) setAnchor({ key: filterKey, at: Date.now() });
  const variables = useMemo(() => ({ filter: toAuditFilter(filters, anchor.at), first: pageSize, after }), [filterKey, anchor.at, after]);
  const [result, refetch] = useQuery({ query: AuditPageQuery, variables });
  const connection = result.data?.auditEntries;
  const entries = connection?.nodes ?? [];
  const filtered = filterKey !== "";

  const apply = (next: AuditFilters) => setParams(writeAuditFilters(next), { replace: true });
  const older = (cursor: string) => {
    const p = writeAuditFilters(filters);
    p.set("after", cursor);
    setParams(p);
  };
  return (
    <>
      <PageHeader
        title="Audit"
        subtitle="Who did what, to which deploy, release or schedule, and how it ended: the entries you may read, newest first."
        actions={
          <button
            type="button"
            className="m-button"
            onClick={() => {
              setAnchor({ key: filterKey, at: Date.now() });
              refetch({ requestPolicy: "network-only" });
            }}
          >
            Refresh
          </button>
        }
      />
      <AuditFilterBar value={filters} onChange={apply} />
      <section className="m-card" aria-label="Audit entries" aria-busy={result.fetching}>
        {result.error && !connection ? (
          <div className="m-card-pad">
            <ErrorMessage error={result.error} context="Loading the audit log" onRetry={() => refetch({ requestPolicy: "network-only" })} />
          </div>
        ) : !connection ? (
          <Loading label="Loading the audit log…" />
        ) : entries.length === 0 ? (
          <Empty title={filtered ? "No entry matches these filters." : "No audit entries."}>
            {filtered ? "Widen the filters, or clear them." : "Entries appear as deploys are submitted, approved and finished."}
          </Empty>
        ) : (
          <div className="m-table-wrap">
            <table className="m-table">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Identity</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">About</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id} data-audit-id={e.id} data-action={e.action}>
                    <td>
                      <Time iso={e.time} />
                    </td>
                    <td className="m-mono m-nowrap">{e.actor}</td>
                    <td className="m-mono m-nowrap">{e.action}</td>
                    <td>
                      <TargetLink e={e} />
                    </td>
                    <td>{e.resources.map((r) => `${r.tenant}/${r.application}/${r.environment}`).join(", ") || <span className="m-muted">—</span>}</td>
                    <td>{auditOutcome(e.details)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {connection && (entries.length > 0 || after) && (
        <nav className={styles.pager} aria-label="Pages">
          <button type="button" className="m-button" disabled={!after} onClick={() => setParams(writeAuditFilters(filters))}>
            ⇤ Newest
          </button>
          <span className="m-muted">
            {entries.length} {entries.length === 1 ? "entry" : "entries"} on this page
          </span>
          <button
            type="button"
            className="m-button"
            disabled={!connection.pageInfo.hasNextPage || !connection.pageInfo.endCursor}
            onClick={() => connection.pageInfo.endCursor && older(connection.pageInfo.endCursor)}
          >
            Older →
          </button>
        </nav>
      )}
    </>
  );
}
