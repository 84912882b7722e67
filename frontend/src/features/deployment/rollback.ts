import type { DeploymentState, RollbackState } from "../../gql/graphql";
import { isFailed } from "../../shared/states";

export interface RollbackPolicyLike {
  enabled: boolean;
  on: string[];
}

/** The decided policy in words: "on failure of post-test, activation", or "off". */
export function policySummary(p: RollbackPolicyLike): string {
  if (!p.enabled) return "off";
  return p.on.length ? `on failure of ${p.on.join(", ")}` : "on";
}

/**
 * Whether the page shows the rollback panel: once the rollback is decided,
 * unless there is nothing to say (a deploy that succeeded or was cancelled
 * and needed none).
 */
export function showsRollback(state: DeploymentState, rollback: { state: RollbackState; steps: unknown[] } | null): boolean {
  if (!rollback) return false;
  return rollback.state !== "NOT_NEEDED" || rollback.steps.length > 0 || isFailed(state);
}

/** What the outcome means for the targets. */
export function rollbackSummary(state: RollbackState, compensations: number): string {
  switch (state) {
    case "RUNNING":
      return "A step failed: the steps already started are being undone, the latest first.";
    case "COMPLETED":
      return compensations > 0
        ? "Every compensation succeeded: the targets are back where the checkpoints found them."
        : "Nothing had changed on the targets: there was nothing to undo.";
    case "FAILED":
      return "A compensation failed and the rollback stopped there: the targets are not back at their checkpoints.";
    case "NOT_NEEDED":
      return "Nothing to undo: the step that failed is not one the policy rolls back for.";
    case "DISABLED":
      return "The rollback policy is off: the targets are as the failed step left them.";
  }
}
