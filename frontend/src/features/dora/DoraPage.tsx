import { useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { PageHeader } from "../../shared/Layout";
import { Empty, Loading } from "../../shared/Placeholder";
import { DoraChart, type ChartWeek } from "./DoraChart";
import {
  bandName,
  figureText,
  metrics,
  parseDoraFilters,
  rangeWeeks,
  toDoraFilter,
  weekLabel,
  writeDoraFilters,
  type DoraFilters,
  type Figures,
  type Metric,
  type MetricKey,
  type RangeWeeks,
} from "./metrics";
import { DoraPageQuery } from "./queries";
import styles from "./DoraPage.module.css";

/** The figure of a metric, or "not enough data" where it has too few samples to compare. */
export function FigureText({ metric, figures }: { metric: Metric; figures: Figures }) {
  const v = metric.value(figures);
  const text = figureText(metric, figures);
  const band = metric.band(figures);
  return (
    <>
      <p className={styles.figure} data-figure={metric.key}>
        {v == null ? <span className="m-muted">{text.charAt(0).toUpperCase() + text.slice(1)}</span> : text}
      </p>
      <p className="m-muted">
        {metric.basis(figures)}
        {band && (
          <>
            {" · "}
            <span className="m-badge" data-band={band}>
              {bandName(band)}
            </span>
          </>
        )}
      </p>
    </>
  );
}

function FilterBar({ value, onChange }: { value: DoraFilters; onChange(next: DoraFilters): void }) {
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
    <form role="search" aria-label="Filter the DORA metrics" className={styles.filters} onSubmit={submit}>
      {(["application", "environment"] as const).map((k) => (
        <label key={k} className="m-field">
          <span>{k === "application" ? "Application" : "Environment"}</span>
          <input className="m-input" name={k} value={draft[k]} placeholder="any" onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} />
        </label>
      ))}
      <label className="m-field">
        <span>Range</span>
        <select
          className="m-select"
          name="weeks"
          value={draft.weeks}
          onChange={(e) => {
            const next = { ...draft, weeks: Number(e.target.value) as RangeWeeks };
            setDraft(next);
            onChange(next);
          }}
        >
          {rangeWeeks.map((w) => (
            <option key={w} value={w}>
              Last {w} weeks
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

interface Pick {
  metric: MetricKey;
  /** An index into the weeks, or null for the whole range. */
  week: number | null;
}

/** The five DORA metrics of the deploys the viewer may read, by ISO week, with the deploys behind each figure. */
export function DoraPage() {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const filters = useMemo(() => parseDoraFilters(new URLSearchParams(key)), [key]);
  const filterKey = writeDoraFilters(filters).toString();
  // The range is fixed when the filters change, not at every render: the
  // variables must stay stable.
  const [anchor, setAnchor] = useState(() => ({ key: filterKey, at: Date.now() }));
  if (anchor.key !== filterKey) setAnchor({ key: filterKey, at: Date.now() });
  const variables = useMemo(() => ({ filter: toDoraFilter(filters, anchor.at) }), [filterKey, anchor.at]);
  const [result, refetch] = useQuery({ query: DoraPageQuery, variables });
  const report = result.data?.doraMetrics;
  const [pick, setPick] = useState<Pick | null>(null);

  const weeks: ChartWeek[] = report?.weeks ?? [];
  const picked = pick && report ? metrics.find((m) => m.key === pick.metric) : undefined;
  const pickedFigures = pick && report ? (pick.week == null ? report.total : report.weeks[pick.week]?.figures) : undefined;
  const pickedLabel = pick && report ? (pick.week == null ? "the whole range" : weekLabel(report.weeks[pick.week] ?? { year: 0, week: 0 })) : "";
  const pickedIds = picked && pickedFigures ? [...new Set(picked.ids(pickedFigures))] : [];

  return (
    <>
      <PageHeader
        title="DORA"
        subtitle="The five DORA metrics of the deploys you may read, by ISO week, from manent's own outcomes. Click a point or a week to see the deploys behind it."
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
      <FilterBar
        value={filters}
        onChange={(next) => {
          setPick(null);
          setParams(writeDoraFilters(next), { replace: true });
        }}
      />
      {result.error && !report ? (
        <div className="m-card m-card-pad">
          <ErrorMessage error={result.error} context="Loading the DORA metrics" onRetry={() => refetch({ requestPolicy: "network-only" })} />
        </div>
      ) : !report ? (
        <Loading label="Loading the DORA metrics…" />
      ) : report.total.deploymentFrequency.deploys === 0 && report.total.changeFailRate.of === 0 ? (
        <Empty title="No deploys finished in this range.">The metrics appear as deploys finish; widen the range or the filters.</Empty>
      ) : (
        <>
          <div className={styles.grid}>
            {metrics.map((m) => (
              <section key={m.key} className="m-card m-card-pad" aria-label={m.title} data-metric={m.key}>
                <h2>{m.title}</h2>
                <p className="m-muted">{m.about}</p>
                <button type="button" className={styles.total} onClick={() => setPick({ metric: m.key, week: null })}>
                  {/* A prefix, not an aria-label: the name keeps the figure it shows (WCAG 2.5.3). */}
                  <span className="m-visually-hidden">{`${m.title}, the whole range: `}</span>
                  <FigureText metric={m} figures={report.total} />
                </button>
                <DoraChart metric={m} weeks={weeks} onPick={(week) => setPick({ metric: m.key, week })} />
                <ul className={styles.weeks} aria-label={`${m.title} by week`}>
                  {weeks.map((w, i) => {
                    const label = weekLabel(w);
                    return (
                      <li key={label}>
                        <button
                          type="button"
                          className="m-button"
                          data-week={label}
                          aria-pressed={pick?.metric === m.key && pick.week === i}
                          onClick={() => setPick({ metric: m.key, week: i })}
                        >
                          {label}: {figureText(m, w.figures)}
                        </button>
                      </li>
                    );
                  })}
                </ul>
              </section>
            ))}
          </div>
          {picked && pickedFigures && (
            <section className={`m-card m-card-pad ${styles.deploys}`} aria-label="Deploys behind the figure">
              <h2>
                {picked.title}, {pickedLabel}
              </h2>
              <p className="m-muted">{picked.basis(pickedFigures)}</p>
              {pickedIds.length === 0 ? (
                <p>No deploy is behind this figure.</p>
              ) : (
                <ul>
                  {pickedIds.map((id) => (
                    <li key={id}>
                      <Link to={`/deployments/${encodeURIComponent(id)}`} className="m-mono">
                        {id}
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          )}
        </>
      )}
    </>
  );
}
