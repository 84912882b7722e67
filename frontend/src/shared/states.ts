import type { DeploymentState, RollbackState, StepState } from "../gql/graphql";

/** The colour family a state is drawn in; the wall and the badges share it. */
export type Tone = "running" | "waiting" | "success" | "danger" | "neutral";

interface StateInfo {
  label: string;
  tone: Tone;
  /** What the state means, for a tooltip and screen readers. */
  description: string;
  final: boolean;
}

const deploymentStates: Record<DeploymentState, StateInfo> = {
  SCHEDULED: { label: "Scheduled", tone: "waiting", description: "waiting for the next tick of its schedule", final: false },
  DELAYED: { label: "Delayed", tone: "waiting", description: "waiting for its start time", final: false },
  WAITING_DEPENDENCY: { label: "Waiting for dependency", tone: "waiting", description: "waiting for the deploys it runs after", final: false },
  AWAITING_APPROVAL: { label: "Awaiting approval", tone: "waiting", description: "waiting for approvals", final: false },
  ENQUEUED: { label: "Enqueued", tone: "waiting", description: "waiting for a free slot in its environment", final: false },
  PENDING: { label: "Running", tone: "running", description: "running on a worker (PENDING)", final: false },
  SUCCESS: { label: "Success", tone: "success", description: "every step succeeded", final: true },
  ERROR: { label: "Error", tone: "danger", description: "a step failed", final: true },
  CANCELLED: { label: "Cancelled", tone: "neutral", description: "cancelled before or during the run", final: true },
  REJECTED: { label: "Rejected", tone: "danger", description: "the approval was refused: nothing ran", final: true },
  EXPIRED: { label: "Expired", tone: "danger", description: "the approval was not given in time: nothing ran", final: true },
  DEPENDENCY_FAILED: { label: "Dependency failed", tone: "danger", description: "a deploy it runs after did not succeed: nothing ran", final: true },
  MAX_RECOVERY_ATTEMPTS_EXCEEDED: {
    label: "Recovery exhausted",
    tone: "danger",
    description: "resumed too many times after crashes (MAX_RECOVERY_ATTEMPTS_EXCEEDED)",
    final: true,
  },
};

const stepStates: Record<StepState, StateInfo> = {
  PENDING: { label: "Not started", tone: "neutral", description: "not started yet", final: false },
  RUNNING: { label: "Running", tone: "running", description: "running now", final: false },
  SUCCESS: { label: "Success", tone: "success", description: "succeeded", final: true },
  ERROR: { label: "Error", tone: "danger", description: "failed", final: true },
  SKIPPED: { label: "Skipped", tone: "neutral", description: "skipped", final: true },
  CANCELLED: { label: "Cancelled", tone: "neutral", description: "cancelled", final: true },
};

/** The outcome of a deploy's automatic rollback: its labels stand alone (a matrix cell, a badge beside a deploy's ERROR). */
const rollbackStates: Record<RollbackState, StateInfo> = {
  RUNNING: { label: "Rolling back", tone: "running", description: "the compensations are running", final: false },
  COMPLETED: { label: "Rollback completed", tone: "success", description: "every compensation succeeded: the targets are back at their checkpoints", final: true },
  FAILED: { label: "Rollback failed", tone: "danger", description: "a compensation failed and the rollback stopped there", final: true },
  NOT_NEEDED: { label: "No rollback needed", tone: "neutral", description: "the deploy succeeded, was cancelled, or failed in a step its policy does not roll back for", final: true },
  DISABLED: { label: "Rollback disabled", tone: "neutral", description: "the deploy failed and its rollback policy is off", final: true },
};

export const allDeploymentStates = Object.keys(deploymentStates) as DeploymentState[];

/** States that end a deploy badly: what the wall calls "failed". */
export const failedStates = allDeploymentStates.filter((s) => deploymentStates[s].final && deploymentStates[s].tone === "danger");

export function deploymentStateInfo(state: DeploymentState): StateInfo {
  return deploymentStates[state] ?? { label: state, tone: "neutral", description: state, final: false };
}

export function stepStateInfo(state: StepState): StateInfo {
  return stepStates[state] ?? { label: state, tone: "neutral", description: state, final: false };
}

export function rollbackStateInfo(state: RollbackState): StateInfo {
  return rollbackStates[state] ?? { label: state, tone: "neutral", description: state, final: false };
}

export function isFinal(state: DeploymentState): boolean {
  return deploymentStateInfo(state).final;
}

export function isFailed(state: DeploymentState): boolean {
  return failedStates.includes(state);
}

export function isRunning(state: DeploymentState): boolean {
  return state === "PENDING";
}

export function isWaiting(state: DeploymentState): boolean {
  return deploymentStateInfo(state).tone === "waiting";
}
