import { memo, useMemo, type ReactNode } from "react";
import type { RolloutViewFragment } from "../../gql/graphql";
import { formatDuration } from "../../shared/format";
import { formatCountdown, formatGateValue, gateResultInfo, outcomeInfo, rolloutLine, rolloutStateInfo, targetStateInfo, timeLeft, waveStateInfo, type RolloutInfo } from "../../shared/rollout";
import { formatAbsolute, formatClock, useNow } from "../../shared/time";
import { cellLabel, groupRollout, rolloutTimes, waveWorkingMs, type BatchCells, type RolloutTarget, type WaveCells } from "./rollout";
import styles from "./RolloutPanel.module.css";

export interface RolloutPanelProps {
  rollout: RolloutViewFragment;
  /** The pause, resume, abort and approve actions the viewer may take. */
  actions?: ReactNode;
}

/**
 * Re-renders its children every second, alone: the countdowns and clocks of
 * the panel tick without drawing the grid's cells again (a fleet of 5,000
 * targets is 5,000 cells).
 */
function Ticking({ children }: { children: (now: number) => ReactNode }) {
  const now = useNow();
  return <>{children(now)}</>;
}

function Sign({ info, kind }: { info: RolloutInfo; kind: string }) {
  return (
    <span className={styles.sign} data-tone={info.tone} data-kind={kind}>
      <span aria-hidden="true">{info.glyph}</span> {info.label}
    </span>
  );
}

/**
 * One target: a small element, its state by colour and by glyph, its
 * outcome by its frame (dashed when deferred), read aloud as
 * "eu-1: targeted, Success". The tooltip adds its labels.
 */
function Cell({ t }: { t: RolloutTarget }) {
  const label = cellLabel(t);
  const glyph = t.outcome === "TARGETED" ? targetStateInfo(t.state).glyph : outcomeInfo(t.outcome).glyph;
  const labels = t.labels.length ? `\n${t.labels.map((l) => `${l.key}=${l.value}`).join(", ")}` : "";
  return (
    <span role="img" className={styles.cell} data-state={t.state} data-outcome={t.outcome} aria-label={label} title={label + labels}>
      {glyph}
    </span>
  );
}

/** A batch of cells; memoized, as the cells change only with the rollout. */
const Batch = memo(function Batch({ wave, b }: { wave: string; b: BatchCells }) {
  const info = targetStateInfo(b.batch.state);
  return (
    <div role="group" className={styles.batch} data-state={b.batch.state} aria-label={`Batch ${b.batch.index} of wave ${wave}: ${info.label}, ${b.cells.length} target${b.cells.length === 1 ? "" : "s"}`}>
      <span className={styles.batchIndex} aria-hidden="true">
        b{b.batch.index}
      </span>
      {b.cells.map((t) => (
        <Cell key={t.name} t={t} />
      ))}
    </div>
  );
});

/** The bake: a countdown from the server's until while it runs, its length otherwise. */
function Bake({ w }: { w: WaveCells }) {
  const bake = w.wave.bake;
  if (!bake) return null;
  if (w.wave.state === "BAKING" && bake.until) {
    const until = bake.until;
    return (
      <Ticking>
        {(now) => (
          <span className={styles.countdown} data-bake-until={until} title={`The bake ends at ${formatAbsolute(until)}`}>
            baking {formatCountdown(timeLeft(until, now) ?? 0)}
          </span>
        )}
      </Ticking>
    );
  }
  return bake.seconds > 0 ? <span className="m-muted">bake {formatDuration(bake.seconds * 1000)}</span> : null;
}

function Deferred({ until }: { until: string }) {
  return (
    <Ticking>
      {(now) => (
        <span className={styles.countdown} data-deferred-until={until} title={formatAbsolute(until)}>
          deferred until {formatClock(until)} ({formatCountdown(timeLeft(until, now) ?? 0)})
        </span>
      )}
    </Ticking>
  );
}

