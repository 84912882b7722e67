import type { GateResult, RolloutState, RolloutStepState, TargetOutcome, WaveState } from "../gql/graphql";
import type { Tone } from "./states";

/**
 * The words and colours of a rollout, shared by the deploy page and the
 * wall: a state is always drawn with a word (and a glyph for a target's
 * cell), never by colour alone.
 */
export interface RolloutInfo {
  label: string;
  tone: Tone;
  /** A one-character sign that tells states apart without colour. */
  glyph: string;
}

const rolloutStates: Record<RolloutState, RolloutInfo> = {
  PENDING: { label: "Not started", tone: "neutral", glyph: "○" },
  RUNNING: { label: "Running", tone: "running", glyph: "●" },
  PAUSED: { label: "Paused", tone: "waiting", glyph: "Ⅱ" },
  AWAITING_APPROVAL: { label: "Awaiting approval", tone: "waiting", glyph: "?" },
  DEFERRED: { label: "Deferred", tone: "waiting", glyph: "◷" },
  COMPLETED: { label: "Completed", tone: "success", glyph: "✓" },
  ABORTED: { label: "Aborted", tone: "danger", glyph: "✗" },
};

const waveStates: Record<WaveState, RolloutInfo> = {
  PENDING: { label: "Not started", tone: "neutral", glyph: "○" },
  AWAITING_APPROVAL: { label: "Awaiting approval", tone: "waiting", glyph: "?" },
  DEFERRED: { label: "Deferred", tone: "waiting", glyph: "◷" },
  RUNNING: { label: "Running", tone: "running", glyph: "●" },
  BAKING: { label: "Baking", tone: "waiting", glyph: "◔" },
  GATING: { label: "Checking gates", tone: "running", glyph: "◎" },
  PAUSED: { label: "Paused", tone: "waiting", glyph: "Ⅱ" },
  PASSED: { label: "Passed", tone: "success", glyph: "✓" },
  FAILED: { label: "Failed", tone: "danger", glyph: "✗" },
  SKIPPED: { label: "Skipped", tone: "neutral", glyph: "–" },
  EMPTY: { label: "Empty", tone: "neutral", glyph: "◌" },
  ROLLED_BACK: { label: "Rolled back", tone: "neutral", glyph: "↺" },
};

const targetStates: Record<RolloutStepState, RolloutInfo> = {
  PENDING: { label: "Not started", tone: "neutral", glyph: "○" },
  RUNNING: { label: "Running", tone: "running", glyph: "●" },
  SUCCESS: { label: "Success", tone: "success", glyph: "✓" },
  ERROR: { label: "Error", tone: "danger", glyph: "✗" },
  SKIPPED: { label: "Skipped", tone: "neutral", glyph: "–" },
  CANCELLED: { label: "Cancelled", tone: "neutral", glyph: "⊘" },
  ROLLED_BACK: { label: "Rolled back", tone: "neutral", glyph: "↺" },
};

const gateResults: Record<GateResult, RolloutInfo> = {
  PASS: { label: "Pass", tone: "success", glyph: "✓" },
  FAIL: { label: "Fail", tone: "danger", glyph: "✗" },
  INCONCLUSIVE: { label: "Inconclusive", tone: "waiting", glyph: "?" },
  NO_DATA: { label: "No data", tone: "waiting", glyph: "∅" },
};

const outcomes: Record<TargetOutcome, RolloutInfo> = {
  TARGETED: { label: "Targeted", tone: "neutral", glyph: "" },
  EXCLUDED: { label: "Excluded", tone: "neutral", glyph: "⊖" },
  REJECTED: { label: "Rejected", tone: "danger", glyph: "⊗" },
  DEFERRED: { label: "Deferred", tone: "waiting", glyph: "◷" },
};

const unknown = (s: string): RolloutInfo => ({ label: s, tone: "neutral", glyph: "·" });

export const rolloutStateInfo = (s: RolloutState): RolloutInfo => rolloutStates[s] ?? unknown(s);
export const waveStateInfo = (s: WaveState): RolloutInfo => waveStates[s] ?? unknown(s);
export const targetStateInfo = (s: RolloutStepState): RolloutInfo => targetStates[s] ?? unknown(s);
export const gateResultInfo = (s: GateResult): RolloutInfo => gateResults[s] ?? unknown(s);
export const outcomeInfo = (s: TargetOutcome): RolloutInfo => outcomes[s] ?? unknown(s);

