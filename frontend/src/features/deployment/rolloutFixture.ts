import type { RolloutViewFragment } from "../../gql/graphql";
import type { RolloutTarget, RolloutWave } from "./rollout";

/** Test data: a rollout as the server sends it, built from a few facts. */

export function target(name: string, patch: Partial<RolloutTarget> = {}): RolloutTarget {
  return { name, labels: [], outcome: "TARGETED", wave: null, batch: null, state: "PENDING", release: null, error: null, ...patch };
}

export function wave(name: string, batches: string[][], patch: Partial<RolloutWave> = {}): RolloutWave {
  return {
    name,
    state: "PENDING",
    targets: batches.flat(),
    deferredUntil: null,
    batches: batches.map((targets, i) => ({ index: i + 1, targets, state: "PENDING", startedAt: null, finishedAt: null })),
    bake: null,
    gate: null,
    approval: null,
    ...patch,
  };
}

export function rollout(waves: RolloutWave[], targets: RolloutTarget[], patch: Partial<RolloutViewFragment> = {}): RolloutViewFragment {
  const deployed = targets.filter((t) => t.outcome === "TARGETED" || t.outcome === "DEFERRED");
  return {
    state: "RUNNING",
    currentWave: null,
    targetsTotal: deployed.length,
    targetsDone: deployed.filter((t) => t.state === "SUCCESS").length,
    waves,
    targets,
    pause: null,
    request: null,
    ...patch,
  };
}

/**
 * A fleet of waves × perWave targets, cut in batches of batch, every
 * target of the first wave done and the second wave running: what the
 * grid's size test renders.
 */
export function fleet(waves: number, perWave: number, batch: number): RolloutViewFragment {
  const ws: RolloutWave[] = [];
  const ts: RolloutTarget[] = [];
  for (let w = 0; w < waves; w++) {
    const name = `w${w + 1}`;
    const batches: string[][] = [];
    for (let i = 0; i < perWave; i++) {
      const t = `${name}-t${i + 1}`;
      const b = Math.floor(i / batch);
      (batches[b] ??= []).push(t);
      ts.push(target(t, { wave: name, batch: b + 1, state: w === 0 ? "SUCCESS" : "PENDING", labels: [{ key: "region", value: `r${w % 3}` }] }));
    }
    ws.push(wave(name, batches, { state: w === 0 ? "PASSED" : w === 1 ? "RUNNING" : "PENDING" }));
  }
  return rollout(ws, ts, { currentWave: "w2" });
}
