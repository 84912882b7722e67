import type { AuditFilter } from "../../gql/graphql";

export const auditRanges = {
  "1h": { label: "Last hour", ms: 3_600_000 },
  "24h": { label: "Last 24 hours", ms: 86_400_000 },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000 },
  "30d": { label: "Last 30 days", ms: 30 * 86_400_000 },
} as const;

export type AuditRange = keyof typeof auditRanges;

/**
 * The filters of the audit page, as the URL holds them so that a view can be
 * shared: ?tenant=&application=&environment=&actor=&action=&since=24h.
 */
export interface AuditFilters {
  tenant: string;
  application: string;
  environment: string;
  actor: string;
  /** An action, or a prefix of actions ending in * (deployment.rollout.*). */
  action: string;
  since: AuditRange | "";
}

export const auditTextKeys = ["tenant", "application", "environment", "actor", "action"] as const;

export const emptyAuditFilters: AuditFilters = { tenant: "", application: "", environment: "", actor: "", action: "", since: "" };

function isRange(v: string | null): v is AuditRange {
  return v !== null && Object.hasOwn(auditRanges, v);
}

export function parseAuditFilters(params: URLSearchParams): AuditFilters {
  const since = params.get("since");
  const f: AuditFilters = { ...emptyAuditFilters, since: isRange(since) ? since : "" };
  for (const k of auditTextKeys) f[k] = params.get(k)?.trim() ?? "";
  return f;
}

/** The URL query of a set of filters: empty values are left out, the order is fixed. */
export function writeAuditFilters(f: AuditFilters): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of auditTextKeys) if (f[k].trim()) p.set(k, f[k].trim());
  if (f.since) p.set("since", f.since);
  return p;
}

/** The GraphQL filter of a set of filters; a relative range is taken from now. */
export function toAuditFilter(f: AuditFilters, now: number): AuditFilter {
  const filter: AuditFilter = {};
  for (const k of auditTextKeys) if (f[k]) filter[k] = f[k];
  if (f.since) filter.since = new Date(now - auditRanges[f.since].ms).toISOString();
  return filter;
}

/** The short result an entry records, when it records one: its state, outcome or decision. */
export function auditOutcome(details: unknown): string {
  if (typeof details !== "object" || details === null) return "";
  const d = details as Record<string, unknown>;
  for (const k of ["state", "outcome", "decision"]) {
    const v = d[k];
    if (typeof v === "string") return v;
  }
  return "";
}