/** Whether the rollout is over: nothing of it moves any more. */
export const rolloutEnded = (s: RolloutState) => s === "COMPLETED" || s === "ABORTED";

/**
 * A gate's value as the status writes it, compactly: at most 4 significant
 * digits, no trailing zeros, an exponent for the very small and very large
 * ("0.0042", "1.2e-7", "1.235e+4", "200").
 */
export function formatGateValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const [mantissa = "", exp] = v.toPrecision(4).split("e");
  const m = mantissa.includes(".") ? mantissa.replace(/\.?0+$/, "") : mantissa;
  return exp === undefined ? m : `${m}e${exp}`;
}

/**
 * A countdown as a wall reads it from across a room: "1:40", "12:05",
 * "1:02:03"; never negative (the server's clock and this one may differ:
 * a bake over here shows 0:00 until the server says the next thing).
 */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** What is left until iso, for a countdown; 0 once passed, null without a time. */
export function timeLeft(iso: string | null | undefined, now: number): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

/** The least of a rollout a summary line needs: the wall's fragment and the deploy page's both fit. */
export interface RolloutSummaryLike {
  state: RolloutState;
  currentWave: string | null;
  targetsTotal: number;
  targetsDone: number;
  waves: ReadonlyArray<{
    name: string;
    state: WaveState;
    deferredUntil: string | null;
    bake: { until: string | null } | null;
    batches: ReadonlyArray<{ state: RolloutStepState }>;
  }>;
  /** Null unless paused; until is when the pause times out into an abort. */
  pause: { until: string } | null;
}

/**
 * A pause and the time left before it aborts: "paused · aborts in
 * 23:41:10", counted from the server's until as a bake is.
 */
function pausedActivity(r: RolloutSummaryLike, now: number): string {
  const left = timeLeft(r.pause?.until, now);
  return left === null ? "paused" : `paused · aborts in ${formatCountdown(left)}`;
}

/**
 * Where the current wave stands, in a few words: "baking 1:40", "batch 2 of
 * 3", "awaiting approval", "deferred 12:00", "paused · aborts in 23:41:10";
 * null when there is nothing to add to the wave's place.
 */
export function waveActivity(r: RolloutSummaryLike, now: number): string | null {
  const wave = r.waves.find((w) => w.name === r.currentWave);
  if (r.state === "PAUSED") return pausedActivity(r, now);
  if (r.state === "AWAITING_APPROVAL" || wave?.state === "AWAITING_APPROVAL") return "awaiting approval";
  if (!wave) return null;
  switch (wave.state) {
    case "BAKING": {
      const left = timeLeft(wave.bake?.until, now);
      return left === null ? "baking" : `baking ${formatCountdown(left)}`;
    }
    case "DEFERRED": {
      const left = timeLeft(wave.deferredUntil, now);
      return left === null ? "deferred" : `deferred ${formatCountdown(left)}`;
    }
    case "GATING":
      return "checking gates";
    case "PAUSED":
      return pausedActivity(r, now);
    case "RUNNING": {
      const n = wave.batches.length;
      const i = wave.batches.findIndex((b) => b.state === "RUNNING" || b.state === "PENDING");
      return n > 1 && i >= 0 ? `batch ${i + 1} of ${n}` : "deploying";
    }
    default:
      return null;
  }
}

/**
 * The one line of a rollout on the wall and in a deploy's header: "wave 2 of
 * 3 · 5/9 targets · baking 1:40".
 */
export function rolloutLine(r: RolloutSummaryLike, now: number): string {
  const parts: string[] = [];
  const i = r.waves.findIndex((w) => w.name === r.currentWave);
  if (i >= 0) parts.push(`wave ${i + 1} of ${r.waves.length}`);
  else if (rolloutEnded(r.state)) parts.push(`${rolloutStateInfo(r.state).label.toLowerCase()}, ${r.waves.length} wave${r.waves.length === 1 ? "" : "s"}`);
  else parts.push(`${r.waves.length} wave${r.waves.length === 1 ? "" : "s"}`);
  parts.push(`${r.targetsDone}/${r.targetsTotal} targets`);
  const activity = waveActivity(r, now);
  if (activity) parts.push(activity);
  return parts.join(" · ");
}
