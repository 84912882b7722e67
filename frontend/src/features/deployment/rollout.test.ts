import { describe, expect, it } from "vitest";
import { formatCountdown, rolloutLine, waveActivity } from "../../shared/rollout";
import { cellLabel, groupRollout, rolloutTimes } from "./rollout";
import { fleet, rollout, target, wave } from "./rolloutFixture";

const t0 = Date.parse("2026-11-30T10:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000).toISOString();

describe("groupRollout", () => {
  it("places every target once, in its wave and batch, and sets aside those in no wave", () => {
    const r = rollout(
      [wave("canary", [["eu-1"]], { state: "PASSED" }), wave("eu", [["eu-2", "eu-3"], ["eu-4"]], { state: "RUNNING" }), wave("empty", [])],
      [
        target("eu-1", { wave: "canary", batch: 1, state: "SUCCESS" }),
        target("eu-2", { wave: "eu", batch: 1, state: "SUCCESS" }),
        target("eu-3", { wave: "eu", batch: 1, state: "ERROR", error: "exit 1" }),
        target("eu-4", { wave: "eu", batch: 2, state: "RUNNING" }),
        target("us-9", { outcome: "EXCLUDED", state: "SKIPPED" }),
        target("win-1", { outcome: "REJECTED", state: "SKIPPED" }),
      ],
      { currentWave: "eu" },
    );
    const g = groupRollout(r);
    expect(g.waves.map((w) => [w.wave.name, w.index, w.current, w.batches.map((b) => b.cells.map((c) => c.name))])).toEqual([
      ["canary", 1, false, [["eu-1"]]],
      ["eu", 2, true, [["eu-2", "eu-3"], ["eu-4"]]],
      ["empty", 3, false, []],
    ]);
    expect(g.waves[1]!.done).toBe(1);
    expect(g.waves[1]!.failed.map((t) => t.error)).toEqual(["exit 1"]);
    expect(g.leftOut.map((t) => [t.name, t.outcome])).toEqual([
      ["us-9", "EXCLUDED"],
      ["win-1", "REJECTED"],
    ]);
  });

  it("keeps a wave's targets no batch lists (a deferred wave), and a target the list lacks, as pending cells", () => {
    const deferred = wave("rest", [], { state: "DEFERRED", targets: ["us-1", "us-2"], deferredUntil: at(600) });
    const g = groupRollout(rollout([deferred], [target("us-1", { outcome: "DEFERRED", wave: "rest" })]));
    const [b] = g.waves[0]!.batches;
    expect(b!.cells.map((c) => [c.name, c.outcome, c.state])).toEqual([
      ["us-1", "DEFERRED", "PENDING"],
      ["us-2", "TARGETED", "PENDING"],
    ]);
  });

  it("groups a fleet of 500 targets × 10 waves into its batches", () => {
    const g = groupRollout(fleet(10, 500, 50));
    expect(g.waves).toHaveLength(10);
    expect(g.waves.every((w) => w.batches.length === 10 && w.batches.every((b) => b.cells.length === 50))).toBe(true);
    expect(g.waves[0]!.done).toBe(500);
    expect(g.waves.filter((w) => w.current).map((w) => w.wave.name)).toEqual(["w2"]);
  });
});

describe("cellLabel", () => {
  it.each([
    [target("eu-1", { state: "SUCCESS", release: "1.2.0" }), "eu-1: targeted, Success, release 1.2.0"],
    [target("eu-2", { state: "ROLLED_BACK", release: "1.1.0" }), "eu-2: targeted, Rolled back, release 1.1.0"],
    [target("eu-3", { state: "ERROR", error: "exit 1" }), "eu-3: targeted, Error, error: exit 1"],
    [target("us-1", { outcome: "DEFERRED" }), "us-1: deferred, Not started"],
    [target("us-9", { outcome: "EXCLUDED", state: "SKIPPED" }), "us-9: excluded"],
    [target("win-1", { outcome: "REJECTED", state: "SKIPPED" }), "win-1: rejected"],
  ])("%o reads %s", (t, want) => {
    expect(cellLabel(t)).toBe(want);
  });
});

describe("rolloutTimes", () => {
  const batch = (index: number, from: number, to: number | null) => ({ index, targets: [], state: to === null ? ("RUNNING" as const) : ("SUCCESS" as const), startedAt: at(from), finishedAt: to === null ? null : at(to) });

  it("tells the time batches ran from the time between them", () => {
    // canary ran 0–20 s, baked and gated until 140 s; eu's first batch ran
    // 140–170 s, its second runs since 180 s; now is 200 s.
    const r = rollout(
      [
        wave("canary", [], { batches: [batch(1, 0, 20)], gate: { state: "PASS", at: at(140), checks: [] } }),
        wave("eu", [], { batches: [batch(1, 140, 170), batch(2, 180, null)] }),
      ],
      [],
    );
    expect(rolloutTimes(r, t0 + 200_000)).toEqual({ workingMs: 70_000, waitingMs: 130_000 });
  });

  it("stops counting when the rollout ended", () => {
    const r = rollout([wave("all", [], { batches: [batch(1, 0, 30)], gate: { state: "PASS", at: at(90), checks: [] } })], [], { state: "COMPLETED" });
    expect(rolloutTimes(r, t0 + 3_600_000)).toEqual({ workingMs: 30_000, waitingMs: 60_000 });
  });

  it("has nothing to say before the first batch", () => {
    expect(rolloutTimes(rollout([wave("all", [["a"]])], []), t0)).toBeNull();
  });
});

describe("the rollout line", () => {
  it.each([
    [0, "1:40"],
    [99_001, "0:01"],
    [100_000, "0:00"],
    [160_000, "0:00"], // never negative
  ])("counts down from 1:40 after %d ms as %s", (elapsedMs, want) => {
    expect(formatCountdown(100_000 - elapsedMs)).toBe(want);
  });

  it("writes hours when there are", () => {
    expect(formatCountdown(3_723_000)).toBe("1:02:03");
  });

  const three = (current: ReturnType<typeof wave>) => [wave("canary", [["a"]], { state: "PASSED" }), current, wave("rest", [["c", "d"]])];
  const targets = [target("a", { state: "SUCCESS" }), target("b", { state: "SUCCESS" }), target("c"), target("d"), target("x", { outcome: "EXCLUDED" })];

  it.each([
    ["baking", wave("eu", [["b"]], { state: "BAKING", bake: { seconds: 120, until: at(100) } }), {}, "wave 2 of 3 · 2/4 targets · baking 1:40"],
    ["running a batch", wave("eu", [["b"], ["b2"]], { state: "RUNNING", batches: [{ index: 1, targets: ["b"], state: "SUCCESS", startedAt: at(0), finishedAt: at(1) }, { index: 2, targets: ["b2"], state: "RUNNING", startedAt: at(1), finishedAt: null }] }), {}, "wave 2 of 3 · 2/4 targets · batch 2 of 2"],
    ["awaiting approval", wave("eu", [["b"]], { state: "AWAITING_APPROVAL" }), { state: "AWAITING_APPROVAL" as const }, "wave 2 of 3 · 2/4 targets · awaiting approval"],
    ["deferred", wave("eu", [["b"]], { state: "DEFERRED", deferredUntil: at(3600) }), { state: "DEFERRED" as const }, "wave 2 of 3 · 2/4 targets · deferred 1:00:00"],
    ["paused", wave("eu", [["b"]], { state: "PAUSED" }), { state: "PAUSED" as const }, "wave 2 of 3 · 2/4 targets · paused"],
    [
      "paused, with the time left before it aborts",
      wave("eu", [["b"]], { state: "PAUSED" }),
      { state: "PAUSED" as const, pause: { step: "pause[2]", reason: "paused by oidc:ana", since: at(-60), until: at(85_270), by: "oidc:ana", mayResume: [] } },
      "wave 2 of 3 · 2/4 targets · paused · aborts in 23:41:10",
    ],
    [
      "paused past its end by this clock",
      wave("eu", [["b"]], { state: "PAUSED" }),
      { state: "PAUSED" as const, pause: { step: "pause[2]", reason: "gate errors was inconclusive", since: at(-90), until: at(-5), by: null, mayResume: [] } },
      "wave 2 of 3 · 2/4 targets · paused · aborts in 0:00",
    ],
    ["checking gates", wave("eu", [["b"]], { state: "GATING" }), {}, "wave 2 of 3 · 2/4 targets · checking gates"],
  ])("%s", (_, current, patch, want) => {
    const r = rollout(three(current), targets, { currentWave: "eu", ...patch });
    expect(rolloutLine(r, t0)).toBe(want);
  });

  it("says how it ended, once it did", () => {
    const r = rollout(three(wave("eu", [["b"]], { state: "PASSED" })), targets, { state: "COMPLETED", currentWave: null, targetsDone: 4 });
    expect(rolloutLine(r, t0)).toBe("completed, 3 waves · 4/4 targets");
    expect(waveActivity(r, t0)).toBeNull();
  });
});
