import type { StepKind, StepState } from "../gql/graphql";

export interface PlannedLike {
  name: string;
  /** Retries the plan allows the step; absent where a view does not read it. */
  maxRetries?: number;
}

export interface OperationLike {
  name: string;
  state: StepState;
  /** RUN or DRY_RUN are the step's own work; checkpoints and compensations are not its progress. */
  kind?: StepKind;
  /** The index of its step in the plan. */
  position?: number;
  attempts?: number;
}

/** A planned step as a progress bar draws it: the state of its runs taken together. */
export interface PlannedProgress {
  name: string;
  state: StepState;
  attempts: number;
  /** Retries + 1; null where the plan's retries are not known. */
  maxAttempts: number | null;
}

const ownWork = (kind: StepKind | undefined) => kind === undefined || kind === "RUN" || kind === "DRY_RUN";

/**
 * The state of a planned step from its runs (one, or one per batch and
 * target of a rollout): a failure or a run in progress shows first; a step
 * is done when all its runs are; part done, part not begun is a rollout
 * under way.
 */
function combine(states: StepState[]): StepState {
  if (states.length === 0) return "PENDING";
  for (const s of ["ERROR", "RUNNING", "CANCELLED"] as const) if (states.includes(s)) return s;
  if (states.every((s) => s === states[0])) return states[0]!;
  if (states.includes("SUCCESS") && states.includes("PENDING")) return "RUNNING";
  return states.includes("SUCCESS") ? "SUCCESS" : "PENDING";
}

/** Each planned step with the state and attempts of its runs, in plan order. */
export function planProgress(plan: PlannedLike[], ops: OperationLike[]): PlannedProgress[] {
  return plan.map((p, i) => {
    const runs = ops.filter((o) => ownWork(o.kind) && (o.position !== undefined ? o.position === i : o.name === p.name));
    return {
      name: p.name,
      state: combine(runs.map((r) => r.state)),
      attempts: Math.max(0, ...runs.map((r) => r.attempts ?? 0)),
      maxAttempts: p.maxRetries === undefined ? null : p.maxRetries + 1,
    };
  });
}

/** "3 of 8 steps succeeded, 1 failed, 4 skipped": skipped steps are not counted as done. */
export function progressLabel(steps: PlannedProgress[]): string {
  const count = (s: StepState) => steps.filter((p) => p.state === s).length;
  const parts = [`${count("SUCCESS")} of ${steps.length} steps succeeded`];
  const running = steps.find((p) => p.state === "RUNNING");
  if (running) parts.push(`${running.name} running`);
  for (const [state, word] of [
    ["ERROR", "failed"],
    ["SKIPPED", "skipped"],
    ["CANCELLED", "cancelled"],
  ] as const) {
    const n = count(state);
    if (n > 0) parts.push(`${n} ${word}`);
  }
  return parts.join(", ");
}

/**
 * "attempt 3 of 8" for the step being retried (or the one that failed after
 * retries): null while a step runs its first attempt, so that nothing is
 * said when nothing is wrong.
 */
export function attemptNote(steps: PlannedProgress[]): string | null {
  const step = steps.find((p) => p.state === "RUNNING") ?? steps.find((p) => p.state === "ERROR");
  if (!step || step.attempts < 2) return null;
  return step.maxAttempts ? `attempt ${step.attempts} of ${step.maxAttempts}` : `attempt ${step.attempts}`;
}
