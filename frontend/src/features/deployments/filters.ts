import type { DeploymentFilter, DeploymentState } from "../../gql/graphql";
import { allDeploymentStates } from "../../shared/states";

export const ranges = {
  "1h": { label: "Last hour", ms: 3_600_000 },
  "24h": { label: "Last 24 hours", ms: 86_400_000 },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000 },
  "30d": { label: "Last 30 days", ms: 30 * 86_400_000 },
} as const;

export type RangeKey = keyof typeof ranges;

/**
 * The filters of the deploy list, as the URL holds them so that a view can
 * be shared: ?tenant=&application=&environment=&state=ERROR&state=CANCELLED
 * &requester=&since=24h (or from=ISO&to=ISO) and the page cursor after=.
 */
export interface Filters {
  tenant: string;
  application: string;
  environment: string;
  states: DeploymentState[];
  requester: string;
  since: RangeKey | "";
  /** ISO 8601 instants of a custom range. */
  from: string;
  to: string;
}

export const textKeys = ["tenant", "application", "environment", "requester"] as const;
export type TextKey = (typeof textKeys)[number];

export const emptyFilters: Filters = { tenant: "", application: "", environment: "", states: [], requester: "", since: "", from: "", to: "" };

function isRange(v: string | null): v is RangeKey {
  return v !== null && Object.hasOwn(ranges, v);
}

function isoOrEmpty(v: string | null): string {
  if (!v) return "";
  const t = Date.parse(v);
  return Number.isNaN(t) ? "" : new Date(t).toISOString();
}

export function parseFilters(params: URLSearchParams): Filters {
  const states = params
    .getAll("state")
    .flatMap((s) => s.split(","))
    .map((s) => s.trim().toUpperCase())
    .filter((s): s is DeploymentState => (allDeploymentStates as string[]).includes(s));
  const since = params.get("since");
  return {
    tenant: params.get("tenant")?.trim() ?? "",
    application: params.get("application")?.trim() ?? "",
    environment: params.get("environment")?.trim() ?? "",
    states: [...new Set(states)],
    requester: params.get("requester")?.trim() ?? "",
    since: isRange(since) ? since : "",
    from: isoOrEmpty(params.get("from")),
    to: isoOrEmpty(params.get("to")),
  };
}

/** The URL query of a set of filters: empty values are left out, the order is fixed. */
export function writeFilters(f: Filters): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of textKeys) if (f[k].trim()) p.set(k, f[k].trim());
  for (const s of f.states) p.append("state", s);
  if (f.since) p.set("since", f.since);
  else {
    if (f.from) p.set("from", f.from);
    if (f.to) p.set("to", f.to);
  }
  return p;
}

export function hasFilters(f: Filters): boolean {
  return writeFilters(f).toString() !== "";
}

/** The GraphQL filter of a set of filters; a relative range is taken from now. */
export function toDeploymentFilter(f: Filters, now: number): DeploymentFilter {
  const filter: DeploymentFilter = {};
  for (const k of textKeys) if (f[k]) filter[k] = f[k];
  if (f.states.length) filter.states = f.states;
  if (f.since) filter.createdAfter = new Date(now - ranges[f.since].ms).toISOString();
  else {
    if (f.from) filter.createdAfter = f.from;
    if (f.to) filter.createdBefore = f.to;
  }
  return filter;
}

/** The value of a datetime-local input for an ISO instant, in the browser's time zone. */
export function toLocalInput(iso: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): string {
  if (!value) return "";
  const t = new Date(value).getTime();
  return Number.isNaN(t) ? "" : new Date(t).toISOString();
}
