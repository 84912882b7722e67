import type { DeploymentState, RollbackState, StepState } from "../gql/graphql";
import { deploymentStateInfo, rollbackStateInfo, stepStateInfo } from "./states";

export type StateBadgeProps =
  | { state: DeploymentState; kind?: "deployment"; size?: BadgeSize }
  /** Steps have their own vocabulary (RUNNING, SKIPPED, ...). */
  | { state: StepState; kind: "step"; size?: BadgeSize }
  /** The outcome of an automatic rollback (COMPLETED, DISABLED, ...). */
  | { state: RollbackState; kind: "rollback"; size?: BadgeSize };

type BadgeSize = "small" | "normal" | "large";

function infoOf(p: StateBadgeProps) {
  switch (p.kind) {
    case "step":
      return stepStateInfo(p.state);
    case "rollback":
      return rollbackStateInfo(p.state);
    default:
      return deploymentStateInfo(p.state);
  }
}

/**
 * The one way a state is drawn: a coloured dot (pulsing while running) and
 * a word, never colour alone, so it reads in high contrast and for screen
 * readers. The raw state name stays available as data and in the tooltip,
 * as the CLI prints it.
 */
export function StateBadge(props: StateBadgeProps) {
  const { state, size = "normal" } = props;
  const info = infoOf(props);
  const live = info.tone === "running";
  return (
    <span
      className="m-badge"
      data-tone={info.tone}
      data-size={size}
      data-state={state}
      data-live={live || undefined}
      title={`${state}: ${info.description}`}
    >
      <span className="m-badge-dot" aria-hidden="true" />
      {info.label}
    </span>
  );
}
