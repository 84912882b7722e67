import type { WallDeploymentFragment } from "../../gql/graphql";
import { isFailed, isFinal, isRunning } from "../../shared/states";

/**
 * What the wall knows: the deploys it may show, and when each place
 * (tenant, application, environment) last had a deploy succeed, so that a
 * failure leaves the wall once its application has recovered there.
 */
export interface Board {
  deploys: Map<string, WallDeploymentFragment>;
  recovered: Map<string, number>;
}

/** A card of the wall: a deploy and, for a place that failed, how many failures the window holds there (the latest shown). */
export interface WallItem {
  deployment: WallDeploymentFragment;
  failures: number;
}

export interface Columns {
  running: WallDeploymentFragment[];
  waiting: WallDeploymentFragment[];
  failed: WallItem[];
}

/** An entry of the inventory: when the release in service there was deployed. */
export interface InService {
  tenant: string;
  application: string;
  environment: string;
  deployedAt: string | null;
}

type Placed = { tenant: string; application: string; environment: string };

export const placeKey = (p: Placed) => `${p.tenant}\u0000${p.application}\u0000${p.environment}`;

const endedAt = (d: WallDeploymentFragment) => Date.parse(d.finishedAt ?? d.updatedAt);

export const emptyBoard = (): Board => ({ deploys: new Map(), recovered: new Map() });

function newer(current: WallDeploymentFragment | undefined, next: WallDeploymentFragment) {
  return !current || Date.parse(next.updatedAt) >= Date.parse(current.updatedAt);
}

/** A success puts its release in service: the place has recovered from what failed there before. A dry run changes nothing. */
function noteSuccess(recovered: Map<string, number>, d: WallDeploymentFragment) {
  if (d.state !== "SUCCESS" || d.dryRun) return;
  const key = placeKey(d);
  recovered.set(key, Math.max(recovered.get(key) ?? 0, endedAt(d)));
}

const recoveredSince = (b: Board, d: WallDeploymentFragment) => (b.recovered.get(placeKey(d)) ?? -Infinity) >= endedAt(d);

/**
 * Keeps only what the wall can show: active deploys and failures within the
 * window that their place has not recovered from. A board that runs for
 * days must not grow with every deploy.
 */
function prune(board: Board, now: number, windowMs: number): Board {
  for (const [id, d] of board.deploys) {
    if (!isFinal(d.state)) continue;
    if (!isFailed(d.state) || now - endedAt(d) > windowMs || recoveredSince(board, d)) board.deploys.delete(id);
  }
  for (const [key, at] of board.recovered) if (now - at > windowMs) board.recovered.delete(key);
  return board;
}

export function applyEvent(board: Board, d: WallDeploymentFragment, now: number, windowMs: number): Board {
  if (!newer(board.deploys.get(d.id), d)) return board;
  const next: Board = { deploys: new Map(board.deploys).set(d.id, d), recovered: new Map(board.recovered) };
  noteSuccess(next.recovered, d);
  return prune(next, now, windowMs);
}

/** A fresh read replaces the board: it is what the server says now, the inventory saying where each place stands. */
export function fromSnapshot(active: WallDeploymentFragment[], failed: WallDeploymentFragment[], inService: InService[], now: number, windowMs: number): Board {
  const board = emptyBoard();
  for (const e of inService) {
    if (e.deployedAt) board.recovered.set(placeKey(e), Date.parse(e.deployedAt));
  }
  for (const d of [...failed, ...active]) if (newer(board.deploys.get(d.id), d)) board.deploys.set(d.id, d);
  return prune(board, now, windowMs);
}

export function columns(board: Board, now: number, windowMs: number): Columns {
  const all = [...board.deploys.values()];
  const oldestFirst = (a: WallDeploymentFragment, b: WallDeploymentFragment) => Date.parse(a.createdAt) - Date.parse(b.createdAt);
  // One card per place: the same application failing again in the same
  // environment is one problem, counted, not a column of copies.
  const byPlace = new Map<string, WallItem>();
  for (const d of all) {
    if (!isFailed(d.state) || now - endedAt(d) > windowMs || recoveredSince(board, d)) continue;
    const key = placeKey(d);
    const card = byPlace.get(key);
    if (!card) byPlace.set(key, { deployment: d, failures: 1 });
    else byPlace.set(key, { deployment: endedAt(d) > endedAt(card.deployment) ? d : card.deployment, failures: card.failures + 1 });
  }
  return {
    running: all.filter((d) => isRunning(d.state)).sort(oldestFirst),
    waiting: all.filter((d) => !isFinal(d.state) && !isRunning(d.state)).sort(oldestFirst),
    failed: [...byPlace.values()].sort((a, b) => endedAt(b.deployment) - endedAt(a.deployment)),
  };
}

/** The step that failed, for a one-line reason on the wall. */
export function failedStep(d: WallDeploymentFragment): string | null {
  return d.steps.find((s) => s.state === "ERROR")?.name ?? null;
}

/**
 * What a waiting card counts: the time left before a DELAYED deploy starts
 * (it is not waiting for anything to happen, but for its time), the time
 * waited otherwise.
 */
export function waitFigure(d: WallDeploymentFragment, now: number): { kind: "starts" | "waited"; ms: number } {
  if (d.state === "DELAYED" && d.startAt) return { kind: "starts", ms: Math.max(0, Date.parse(d.startAt) - now) };
  return { kind: "waited", ms: Math.max(0, now - Date.parse(d.createdAt)) };
}

/** ?window=90 (minutes) sets how long a failure stays on the wall; one hour by default. */
export function windowFromSearch(search: string): number {
  const minutes = Number(new URLSearchParams(search).get("window"));
  return (Number.isFinite(minutes) && minutes > 0 ? Math.min(minutes, 7 * 24 * 60) : 60) * 60_000;
}
