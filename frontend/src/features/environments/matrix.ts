/** The usual order of environments on a promotion path; others follow alphabetically. */
const usualOrder = ["local", "dev", "development", "int", "integration", "test", "testing", "qa", "uat", "stage", "staging", "preprod", "pre-prod", "prod", "production"];

export function compareEnvironments(a: string, b: string): number {
  const ia = usualOrder.indexOf(a.toLowerCase());
  const ib = usualOrder.indexOf(b.toLowerCase());
  if (ia >= 0 && ib >= 0) return ia - ib;
  if (ia >= 0) return -1;
  if (ib >= 0) return 1;
  return a.localeCompare(b);
}

export interface Placed {
  tenant: string;
  application: string;
  environment: string;
}

export interface Matrix<T extends Placed> {
  environments: string[];
  /** Rows grouped by tenant, applications sorted. */
  tenants: { tenant: string; applications: string[] }[];
  cell(tenant: string, application: string, environment: string): T | undefined;
}

export const cellKey = (tenant: string, application: string, environment: string) => `${tenant}\u0000${application}\u0000${environment}`;

/** Applications × environments from the entries that exist; a missing pair is an empty cell. */
export function buildMatrix<T extends Placed>(entries: T[], extra: Placed[] = []): Matrix<T> {
  const all = [...entries, ...extra];
  const environments = [...new Set(all.map((e) => e.environment))].sort(compareEnvironments);
  const byTenant = new Map<string, Set<string>>();
  for (const e of all) {
    if (!byTenant.has(e.tenant)) byTenant.set(e.tenant, new Set());
    byTenant.get(e.tenant)!.add(e.application);
  }
  const tenants = [...byTenant.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tenant, apps]) => ({ tenant, applications: [...apps].sort((a, b) => a.localeCompare(b)) }));
  const cells = new Map(entries.map((e) => [cellKey(e.tenant, e.application, e.environment), e]));
  return { environments, tenants, cell: (t, a, e) => cells.get(cellKey(t, a, e)) };
}
