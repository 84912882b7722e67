import type { DoraBand, DoraFilter } from "../../gql/graphql";
import { formatDuration } from "../../shared/format";

/** The figures of a week or of the whole range, as the DORA page asks for them. */
export interface Figures {
  deploymentFrequency: { deploys: number; perWeek: number; band: DoraBand; deploymentIds: string[] };
  leadTime: { seconds?: number | null; samples: number; enoughData: boolean; band?: DoraBand | null; deploymentIds: string[] };
  changeFailRate: { count: number; of: number; rate: number; enoughData: boolean; band?: DoraBand | null; deploymentIds: string[] };
  recoveryTime: {
    seconds?: number | null;
    samples: number;
    enoughData: boolean;
    band?: DoraBand | null;
    deploymentIds: string[];
    unrecoveredIds: string[];
  };
  reworkRate: { count: number; of: number; rate: number; enoughData: boolean; band?: DoraBand | null; deploymentIds: string[] };
}

export type MetricKey = keyof Figures;

export interface Metric {
  key: MetricKey;
  title: string;
  /** What the figure is, in a line. */
  about: string;
  /**
   * The number to show and to chart, or null where the figure rests on too
   * few samples: a median of two deploys is no trend, so it is not drawn.
   */
  value(f: Figures): number | null;
  format(v: number): string;
  /** How many samples the figure rests on: none is "no data", a few "not enough data". */
  samples(f: Figures): number;
  /** What the figure rests on, shown beside "not enough data" too. */
  basis(f: Figures): string;
  band(f: Figures): DoraBand | null;
  /** The deploys behind the figure, the ones a click opens. */
  ids(f: Figures): string[];
}

const percent = (v: number) => `${(v * 100).toFixed(v === 0 || v === 1 ? 0 : 1)} %`;

export const metrics: Metric[] = [
  {
    key: "deploymentFrequency",
    title: "Deployment frequency",
    about: "Deployments per week: the deploys that succeeded, or failed after acting on a target.",
    value: (f) => f.deploymentFrequency.perWeek,
    format: (v) => `${Number.isInteger(v) ? v : v.toFixed(1)} / week`,
    samples: (f) => f.deploymentFrequency.deploys,
    basis: (f) => `${f.deploymentFrequency.deploys} ${f.deploymentFrequency.deploys === 1 ? "deploy" : "deploys"}`,
    band: (f) => f.deploymentFrequency.band,
    ids: (f) => f.deploymentFrequency.deploymentIds,
  },
  {
    key: "leadTime",
    title: "Lead time for changes",
    about: "Median time from the commit or artifact (else the submission) to success.",
    value: (f) => (f.leadTime.enoughData && f.leadTime.seconds != null ? f.leadTime.seconds : null),
    format: (v) => formatDuration(v * 1000),
    samples: (f) => f.leadTime.samples,
    basis: (f) => samples(f.leadTime.samples),
    band: (f) => f.leadTime.band ?? null,
    ids: (f) => f.leadTime.deploymentIds,
  },
  {
    key: "changeFailRate",
    title: "Change fail rate",
    about: "Deploys that failed, or were rolled back or remediated within the window.",
    value: (f) => (f.changeFailRate.enoughData ? f.changeFailRate.rate : null),
    format: percent,
    samples: (f) => f.changeFailRate.of,
    basis: (f) => `${f.changeFailRate.count} of ${f.changeFailRate.of}`,
    band: (f) => f.changeFailRate.band ?? null,
    ids: (f) => f.changeFailRate.deploymentIds,
  },
  {
    key: "recoveryTime",
    title: "Failed deployment recovery time",
    about: "Median time from a failure to the next success in its environment.",
    value: (f) => (f.recoveryTime.enoughData && f.recoveryTime.seconds != null ? f.recoveryTime.seconds : null),
    format: (v) => formatDuration(v * 1000),
    samples: (f) => f.recoveryTime.samples + f.recoveryTime.unrecoveredIds.length,
    basis: (f) =>
      samples(f.recoveryTime.samples) + (f.recoveryTime.unrecoveredIds.length ? `, ${f.recoveryTime.unrecoveredIds.length} not recovered` : ""),
    band: (f) => f.recoveryTime.band ?? null,
    ids: (f) => [...f.recoveryTime.deploymentIds, ...f.recoveryTime.unrecoveredIds],
  },
  {
    key: "reworkRate",
    title: "Deployment rework rate",
    about: "Deploys that were remediations or rollbacks (no published bands).",
    value: (f) => (f.reworkRate.enoughData ? f.reworkRate.rate : null),
    format: percent,
    samples: (f) => f.reworkRate.of,
    basis: (f) => `${f.reworkRate.count} of ${f.reworkRate.of}`,
    band: (f) => f.reworkRate.band ?? null,
    ids: (f) => f.reworkRate.deploymentIds,
  },
];

/**
 * The figure as text: its number, or why there is none. A week without a
 * single sample has no data; one with a few has not enough (deployment
 * frequency always has a figure: zero deploys is one).
 */
export function figureText(m: Metric, f: Figures): string {
  const v = m.value(f);
  if (v != null) return m.format(v);
  return m.samples(f) === 0 ? "no data" : "not enough data";
}

function samples(n: number): string {
  return `${n} ${n === 1 ? "sample" : "samples"}`;
}

export function isMetricKey(v: string | null): v is MetricKey {
  return v !== null && metrics.some((m) => m.key === v);
}

export const rangeWeeks = [4, 12, 26, 52] as const;
export type RangeWeeks = (typeof rangeWeeks)[number];
export const defaultWeeks: RangeWeeks = 12;

/** The filters of the DORA page as the URL holds them: ?application=&environment=&weeks=12. */
export interface DoraFilters {
  application: string;
  environment: string;
  weeks: RangeWeeks;
}

export function parseDoraFilters(p: URLSearchParams): DoraFilters {
  const weeks = Number(p.get("weeks"));
  return {
    application: p.get("application")?.trim() ?? "",
    environment: p.get("environment")?.trim() ?? "",
    weeks: (rangeWeeks as readonly number[]).includes(weeks) ? (weeks as RangeWeeks) : defaultWeeks,
  };
}

/** The URL query of the filters: empty values and the default range are left out. */
export function writeDoraFilters(f: DoraFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.application.trim()) p.set("application", f.application.trim());
  if (f.environment.trim()) p.set("environment", f.environment.trim());
  if (f.weeks !== defaultWeeks) p.set("weeks", String(f.weeks));
  return p;
}

/** The GraphQL filter: the last weeks up to now (the server widens it to whole ISO weeks). */
export function toDoraFilter(f: DoraFilters, now: number): DoraFilter {
  const filter: DoraFilter = { from: new Date(now - f.weeks * 7 * 86_400_000).toISOString(), to: new Date(now).toISOString() };
  if (f.application) filter.application = f.application;
  if (f.environment) filter.environment = f.environment;
  return filter;
}

/** "2026-W48", the ISO week as people write it. */
export function weekLabel(w: { year: number; week: number }): string {
  return `${w.year}-W${String(w.week).padStart(2, "0")}`;
}

const bandNames: Record<DoraBand, string> = { ELITE: "Elite", HIGH: "High", MEDIUM: "Medium", LOW: "Low" };

export function bandName(b: DoraBand): string {
  return bandNames[b];
}
