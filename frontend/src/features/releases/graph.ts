import dagre from "@dagrejs/dagre";
import type { DeploymentState } from "../../gql/graphql";
import { deploymentStateInfo, type Tone } from "../../shared/states";

/** What the graph needs of a release: its deploys, their imports, and the edges between them. */
export interface GraphDeploy {
  name: string;
  deploymentId: string;
  state: DeploymentState | null;
  rollbackState: string | null;
  deployment: { imports: { name: string; deploymentId: string | null; exports: string[] }[] } | null;
}

export interface GraphEdgeInput {
  from: string;
  to: string;
}

export interface PlacedNode {
  name: string;
  /** The centre of the node. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** 0 for the deploys that follow none, then one more than the furthest they follow. */
  rank: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  points: { x: number; y: number }[];
  /** The exports the consumer (to) imports from the producer (from); empty when none. */
  exports: string[];
  /** Where dagre put the label, when there is one. */
  labelAt: { x: number; y: number } | null;
}

export interface ReleaseLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

// Four lines: the name and version, application → environment, the state (and the failed step), the rollback.
export const nodeSize = { width: 240, height: 96 };

/**
 * The rank of every deploy: the length of the longest chain of deploys it
 * follows. Deploys of a rank can run together; dagre draws them in one
 * column. Edges naming an unknown deploy are ignored; a cycle (refused by
 * the server) cannot loop here.
 */
export function ranks(names: string[], edges: GraphEdgeInput[]): Map<string, number> {
  const known = new Set(names);
  const before = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of edges) {
    if (known.has(e.from) && known.has(e.to)) before.get(e.to)!.push(e.from);
  }
  const out = new Map<string, number>();
  const visiting = new Set<string>();
  const rankOf = (n: string): number => {
    const done = out.get(n);
    if (done !== undefined) return done;
    if (visiting.has(n)) return 0;
    visiting.add(n);
    const r = Math.max(-1, ...before.get(n)!.map(rankOf)) + 1;
    visiting.delete(n);
    out.set(n, r);
    return r;
  };
  names.forEach(rankOf);
  return out;
}

/**
 * The exports flowing along each edge, keyed "from→to": the exports the
 * consumer's imports take from the producer's deploy. The server rewrites a
 * release's imports to deploy IDs, so they are matched by ID.
 */
export function edgeExports(deploys: GraphDeploy[]): Map<string, string[]> {
  const nameById = new Map(deploys.map((d) => [d.deploymentId, d.name]));
  const out = new Map<string, string[]>();
  for (const consumer of deploys) {
    for (const imp of consumer.deployment?.imports ?? []) {
      const producer = imp.deploymentId ? nameById.get(imp.deploymentId) : undefined;
      if (!producer) continue;
      const key = edgeKey(producer, consumer.name);
      out.set(key, [...new Set([...(out.get(key) ?? []), ...imp.exports])].sort());
    }
  }
  return out;
}

export function edgeKey(from: string, to: string): string {
  return `${from}→${to}`;
}

/** Lays the release out left to right with dagre: producers left of their consumers. */
export function layoutRelease(deploys: GraphDeploy[], edges: GraphEdgeInput[]): ReleaseLayout {
  const names = deploys.map((d) => d.name);
  const rankOf = ranks(names, edges);
  const flowing = edgeExports(deploys);
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 28, ranksep: 72, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of names) g.setNode(n, { ...nodeSize });
  const known = new Set(names);
  const kept = edges.filter((e) => known.has(e.from) && known.has(e.to));
  for (const e of kept) {
    const label = (flowing.get(edgeKey(e.from, e.to)) ?? []).join(", ");
    // A label takes room between the columns: dagre keeps it clear of the nodes.
    g.setEdge(e.from, e.to, label ? { width: 8 + label.length * 7, height: 18, labelpos: "c" } : {});
  }
  dagre.layout(g);
  const nodes = names.map((n) => {
    const p = g.node(n);
    return { name: n, x: p.x, y: p.y, width: p.width, height: p.height, rank: rankOf.get(n) ?? 0 };
  });
  const placed = kept.map((e) => {
    const label = g.edge(e.from, e.to) as { points?: { x: number; y: number }[]; x?: number; y?: number };
    const exports = flowing.get(edgeKey(e.from, e.to)) ?? [];
    return {
      from: e.from,
      to: e.to,
      points: label.points ?? [],
      exports,
      labelAt: exports.length && label.x !== undefined && label.y !== undefined ? { x: label.x, y: label.y } : null,
    };
  });
  const size = g.graph();
  return { nodes, edges: placed, width: size.width ?? 0, height: size.height ?? 0 };
}

export interface NodeLook {
  tone: Tone;
  label: string;
  /** The state's meaning, for the tooltip. */
  description: string;
  rollback: { tone: Tone; label: string } | null;
}

/**
 * How a deploy's node is coloured and worded: by its deploy's state (not
 * queued yet: neutral), with its rollback (onFailure: rollback) beside it.
 */
export function nodeLook(state: DeploymentState | null, rollbackState: string | null): NodeLook {
  const info = state ? deploymentStateInfo(state) : null;
  return {
    tone: info?.tone ?? "neutral",
    label: info?.label ?? "Not queued",
    description: info?.description ?? "the release has not queued it yet",
    rollback: rollbackLook(rollbackState),
  };
}

function rollbackLook(state: string | null): NodeLook["rollback"] {
  switch (state) {
    case null:
    case "":
      return null;
    case "REFUSED":
      return { tone: "danger", label: "Rollback refused" };
    case "SKIPPED":
      return { tone: "neutral", label: "Rollback skipped" };
    case "SUCCESS":
      return { tone: "success", label: "Rolled back" };
    default: {
      const info = deploymentStateInfo(state as DeploymentState);
      return { tone: info.tone, label: `Rollback: ${info.label.toLowerCase()}` };
    }
  }
}