function Gate({ w }: { w: WaveCells }) {
  const gate = w.wave.gate;
  if (!gate) return null;
  return (
    <div className={styles.gate}>
      <span className={styles.gateHead}>
        Gates <Sign info={gateResultInfo(gate.state)} kind="gate" />
      </span>
      <ul className={styles.checks} aria-label={`Gates of wave ${w.wave.name}`}>
        {gate.checks.map((c, i) => (
          <li key={`${c.name}-${i}`} className={styles.check} data-state={c.state}>
            <Sign info={gateResultInfo(c.state)} kind="check" />
            <span className={styles.checkName}>{c.name}</span>
            {c.value != null && (
              <span className={`${styles.value} m-mono`} title={String(c.value)}>
                {formatGateValue(c.value)}
              </span>
            )}
            {c.detail && <span className={styles.detail}>{c.detail}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Approval({ w }: { w: WaveCells }) {
  const a = w.wave.approval;
  if (!a) return null;
  const approved = a.approvals.filter((x) => x.approved).length;
  const who = [...a.groups.map((g) => `group ${g}`), ...a.roles.map((r) => `role ${r}`)];
  return (
    <p className={styles.approval} data-approval-status={a.status}>
      Approval before the wave: {a.status}, {approved} of {a.required}
      {who.length > 0 && <> · from {who.join(" or ")}</>}
      {a.status === "waiting" && a.expiresAt && <> · expires {formatClock(a.expiresAt)}</>}
    </p>
  );
}

/**
 * The time a wave's batches ran: "working" while it runs them, "worked"
 * after. It ticks either way, as a batch without an end (a pause, a deploy
 * stopped in it) goes on counting against the clock.
 */
function Worked({ wave }: { wave: WaveCells["wave"] }) {
  const verb = wave.state === "RUNNING" ? "working" : "worked";
  return <Ticking>{(now) => <span className={styles.working}>{`${verb} ${formatDuration(waveWorkingMs(wave, now))}`}</span>}</Ticking>;
}

function Wave({ w, total }: { w: WaveCells; total: number }) {
  const state = waveStateInfo(w.wave.state);
  const started = w.wave.batches.some((b) => b.startedAt);
  const targets = w.batches.reduce((n, b) => n + b.cells.length, 0);
  return (
    <li className={styles.wave} data-state={w.wave.state} data-current={w.current || undefined} aria-current={w.current ? "step" : undefined} aria-label={`Wave ${w.index} of ${total}: ${w.wave.name}, ${state.label}`}>
      <div className={styles.waveHead}>
        <span className={styles.waveIndex} aria-hidden="true">
          {w.index}
        </span>
        <span className={styles.waveName}>{w.wave.name}</span>
        <Sign info={state} kind="wave" />
        <span className={styles.count}>
          {w.done}/{targets} targets
        </span>
        <span className={styles.waveMeta}>
          {w.wave.state === "DEFERRED" && w.wave.deferredUntil && <Deferred until={w.wave.deferredUntil} />}
          <Bake w={w} />
          {started && <Worked wave={w.wave} />}
        </span>
      </div>
      <Approval w={w} />
      {w.batches.length === 0 ? (
        <p className="m-muted">No target: the rollout passes this wave by.</p>
      ) : (
        <div className={styles.batches}>
          {w.batches.map((b) => (
            <Batch key={b.batch.index} wave={w.wave.name} b={b} />
          ))}
        </div>
      )}
      <Gate w={w} />
      {w.failed.length > 0 && (
        <ul className={styles.errors} aria-label={`Failed targets of wave ${w.wave.name}`}>
          {w.failed.map((t) => (
            <li key={t.name}>
              <strong>{t.name}</strong>: {t.error ?? "failed"}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * Why the rollout is paused, and the time left before the pause times out
 * into an abort: a countdown from the server's until, as the bake's.
 */
function Pause({ pause }: { pause: NonNullable<RolloutViewFragment["pause"]> }) {
  const until = pause.until;
  return (
    <div className={styles.pause} role="status">
      <strong>Paused</strong> since {formatClock(pause.since)}: {pause.reason}
      {pause.by && <> (by <span className="m-mono">{pause.by}</span>)</>}. It aborts in{" "}
      <Ticking>
        {(now) => (
          <span className={styles.countdown} data-pause-until={until}>
            {formatCountdown(timeLeft(until, now) ?? 0)}
          </span>
        )}
      </Ticking>{" "}
      (at <time dateTime={until}>{formatAbsolute(until)}</time>) unless resumed.
      {pause.mayResume.length > 0 && (
        <>
          {" "}
          May resume or abort: <span className="m-mono">{pause.mayResume.join(", ")}</span>.
        </>
      )}
    </div>
  );
}

function Times({ rollout }: { rollout: RolloutViewFragment }) {
  return (
    <Ticking>
      {(now) => {
        const t = rolloutTimes(rollout, now);
        if (!t) return null;
        return (
          <p className={styles.times}>
            <span title="Time the batches ran on their targets">working {formatDuration(t.workingMs)}</span> ·{" "}
            <span title="Time between batches: bakes, gates, approvals, deferrals and pauses">waiting {formatDuration(t.waitingMs)}</span>
          </p>
        );
      }}
    </Ticking>
  );
}

const legend: Array<[string, string]> = [
  ["✓", "success"],
  ["●", "running"],
  ["○", "not started"],
  ["✗", "error"],
  ["↺", "rolled back"],
  ["–", "skipped"],
  ["◷", "deferred"],
  ["⊖", "excluded"],
  ["⊗", "rejected"],
];

/**
 * A deploy's rollout, live: the waves in order (the current one
 * highlighted), each batch a row of target cells, the bake counting down
 * from the server's end time, the gates and their values, the targets left
 * out, why a paused rollout waits and who may resume it, and how long the
 * rollout worked and waited.
 */
export function RolloutPanel({ rollout, actions }: RolloutPanelProps) {
  const groups = useMemo(() => groupRollout(rollout), [rollout]);
  const state = rolloutStateInfo(rollout.state);
  const excluded = groups.leftOut.filter((t) => t.outcome === "EXCLUDED");
  const rejected = groups.leftOut.filter((t) => t.outcome === "REJECTED");
  return (
    <section className="m-card" aria-labelledby="rollout-title" data-rollout-state={rollout.state}>
      <div className={styles.head}>
        <h2 id="rollout-title" className={styles.title}>
          Rollout
        </h2>
        <Sign info={state} kind="rollout" />
        <Ticking>{(now) => <span className={styles.line}>{rolloutLine(rollout, now)}</span>}</Ticking>
        {actions}
      </div>
      <div className={styles.body}>
        {rollout.pause && <Pause pause={rollout.pause} />}
        <Times rollout={rollout} />
        <ol className={styles.waves} aria-label="Waves">
          {groups.waves.map((w) => (
            <Wave key={w.wave.name} w={w} total={groups.waves.length} />
          ))}
        </ol>
        {groups.leftOut.length > 0 && (
          <div className={styles.leftOut}>
            {excluded.length > 0 && (
              <div role="group" className={styles.batch} aria-label={`Excluded: ${excluded.length} target${excluded.length === 1 ? "" : "s"}, never touched`}>
                <span className={styles.leftOutTitle}>Excluded ({excluded.length})</span>
                {excluded.map((t) => (
                  <Cell key={t.name} t={t} />
                ))}
              </div>
            )}
            {rejected.length > 0 && (
              <div role="group" className={styles.batch} aria-label={`Rejected: ${rejected.length} target${rejected.length === 1 ? "" : "s"}`}>
                <span className={styles.leftOutTitle}>Rejected ({rejected.length})</span>
                {rejected.map((t) => (
                  <Cell key={t.name} t={t} />
                ))}
              </div>
            )}
          </div>
        )}
        <p className={styles.legend} aria-hidden="true">
          {legend.map(([glyph, text]) => (
            <span key={text}>
              {glyph} {text}
            </span>
          ))}
        </p>
      </div>
    </section>
  );
}
