import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { parseFilters, writeFilters, type Filters } from "./filters";

/**
 * The filters of the list, read from and written to the URL query. A change
 * of filters replaces the history entry (typing is not navigation) and
 * starts again from the first page.
 */
export function useUrlFilters(): { filters: Filters; after: string | null; setFilters(next: Filters): void } {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  const filters = useMemo(() => parseFilters(new URLSearchParams(key)), [key]);
  const after = params.get("after");
  const setFilters = useCallback((next: Filters) => setParams(writeFilters(next), { replace: true }), [setParams]);
  return { filters, after, setFilters };
}
