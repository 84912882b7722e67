import type { CombinedError } from "@urql/core";
import { useCallback, useEffect, useState } from "react";
import { useClient } from "urql";
import { batches } from "./cells";
import type { CellCalendar } from "./FreezeNote";
import { cellKey, type Placed } from "./matrix";
import { EnvironmentsFreezesQuery } from "./queries";

export interface MatrixFreezes {
  /** The calendar of every cell read, by cellKey. */
  calendars: Map<string, CellCalendar>;
  /** The first error of a batch that failed: its cells have no note. */
  error?: CombinedError;
  retry: () => void;
}

/**
 * The freeze calendars of the cells of the matrix, in as few requests as the
 * server allows (maxCalendars environments each), asked again only when the
 * cells change. A batch that fails is an error to show, never a matrix that
 * looks free of freezes.
 */
export function useMatrixFreezes(cells: readonly Placed[]): MatrixFreezes {
  const client = useClient();
  const cellsKey = JSON.stringify(cells);
  const [attempt, setAttempt] = useState(0);
  const [read, setRead] = useState<{ calendars: Map<string, CellCalendar>; error?: CombinedError }>(() => ({ calendars: new Map() }));

  useEffect(() => {
    const all = JSON.parse(cellsKey) as Placed[];
    if (all.length === 0) return;
    let live = true;
    const requestPolicy = attempt > 0 ? "network-only" : "cache-first";
    void Promise.all(batches(all).map((environments) => client.query(EnvironmentsFreezesQuery, { environments }, { requestPolicy }).toPromise())).then(
      (results) => {
        if (!live) return;
        const calendars = new Map<string, CellCalendar>();
        let error: CombinedError | undefined;
        for (const r of results) {
          error ??= r.error;
          for (const c of r.data?.freezeCalendars ?? []) if (c.calendar) calendars.set(cellKey(c.tenant, c.application, c.environment), c.calendar);
        }
        setRead({ calendars, error });
      },
    );
    return () => {
      live = false;
    };
  }, [client, cellsKey, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...read, retry };
}
