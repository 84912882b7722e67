import type { DependentsFeedSubscription, DeploymentViewFragment, LogLineViewFragment } from "../../gql/graphql";

/** A deploy as the page shows it: the newest of what the query and the subscription said. */
export interface LiveState {
  deployment: DeploymentViewFragment | null;
  lines: LogLineViewFragment[];
}

export type LiveAction =
  | { type: "deployment"; deployment: DeploymentViewFragment }
  | { type: "lines"; lines: LogLineViewFragment[] }
  | { type: "changed"; deployment: ChangedDeployment };

/** A deploy of the activity feed: one that runs after the page's deploy is one of its dependents. */
export type ChangedDeployment = DependentsFeedSubscription["activity"]["deployment"];

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

/**
 * Applies a change of another deploy to the dependents: a new state, or a
 * new dependent (added last, as the server lists them oldest first). The
 * same deployment object comes back when the change is not about it.
 */
export function withDependent(d: DeploymentViewFragment, changed: ChangedDeployment): DeploymentViewFragment {
  if (changed.id === d.id || !changed.after?.dependencies.some((dep) => dep.id === d.id)) return d;
  const known = d.dependents.find((dep) => dep.id === changed.id);
  if (known?.state === changed.state) return d;
  const dependents = known
    ? d.dependents.map((dep) => (dep === known ? { ...dep, state: changed.state } : dep))
    : [...d.dependents, { id: changed.id, state: changed.state }];
  return { ...d, dependents };
}

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  switch (action.type) {
    case "deployment":
      return newer(state.deployment, action.deployment) ? { ...state, deployment: action.deployment } : state;
    case "changed": {
      if (!state.deployment) return state;
      const deployment = withDependent(state.deployment, action.deployment);
      return deployment === state.deployment ? state : { ...state, deployment };
    }
    case "lines": {
      const lines = mergeLines(state.lines, action.lines);
      return lines === state.lines ? state : { ...state, lines };
    }
  }
}
