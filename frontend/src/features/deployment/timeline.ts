import type { StepState } from "../../gql/graphql";

export interface PlannedStepLike {
  name: string;
  type: string;
  maxRetries: number;
}

export interface StepLike {
  name: string;
  position: number;
  type: string;
  state: StepState;
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  output: { key: string; value: string }[];
  error: string | null;
}

export interface TimelineRow extends StepLike {
  /** The most attempts the plan allows (retries + 1), when the step is planned. */
  maxAttempts: number | null;
  /** Recorded by the worker (false: planned, not reached yet). */
  recorded: boolean;
}

/**
 * The plan's steps in order, each with what the worker recorded of it, then
 * the recorded steps the plan does not name (checkpoints, compensations),
 * in the order they ran. The same merge as the status JSON of the CLI.
 */
export function timelineRows(plan: PlannedStepLike[], steps: StepLike[]): TimelineRow[] {
  const recorded = new Map(steps.map((s) => [s.name, s]));
  const planned = new Set(plan.map((p) => p.name));
  const rows: TimelineRow[] = plan.map((p, i) => {
    const s = recorded.get(p.name);
    const maxAttempts = p.maxRetries + 1;
    if (s) return { ...s, maxAttempts, recorded: true };
    return {
      name: p.name,
      position: i,
      type: p.type,
      state: "PENDING",
      attempts: 0,
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      output: [],
      error: null,
      maxAttempts,
      recorded: false,
    };
  });
  const extra = steps.filter((s) => !planned.has(s.name)).sort((a, b) => a.position - b.position);
  for (const s of extra) rows.push({ ...s, maxAttempts: null, recorded: true });
  return rows;
}

/** The duration of a step: the server's figure once finished, counted live while it runs. */
export function stepDuration(row: StepLike, now: number): number | null {
  if (row.finishedAt || row.state !== "RUNNING") return row.durationMs;
  if (!row.startedAt) return row.durationMs;
  const started = Date.parse(row.startedAt);
  return Number.isNaN(started) ? row.durationMs : Math.max(0, now - started);
}
