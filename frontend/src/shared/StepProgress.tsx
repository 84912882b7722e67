import { planProgress, progressLabel, type OperationLike, type PlannedLike } from "./progress";
import { stepStateInfo } from "./states";

export interface StepProgressProps {
  plan: PlannedLike[];
  steps: OperationLike[];
  large?: boolean;
}

/**
 * A segment per planned step, coloured by its state (a skipped step is
 * hatched grey, never green): where a deploy is at a glance.
 */
export function StepProgress({ plan, steps, large = false }: StepProgressProps) {
  const progress = planProgress(plan, steps);
  return (
    <span
      className="m-progress"
      data-large={large || undefined}
      role="img"
      aria-label={progressLabel(progress)}
      title={progress.map((p) => `${p.name}: ${stepStateInfo(p.state).label}`).join("\n")}
    >
      {progress.map((p) => (
        <span key={p.name} className="m-progress-seg" data-step-state={p.state} data-tone={stepStateInfo(p.state).tone} />
      ))}
    </span>
  );
}
