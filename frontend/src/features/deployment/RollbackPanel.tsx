import type { RollbackState } from "../../gql/graphql";
import { StateBadge } from "../../shared/StateBadge";
import { policySummary, rollbackSummary, type RollbackPolicyLike } from "./rollback";
import { StepsTimeline } from "./StepsTimeline";
import type { StepLike } from "./timeline";
import styles from "./RollbackPanel.module.css";

export interface RollbackPanelProps {
  rollback: { state: RollbackState; steps: StepLike[] };
  policy: RollbackPolicyLike;
}

/**
 * The automatic rollback of a deploy: its outcome, what it means for the
 * targets, and each compensation with its state, times and error, in the
 * order they ran.
 */
export function RollbackPanel({ rollback, policy }: RollbackPanelProps) {
  return (
    <section className="m-card" aria-labelledby="rollback-title" data-rollback={rollback.state}>
      <div className={styles.head}>
        <h2 id="rollback-title" className={styles.title}>
          Rollback
        </h2>
        <StateBadge state={rollback.state} kind="rollback" size="small" />
      </div>
      <div className={styles.body}>
        <p>{rollbackSummary(rollback.state, rollback.steps.length)}</p>
        <p className="m-muted">Policy: {policySummary(policy)}.</p>
      </div>
      {rollback.steps.length > 0 && <StepsTimeline plan={[]} steps={rollback.steps} label="Compensations" />}
    </section>
  );
}
