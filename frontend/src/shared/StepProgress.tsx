import type { StepState } from "../gql/graphql";

export interface StepProgressProps {
  plan: { name: string }[];
  steps: { name: string; state: StepState }[];
  large?: boolean;
}

/** A segment per planned step, coloured by its state: where a deploy is at a glance. */
export function StepProgress({ plan, steps, large = false }: StepProgressProps) {
  const byName = new Map(steps.map((s) => [s.name, s.state]));
  const done = plan.filter((p) => byName.get(p.name) === "SUCCESS" || byName.get(p.name) === "SKIPPED").length;
  return (
    <span
      className="m-progress"
      data-large={large || undefined}
      role="img"
      aria-label={`${done} of ${plan.length} steps done`}
      title={plan.map((p) => `${p.name}: ${byName.get(p.name) ?? "PENDING"}`).join("\n")}
    >
      {plan.map((p) => (
        <span key={p.name} className="m-progress-seg" data-step-state={byName.get(p.name) ?? "PENDING"} />
      ))}
    </span>
  );
}
