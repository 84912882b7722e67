import type { Figures, Metric, MetricKey } from "../dora/metrics";

/** The strip compares the last 28 days with the 28 before, as a rolling period. */
export const stripDays = 28;
const dayMs = 86_400_000;

/**
 * The strip's two periods: the last 28 days up to now, and the 28 before.
 * now is rounded up to the next minute, so that a refresh within a minute
 * asks the same thing and a deploy that ended a second ago counts.
 */
export function stripPeriods(now: number): { current: { from: string; to: string }; previous: { from: string; to: string } } {
  const to = Math.ceil(now / 60_000) * 60_000;
  const mid = to - stripDays * dayMs;
  const iso = (t: number) => new Date(t).toISOString();
  return { current: { from: iso(mid), to: iso(to) }, previous: { from: iso(mid - stripDays * dayMs), to: iso(mid) } };
}

/** Which way a metric is better: more deploys, shorter times, fewer failures and less rework. */
const higherIsBetter: Record<MetricKey, boolean> = {
  deploymentFrequency: true,
  leadTime: false,
  changeFailRate: false,
  recoveryTime: false,
  reworkRate: false,
};

export type Trend = "better" | "worse" | "same" | "none";

/**
 * How the last 28 days compare with the 28 before: none when either has no
 * figure (too few samples), same within one percent.
 */
export function trend(m: Metric, current: Figures, previous: Figures): Trend {
  const c = m.value(current);
  const p = m.value(previous);
  if (c == null || p == null) return "none";
  if (Math.abs(c - p) <= Math.max(Math.abs(p), Math.abs(c)) * 0.01) return "same";
  return c > p === higherIsBetter[m.key] ? "better" : "worse";
}

/** The arrow of a trend: up or down as the figure moved, whatever that means for the metric. */
export function trendArrow(m: Metric, current: Figures, previous: Figures): string {
  const c = m.value(current);
  const p = m.value(previous);
  if (c == null || p == null || trend(m, current, previous) === "same") return "";
  return c > p ? "▲" : "▼";
}

/** Parses the wall's ?dora= option: on with 1, true, on or yes. */
export function doraStripFromSearch(search: string): boolean {
  const v = new URLSearchParams(search).get("dora")?.trim().toLowerCase();
  return v === "1" || v === "true" || v === "on" || v === "yes";
}
