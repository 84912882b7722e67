import type { StepKind, StepState } from "../../gql/graphql";

export interface PlannedStepLike {
  name: string;
  type: string;
  maxRetries: number;
}

export interface StepLike {
  name: string;
  kind: StepKind;
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
  /** The most attempts the plan allows its step (retries + 1), for a run of a planned step. */
  maxAttempts: number | null;
}

/**
 * The operations as the server lists them (its order is the status's:
 * checkpoints before their steps, the planned steps not begun as PENDING),
 * each run with the attempts its planned step allows.
 */
export function timelineRows(plan: PlannedStepLike[], steps: StepLike[]): TimelineRow[] {
  return steps.map((s) => {
    const planned = s.kind === "RUN" || s.kind === "DRY_RUN" ? plan[s.position] : undefined;
    return { ...s, maxAttempts: planned ? planned.maxRetries + 1 : null };
  });
}

/** The duration of a step: the server's figure once finished, counted live while it runs. */
export function stepDuration(row: StepLike, now: number): number | null {
  if (row.finishedAt || row.state !== "RUNNING") return row.durationMs;
  if (!row.startedAt) return row.durationMs;
  const started = Date.parse(row.startedAt);
  return Number.isNaN(started) ? row.durationMs : Math.max(0, now - started);
}
