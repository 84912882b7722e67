import { act, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RolloutPanel } from "./RolloutPanel";
import { fleet, rollout, target, wave } from "./rolloutFixture";

const t0 = Date.parse("2026-11-30T10:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000).toISOString();

/** Three waves, the second baking for another 100 s; us-9 under maintenance. */
function baking() {
  return rollout(
    [
      wave("canary", [["eu-1"]], {
        state: "PASSED",
        batches: [{ index: 1, targets: ["eu-1"], state: "SUCCESS", startedAt: at(-200), finishedAt: at(-180) }],
        bake: { seconds: 60, until: at(-120) },
        gate: {
          state: "PASS",
          at: at(-120),
          checks: [
            { name: "errors", state: "PASS", value: 0.0042, detail: "0.0042 is within max 0.01" },
            { name: "health", state: "PASS", value: null, detail: "1 of 1 target answered 200" },
          ],
        },
      }),
      wave("eu", [["eu-2", "eu-3"], ["eu-4"]], {
        state: "BAKING",
        batches: [
          { index: 1, targets: ["eu-2", "eu-3"], state: "SUCCESS", startedAt: at(-60), finishedAt: at(-40) },
          { index: 2, targets: ["eu-4"], state: "SUCCESS", startedAt: at(-40), finishedAt: at(-20) },
        ],
        bake: { seconds: 120, until: at(100) },
        approval: { status: "approved", required: 1, groups: ["sre"], roles: [], expiresAt: null, approvals: [{ identity: "oidc:ana", approved: true }] },
      }),
      wave("rest", [["us-1", "us-2"]], { bake: { seconds: 30, until: null } }),
    ],
    [
      target("eu-1", { wave: "canary", batch: 1, state: "SUCCESS", release: "1.2.0", labels: [{ key: "region", value: "eu" }] }),
      target("eu-2", { wave: "eu", batch: 1, state: "SUCCESS", release: "1.2.0" }),
      target("eu-3", { wave: "eu", batch: 1, state: "SUCCESS", release: "1.2.0" }),
      target("eu-4", { wave: "eu", batch: 2, state: "SUCCESS", release: "1.2.0" }),
      target("us-1", { wave: "rest", batch: 1 }),
      target("us-2", { wave: "rest", batch: 1, outcome: "DEFERRED" }),
      target("us-9", { outcome: "EXCLUDED", state: "SKIPPED", labels: [{ key: "maintenance", value: "true" }] }),
    ],
    { currentWave: "eu" },
  );
}

/** The page's clock ticks 5 ms past each second (shared/time). */
const tick = (ms: number) => act(() => vi.advanceTimersByTime(ms + 5));

const wavesList = () => screen.getByRole("list", { name: "Waves" });
const waveItem = (name: RegExp) => within(wavesList()).getByRole("listitem", { name });

describe("RolloutPanel", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    vi.setSystemTime(t0);
  });
  afterEach(() => vi.useRealTimers());

  it("groups the targets by wave and batch, each read aloud with its outcome and state", () => {
    render(<RolloutPanel rollout={baking()} />);
    const waves = within(wavesList()).getAllByRole("listitem", { name: /^Wave / });
    expect(waves.map((w) => w.getAttribute("aria-label"))).toEqual(["Wave 1 of 3: canary, Passed", "Wave 2 of 3: eu, Baking", "Wave 3 of 3: rest, Not started"]);

    const eu = waveItem(/eu, Baking/);
    const batches = within(eu).getAllByRole("group");
    expect(batches.map((b) => b.getAttribute("aria-label"))).toEqual(["Batch 1 of wave eu: Success, 2 targets", "Batch 2 of wave eu: Success, 1 target"]);
    expect(within(batches[0]!).getAllByRole("img").map((c) => c.getAttribute("aria-label"))).toEqual([
      "eu-2: targeted, Success, release 1.2.0",
      "eu-3: targeted, Success, release 1.2.0",
    ]);
    expect(within(eu).getByText("3/3 targets")).toBeInTheDocument();

    // State and outcome by colour (data attributes the style reads) and by
    // glyph, never colour alone.
    const deferred = screen.getByRole("img", { name: "us-2: deferred, Not started" });
    expect(deferred).toHaveAttribute("data-outcome", "DEFERRED");
    expect(deferred).toHaveTextContent("◷");
    const done = screen.getByRole("img", { name: /^eu-1:/ });
    expect(done).toHaveAttribute("data-state", "SUCCESS");
    expect(done).toHaveTextContent("✓");
    expect(done.getAttribute("title")).toContain("region=eu");
    expect(screen.getByRole("img", { name: "us-1: targeted, Not started" })).toHaveTextContent("○");
  });

  it("shows the targets left out as such", () => {
    const r = baking();
    r.targets.push(target("win-1", { outcome: "REJECTED", state: "SKIPPED" }));
    render(<RolloutPanel rollout={r} />);
    const excluded = screen.getByRole("group", { name: "Excluded: 1 target, never touched" });
    expect(within(excluded).getByRole("img", { name: "us-9: excluded" })).toHaveTextContent("⊖");
    const rejected = screen.getByRole("group", { name: "Rejected: 1 target" });
    expect(within(rejected).getByRole("img", { name: "win-1: rejected" })).toHaveAttribute("data-outcome", "REJECTED");
    // Left out means in no wave.
    expect(within(wavesList()).queryByRole("img", { name: /^us-9/ })).toBeNull();
  });

  it("highlights the current wave, and only it", () => {
    render(<RolloutPanel rollout={baking()} />);
    const current = within(wavesList())
      .getAllByRole("listitem", { name: /^Wave / })
      .filter((w) => w.getAttribute("aria-current") === "step");
    expect(current.map((w) => w.getAttribute("aria-label"))).toEqual(["Wave 2 of 3: eu, Baking"]);
    expect(current[0]).toHaveAttribute("data-current", "true");
  });

  it("counts the bake down from the server's until, every second, never below zero", () => {
    render(<RolloutPanel rollout={baking()} />);
    const eu = waveItem(/eu, Baking/);
    expect(within(eu).getByText("baking 1:40")).toHaveAttribute("data-bake-until", at(100));
    expect(screen.getByText("wave 2 of 3 · 4/6 targets · baking 1:40")).toBeInTheDocument();

    tick(1000);
    expect(within(eu).getByText("baking 1:39")).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(59_000));
    expect(within(eu).getByText("baking 0:40")).toBeInTheDocument();
    expect(screen.getByText("wave 2 of 3 · 4/6 targets · baking 0:40")).toBeInTheDocument();
    // Past the end by this clock, before the server says what came next.
    act(() => vi.advanceTimersByTime(90_000));
    expect(within(eu).getByText("baking 0:00")).toBeInTheDocument();
    // Other waves show their bake's length, not a countdown.
    expect(within(waveItem(/rest/)).getByText("bake 30 s")).toBeInTheDocument();
    // A wave none of whose batches started has worked no time, rather than 0 ms.
    expect(within(waveItem(/rest/)).queryByText(/work/)).toBeNull();
    expect(within(eu).getByText("worked 40 s")).toBeInTheDocument();
  });

  it("shows the gates with their values and details, and the approval before a wave", () => {
    render(<RolloutPanel rollout={baking()} />);
    const checks = within(waveItem(/canary/)).getByRole("list", { name: "Gates of wave canary" });
    const [errors, health] = within(checks).getAllByRole("listitem");
    expect(errors).toHaveTextContent("Pass");
    expect(errors).toHaveTextContent("errors");
    expect(errors).toHaveTextContent("0.0042");
    expect(errors).toHaveTextContent("0.0042 is within max 0.01");
    expect(health).toHaveTextContent("1 of 1 target answered 200");
    expect(within(waveItem(/eu, Baking/)).getByText(/Approval before the wave: approved, 1 of 1 · from group sre/)).toBeInTheDocument();
  });

  it("writes a gate's value compactly, the raw value in its tooltip", () => {
    const r = baking();
    r.waves[0]!.gate!.checks[0]!.value = 0.004237891;
    r.waves[0]!.gate!.checks[1]!.value = 1.2e-7;
    render(<RolloutPanel rollout={r} />);
    const checks = within(waveItem(/canary/)).getByRole("list", { name: "Gates of wave canary" });
    const [errors, health] = within(checks).getAllByRole("listitem");
    expect(within(errors!).getByText("0.004238")).toHaveAttribute("title", "0.004237891");
    expect(within(health!).getByText("1.2e-7")).toBeInTheDocument();
  });

  it("keeps the worked time of a wave with a batch still open ticking", () => {
    const r = baking();
    r.state = "PAUSED";
    const eu = r.waves[1]!;
    eu.state = "PAUSED";
    eu.batches[1] = { ...eu.batches[1]!, state: "RUNNING", finishedAt: null };
    render(<RolloutPanel rollout={r} />);
    // 20 s of the first batch, 40 s of the second so far.
    expect(within(waveItem(/eu, Paused/)).getByText("worked 1 min")).toBeInTheDocument();
    tick(10_000);
    expect(within(waveItem(/eu, Paused/)).getByText("worked 1 min 10 s")).toBeInTheDocument();
  });

  it("shows an empty wave as empty, not skipped", () => {
    const r = baking();
    r.waves.push(wave("none", [], { state: "EMPTY" }));
    render(<RolloutPanel rollout={r} />);
    const none = waveItem(/none, Empty/);
    expect(none).toHaveAttribute("data-state", "EMPTY");
    expect(within(none).getByText("No target: the rollout passes this wave by.")).toBeInTheDocument();
    expect(within(none).queryByText(/Skipped/)).toBeNull();
  });

  it("says why a failed wave failed: its gate and its failed targets", () => {
    const r = baking();
    r.state = "ABORTED";
    r.currentWave = null;
    const eu = r.waves[1]!;
    eu.state = "FAILED";
    eu.gate = { state: "FAIL", at: at(-10), checks: [{ name: "errors", state: "FAIL", value: 0.023, detail: '0.023 {instance="eu-4"} is above max 0.01' }] };
    r.targets[3] = { ...r.targets[3]!, state: "ERROR", error: "health: 503" };
    render(<RolloutPanel rollout={r} />);
    const wave = waveItem(/eu, Failed/);
    expect(within(wave).getByRole("list", { name: "Gates of wave eu" })).toHaveTextContent("Fail");
    expect(within(wave).getByRole("list", { name: "Gates of wave eu" })).toHaveTextContent("0.023");
    expect(within(wave).getByRole("list", { name: "Failed targets of wave eu" })).toHaveTextContent("eu-4: health: 503");
    expect(screen.getByRole("img", { name: "eu-4: targeted, Error, release 1.2.0, error: health: 503" })).toHaveTextContent("✗");
    expect(screen.getByText("Aborted")).toBeInTheDocument();
  });

  it("says why a paused rollout waits, until when, and who may resume it", () => {
    const r = baking();
    r.state = "PAUSED";
    r.waves[1]!.state = "PAUSED";
    r.pause = { step: "pause[2/1]", reason: "gate errors was inconclusive: Prometheus unreachable", since: at(-30), until: at(86_370), by: null, mayResume: ["role:deployer", "group:sre"] };
    render(<RolloutPanel rollout={r} />);
    const note = screen.getByRole("status");
    expect(note).toHaveTextContent("Paused since");
    expect(note).toHaveTextContent("gate errors was inconclusive: Prometheus unreachable");
    expect(note).toHaveTextContent("It aborts in 23:59:30 (at");
    expect(note).toHaveTextContent("May resume or abort: role:deployer, group:sre");
    expect(screen.getByText("wave 2 of 3 · 4/6 targets · paused · aborts in 23:59:30")).toBeInTheDocument();
    // Both count down, as a bake does.
    tick(1000);
    expect(note).toHaveTextContent("It aborts in 23:59:29 (at");
    expect(screen.getByText("wave 2 of 3 · 4/6 targets · paused · aborts in 23:59:29")).toBeInTheDocument();
  });

  it("shows a deferred wave with the end of its freeze, counting down", () => {
    const r = baking();
    r.state = "DEFERRED";
    r.currentWave = "rest";
    r.waves[1]!.state = "PASSED";
    r.waves[2]!.state = "DEFERRED";
    r.waves[2]!.deferredUntil = at(90);
    render(<RolloutPanel rollout={r} />);
    const rest = waveItem(/rest, Deferred/);
    expect(within(rest).getByText(/deferred until .* \(1:30\)/)).toHaveAttribute("data-deferred-until", at(90));
    tick(1000);
    expect(within(rest).getByText(/deferred until .* \(1:29\)/)).toBeInTheDocument();
  });

  it("tells working time from waiting time", () => {
    render(<RolloutPanel rollout={baking()} />);
    // Batches ran 20 + 20 + 20 s of the 200 s since the first started.
    expect(screen.getByText("working 1 min")).toBeInTheDocument();
    expect(screen.getByText("waiting 2 min 20 s")).toBeInTheDocument();
    tick(10_000);
    expect(screen.getByText("waiting 2 min 30 s")).toBeInTheDocument();
  });

  // What this proves is the DOM's size, not its speed: the time Chromium takes
  // to render and update such a fleet is for a Playwright spec
  // (e2e/playwright/specs/rollout.spec.mjs, printing the render time, never
  // asserting it) once the engine runs rollouts and a deploy can have one.
  it("draws 500 targets × 10 waves as 5,000 small cells in their batches", { timeout: 60_000 }, () => {
    render(<RolloutPanel rollout={fleet(10, 500, 50)} />);
    // Selectors, not role queries: computing 5,000 accessible roles is the
    // slow part of the test, not of the page.
    const list = wavesList();
    const cells = [...list.querySelectorAll('[role="img"]')];
    expect(cells).toHaveLength(5000);
    // One element per cell: no markup inside a target.
    expect(cells.every((c) => c.childElementCount === 0)).toBe(true);
    const waves = [...list.querySelectorAll(":scope > li")];
    expect(waves.map((w) => w.getAttribute("aria-label"))).toEqual(Array.from({ length: 10 }, (_, i) => `Wave ${i + 1} of 10: w${i + 1}, ${i === 0 ? "Passed" : i === 1 ? "Running" : "Not started"}`));
    for (const w of waves) {
      const batches = [...w.querySelectorAll('[role="group"]')];
      expect(batches.map((b) => b.querySelectorAll('[role="img"]').length)).toEqual(Array(10).fill(50));
    }
    expect(waves[0]).toHaveTextContent("500/500 targets");
    expect(waves.filter((w) => w.getAttribute("aria-current") === "step")).toHaveLength(1);
  });
});
