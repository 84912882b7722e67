import type { WallDeploymentFragment } from "../../gql/graphql";
import { isFailed, isFinal, isRunning } from "../../shared/states";

export type Board = Map<string, WallDeploymentFragment>;

export interface Columns {
  running: WallDeploymentFragment[];
  waiting: WallDeploymentFragment[];
  failed: WallDeploymentFragment[];
}

function newer(current: WallDeploymentFragment | undefined, next: WallDeploymentFragment) {
  return !current || Date.parse(next.updatedAt) >= Date.parse(current.updatedAt);
}

/**
 * Keeps only what the wall can show: active deploys and failures within the
 * window. A board that runs for days must not grow with every deploy.
 */
function prune(board: Board, now: number, windowMs: number): Board {
  for (const [id, d] of board) {
    if (!isFinal(d.state)) continue;
    const ended = Date.parse(d.finishedAt ?? d.updatedAt);
    if (!isFailed(d.state) || now - ended > windowMs) board.delete(id);
  }
  return board;
}

export function applyEvent(board: Board, d: WallDeploymentFragment, now: number, windowMs: number): Board {
  if (!newer(board.get(d.id), d)) return board;
  const next = new Map(board).set(d.id, d);
  return prune(next, now, windowMs);
}

/** A fresh read replaces the board: it is what the server says now. */
export function fromSnapshot(active: WallDeploymentFragment[], failed: WallDeploymentFragment[], now: number, windowMs: number): Board {
  const board: Board = new Map();
  for (const d of [...failed, ...active]) if (newer(board.get(d.id), d)) board.set(d.id, d);
  return prune(board, now, windowMs);
}

export function columns(board: Board, now: number, windowMs: number): Columns {
  const all = [...board.values()];
  const oldestFirst = (a: WallDeploymentFragment, b: WallDeploymentFragment) => Date.parse(a.createdAt) - Date.parse(b.createdAt);
  return {
    running: all.filter((d) => isRunning(d.state)).sort(oldestFirst),
    waiting: all.filter((d) => !isFinal(d.state) && !isRunning(d.state)).sort(oldestFirst),
    failed: all
      .filter((d) => isFailed(d.state) && now - Date.parse(d.finishedAt ?? d.updatedAt) <= windowMs)
      .sort((a, b) => Date.parse(b.finishedAt ?? b.updatedAt) - Date.parse(a.finishedAt ?? a.updatedAt)),
  };
}

/** The step that failed, for a one-line reason on the wall. */
export function failedStep(d: WallDeploymentFragment): string | null {
  return d.steps.find((s) => s.state === "ERROR")?.name ?? null;
}

/** ?window=90 (minutes) sets how long a failure stays on the wall; one hour by default. */
export function windowFromSearch(search: string): number {
  const minutes = Number(new URLSearchParams(search).get("window"));
  return (Number.isFinite(minutes) && minutes > 0 ? Math.min(minutes, 7 * 24 * 60) : 60) * 60_000;
}
