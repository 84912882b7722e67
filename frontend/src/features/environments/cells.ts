import type { InventoryCellFragment } from "../../gql/graphql";
import type { Matrix, Placed } from "./matrix";

/** At most this many calendars in one request (the server's limit): a larger matrix asks in several. */
export const maxCalendars = 500;

/** Every cell of the matrix, row by row: the environments whose freeze calendars it shows. */
export function matrixCells<T extends Placed>(matrix: Matrix<T>): Placed[] {
  const out: Placed[] = [];
  for (const { tenant, applications } of matrix.tenants) {
    for (const application of applications) {
      for (const environment of matrix.environments) out.push({ tenant, application, environment });
    }
  }
  return out;
}

/** items cut in order into batches of at most size. */
export function batches<T>(items: readonly T[], size = maxCalendars): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Whether an environment's last deploy failed: a failure after the release
 * in service (or with none in service). A failure before it is history: the
 * application has recovered there since.
 */
export function isFailing(entry: InventoryCellFragment | undefined): boolean {
  const failure = entry?.lastFailure;
  if (!failure) return false;
  if (!entry.deployedAt) return true;
  return Date.parse(failure.finishedAt) > Date.parse(entry.deployedAt);
}
