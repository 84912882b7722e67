import type { RolloutViewFragment } from "../../gql/graphql";
import { outcomeInfo, targetStateInfo } from "../../shared/rollout";

export type RolloutTarget = RolloutViewFragment["targets"][number];
export type RolloutWave = RolloutViewFragment["waves"][number];
export type RolloutBatch = RolloutWave["batches"][number];

/** A batch as the grid draws it: its targets as the rollout lists them (state, outcome, labels). */
export interface BatchCells {
  batch: RolloutBatch;
  cells: RolloutTarget[];
}

export interface WaveCells {
  wave: RolloutWave;
  /** From 1, in the order the waves run. */
  index: number;
  current: boolean;
  batches: BatchCells[];
  /** The wave's targets whose batch succeeded. */
  done: number;
  /** The wave's targets that failed (ERROR), with their errors: the few a reader must see without hovering. */
  failed: RolloutTarget[];
}

export interface RolloutGroups {
  waves: WaveCells[];
  /** Targets in no wave: excluded (never touched) and rejected (the deploy failed before any change). */
  leftOut: RolloutTarget[];
}

/**
 * Places every target of a rollout in its wave and batch, once: the grid
 * draws cells from this, and it is computed once per change of the rollout
 * (not per tick of a countdown). A target the waves name but the list of
 * targets lacks is drawn from its name alone, PENDING, so a cell never
 * disappears between two updates.
 */
export function groupRollout(r: RolloutViewFragment): RolloutGroups {
  const byName = new Map<string, RolloutTarget>();
  for (const t of r.targets) byName.set(t.name, t);
  const cell = (name: string, wave: string): RolloutTarget =>
    byName.get(name) ?? { name, labels: [], outcome: "TARGETED", wave, batch: null, state: "PENDING", release: null, error: null };
  const placed = new Set<string>();
  const waves = r.waves.map((wave, i): WaveCells => {
    const batches = wave.batches.map((batch) => ({ batch, cells: batch.targets.map((name) => cell(name, wave.name)) }));
    for (const b of batches) for (const c of b.cells) placed.add(c.name);
    // A target of the wave that no batch lists (a deferred wave the engine
    // has not cut yet) still shows, in a batch of its own.
    const unbatched = wave.targets.filter((name) => !placed.has(name)).map((name) => cell(name, wave.name));
    for (const c of unbatched) placed.add(c.name);
    if (unbatched.length > 0) {
      batches.push({ batch: { index: batches.length + 1, targets: unbatched.map((c) => c.name), state: "PENDING", startedAt: null, finishedAt: null }, cells: unbatched });
    }
    const all = batches.flatMap((b) => b.cells);
    return {
      wave,
      index: i + 1,
      current: wave.name === r.currentWave,
      batches,
      done: all.filter((c) => c.state === "SUCCESS").length,
      failed: all.filter((c) => c.state === "ERROR"),
    };
  });
  const leftOut = r.targets.filter((t) => !placed.has(t.name) && (t.outcome === "EXCLUDED" || t.outcome === "REJECTED"));
  return { waves, leftOut };
}

/** How a cell is read aloud and in its tooltip: "eu-1: targeted, Success, release 1.2.0". */
export function cellLabel(t: RolloutTarget): string {
  const parts = [`${t.name}: ${outcomeInfo(t.outcome).label.toLowerCase()}`];
  if (t.outcome === "TARGETED" || t.outcome === "DEFERRED") parts.push(targetStateInfo(t.state).label);
  if (t.release) parts.push(`release ${t.release}`);
  if (t.error) parts.push(`error: ${t.error}`);
  return parts.join(", ");
}

export interface RolloutTimes {
  /** Time batches ran: the sum of their recorded runs (they never overlap). */
  workingMs: number;
  /** Time between the first batch's start and now (or the rollout's end) that no batch ran: bakes, gates, approvals, deferrals, pauses. */
  waitingMs: number;
}

const parse = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

/**
 * Working and waiting time of a rollout, from the recorded times: from the
 * first batch's start to now while it runs, to the last thing recorded
 * (a batch's end, a gate's check) once it ended.
 */
export function rolloutTimes(r: RolloutViewFragment, now: number): RolloutTimes | null {
  let first = Infinity;
  let last = -Infinity;
  let working = 0;
  for (const w of r.waves) {
    for (const b of w.batches) {
      const start = parse(b.startedAt);
      if (Number.isNaN(start)) continue;
      const finish = parse(b.finishedAt);
      const end = Number.isNaN(finish) ? now : finish;
      first = Math.min(first, start);
      last = Math.max(last, end);
      working += Math.max(0, end - start);
    }
    const gateAt = parse(w.gate?.at);
    if (!Number.isNaN(gateAt)) last = Math.max(last, gateAt);
  }
  if (first === Infinity) return null;
  const ended = r.state === "COMPLETED" || r.state === "ABORTED";
  const span = Math.max(0, (ended ? last : Math.max(now, last)) - first);
  return { workingMs: working, waitingMs: Math.max(0, span - working) };
}

/** The time a wave's batches ran. */
export function waveWorkingMs(w: RolloutWave, now: number): number {
  let ms = 0;
  for (const b of w.batches) {
    const start = parse(b.startedAt);
    if (Number.isNaN(start)) continue;
    const finish = parse(b.finishedAt);
    ms += Math.max(0, (Number.isNaN(finish) ? now : finish) - start);
  }
  return ms;
}
