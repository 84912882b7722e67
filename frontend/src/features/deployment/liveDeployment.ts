import type { DeploymentViewFragment, LogLineViewFragment } from "../../gql/graphql";

/** A deploy as the page shows it: the newest of what the query and the subscription said. */
export interface LiveState {
  deployment: DeploymentViewFragment | null;
  lines: LogLineViewFragment[];
}

export type LiveAction =
  | { type: "deployment"; deployment: DeploymentViewFragment }
  | { type: "lines"; lines: LogLineViewFragment[] };

export const emptyLive: LiveState = { deployment: null, lines: [] };

function newer(a: DeploymentViewFragment | null, b: DeploymentViewFragment): boolean {
  if (!a || a.id !== b.id) return true;
  return Date.parse(b.updatedAt) >= Date.parse(a.updatedAt);
}

/**
 * Log lines are merged by seq: a resubscription after a reconnect and a
 * refetch both send lines already shown.
 */
export function mergeLines(current: LogLineViewFragment[], incoming: LogLineViewFragment[]): LogLineViewFragment[] {
  if (incoming.length === 0) return current;
  const last = current.length ? current[current.length - 1]!.seq : -Infinity;
  if (incoming.every((l, i) => l.seq > last && (i === 0 || l.seq > incoming[i - 1]!.seq))) return current.concat(incoming);
  const bySeq = new Map(current.map((l) => [l.seq, l]));
  for (const l of incoming) bySeq.set(l.seq, l);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  switch (action.type) {
    case "deployment":
      return newer(state.deployment, action.deployment) ? { ...state, deployment: action.deployment } : state;
    case "lines": {
      const lines = mergeLines(state.lines, action.lines);
      return lines === state.lines ? state : { ...state, lines };
    }
  }
}
