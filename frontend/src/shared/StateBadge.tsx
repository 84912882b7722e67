import type { DeploymentState, StepState } from "../gql/graphql";
import { deploymentStateInfo, stepStateInfo } from "./states";

export interface StateBadgeProps {
  state: DeploymentState | StepState;
  /** Steps have their own vocabulary (RUNNING, SKIPPED, ...). */
  kind?: "deployment" | "step";
  size?: "small" | "normal" | "large";
}

/**
 * The one way a state is drawn: a coloured dot (pulsing while running) and
 * a word, never colour alone, so it reads in high contrast and for screen
 * readers. The raw state name stays available as data and in the tooltip,
 * as the CLI prints it.
 */
export function StateBadge({ state, kind = "deployment", size = "normal" }: StateBadgeProps) {
  const info = kind === "step" ? stepStateInfo(state as StepState) : deploymentStateInfo(state as DeploymentState);
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
