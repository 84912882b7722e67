import type { StepKind } from "../../gql/graphql";
import { StateBadge } from "../../shared/StateBadge";
import { formatDuration } from "../../shared/format";
import { formatAbsolute, formatClock, useNow } from "../../shared/time";
import { stepDuration, timelineRows, type PlannedStepLike, type StepLike } from "./timeline";
import styles from "./StepsTimeline.module.css";
import { FailureText } from "../../shared/FailureText";

export interface StepsTimelineProps {
  plan: PlannedStepLike[];
  steps: StepLike[];
  /** The step the worker is on, as the deploy reports it. */
  currentStep?: string | null | undefined;
  /** The list's accessible name. */
  label?: string;
  /** What to say when there is nothing to list. */
  empty?: string;
}

/** Why a checkpoint is there, for its tooltip. */
const kindNotes: Partial<Record<StepKind, string>> = {
  CHECKPOINT: "Records what the automatic rollback would go back to; changes nothing on the targets",
  ROLLBACK: "Compensation run by the automatic rollback",
};

/**
 * The operations of a deploy in order: state, duration, attempts, start
 * time, a bar placing the operation in the deploy's run, its outputs and its
 * error. Checkpoints show between the steps they precede.
 */
export function StepsTimeline({ plan, steps, currentStep, label = "Steps", empty = "No steps planned." }: StepsTimelineProps) {
  const now = useNow();
  const rows = timelineRows(plan, steps);
  if (rows.length === 0) return <p className="m-muted">{empty}</p>;

  const starts = rows.map((r) => (r.startedAt ? Date.parse(r.startedAt) : NaN)).filter((t) => !Number.isNaN(t));
  const origin = starts.length ? Math.min(...starts) : null;
  const ends = rows.map((r) => (r.startedAt ? Date.parse(r.startedAt) + (stepDuration(r, now) ?? 0) : NaN)).filter((t) => !Number.isNaN(t));
  const span = origin !== null && ends.length ? Math.max(1, Math.max(...ends) - origin) : null;

  return (
    <ol className={styles.timeline} aria-label={label}>
      {rows.map((row) => {
        const duration = stepDuration(row, now);
        const start = row.startedAt ? Date.parse(row.startedAt) : NaN;
        const bar =
          span !== null && origin !== null && !Number.isNaN(start)
            ? { left: ((start - origin) / span) * 100, width: Math.max(0.6, ((duration ?? 0) / span) * 100) }
            : null;
        const current = row.name === currentStep && row.state === "RUNNING";
        return (
          <li key={row.name} className={styles.step} data-state={row.state} data-kind={row.kind} aria-current={current ? "step" : undefined}>
            <div className={styles.head}>
              <StateBadge state={row.state} kind="step" size="small" />
              <span className={styles.name} title={kindNotes[row.kind]}>
                {row.name}
              </span>
              {row.type !== row.name && row.type !== "standard" && <span className={`${styles.type} m-muted`}>{row.type}</span>}
              <span className={styles.meta}>
                {row.attempts > 1 && (
                  <span className={styles.attempts} title="Attempts used of those the plan allows">
                    {row.maxAttempts ? `attempt ${row.attempts} of ${row.maxAttempts}` : `${row.attempts} attempts`}
                  </span>
                )}
                {row.startedAt && (
                  <time dateTime={row.startedAt} title={formatAbsolute(row.startedAt)} className="m-muted">
                    {formatClock(row.startedAt)}
                  </time>
                )}
                <span className={styles.duration} aria-label="Duration">
                  {row.startedAt ? formatDuration(duration) : "—"}
                </span>
              </span>
            </div>
            {bar && (
              <div className={styles.track} aria-hidden="true">
                <div className={styles.bar} data-tone-state={row.state} style={{ left: `${bar.left}%`, width: `${Math.min(bar.width, 100 - bar.left)}%` }} />
              </div>
            )}
            {row.output.length > 0 && (
              <dl className={styles.outputs} aria-label={`Outputs of ${row.name}`}>
                {row.output.map((o) => (
                  <div key={o.key} className={styles.output}>
                    <dt>{o.key}</dt>
                    <dd className="m-mono">{o.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {row.error && (
              <div className={styles.error}>
                <FailureText error={row.error} label="Error:" />
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
