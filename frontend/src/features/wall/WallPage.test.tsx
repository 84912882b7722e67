import { act, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WallDeploymentFragment } from "../../gql/graphql";
import { fakeApi } from "../../test/fakeApi";
import { WallPage, cardScale } from "./WallPage";

const now = Date.parse("2026-11-30T12:00:00Z");

function deploy(patch: Partial<WallDeploymentFragment>): WallDeploymentFragment {
  return {
    id: "hello-1",
    tenant: "demo",
    application: "hello",
    environment: "prod",
    state: "PENDING",
    requester: "token:demo-ci",
    createdAt: "2026-11-30T11:50:00Z",
    startedAt: "2026-11-30T11:50:00Z",
    finishedAt: null,
    updatedAt: "2026-11-30T11:59:00Z",
    startAt: null,
    dryRun: false,
    artifact: { version: "1.2.0" },
    currentStep: "deploy",
    error: null,
    plan: { steps: ["config", "deploy", "cleanup"].map((name) => ({ name, maxRetries: 7 })) },
    steps: [
      { name: "config", state: "SUCCESS", kind: "RUN", position: 0, attempts: 1, error: null },
      { name: "deploy", state: "RUNNING", kind: "RUN", position: 1, attempts: 3, error: "dial tcp 10.0.0.5:22: connect: connection refused" },
    ],
    rollout: null,
    ...patch,
  };
}

const card = (id: string) => document.querySelector<HTMLElement>(`[data-deployment-id="${id}"]`)!;

describe("WallPage", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(now);
  });
  afterEach(() => vi.useRealTimers());

  it("shows the attempt of a step being retried, when a delayed deploy starts, and one card per failing place", async () => {
    const failed = (id: string, ago: number) =>
      deploy({
        id,
        environment: "staging",
        state: "ERROR",
        finishedAt: new Date(now - ago).toISOString(),
        updatedAt: new Date(now - ago).toISOString(),
        steps: [{ name: "deploy", state: "ERROR", kind: "RUN", position: 1, attempts: 8, error: "exit 1" }],
      });
    const api = fakeApi({
      Wall: () => ({
        activity: [
          deploy({}),
          deploy({ id: "hello-later", environment: "dev", state: "DELAYED", startedAt: null, currentStep: null, steps: [], startAt: "2026-11-30T14:05:00Z" }),
        ],
        failed: { nodes: [failed("hello-s1", 30 * 60_000), failed("hello-s2", 5 * 60_000), deploy({ id: "hello-p0", environment: "test", state: "ERROR", finishedAt: new Date(now - 20 * 60_000).toISOString(), updatedAt: new Date(now - 20 * 60_000).toISOString() })] },
        // test recovered ten minutes ago: its failure has left the wall.
        inService: [{ tenant: "demo", application: "hello", environment: "test", deployedAt: new Date(now - 10 * 60_000).toISOString() }],
      }),
    });
    render(
      <MemoryRouter initialEntries={["/wall"]}>
        <WallPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    await screen.findByRole("heading", { name: /Running/ });

    expect(card("hello-1")).toHaveTextContent("deploy · attempt 3 of 8");
    // A DELAYED deploy counts down to its start, not up from its submission.
    const later = card("hello-later");
    expect(later).toHaveTextContent(/Delayed · starts \d\d:05:00/);
    expect(within(later).getByText("in 2 h 05 min")).toHaveAttribute("data-figure", "starts");

    const failedColumn = screen.getByRole("region", { name: /Just failed/ });
    expect(within(failedColumn).getAllByRole("listitem").map((li) => li.dataset.deploymentId)).toEqual(["hello-s2"]);
    expect(card("hello-s2")).toHaveTextContent("Error in deploy · attempt 8 of 8 · failed 2 times");
    expect(screen.getByText(/1 failed in the last 1 h/)).toBeInTheDocument();

    // The application recovers in staging: its card leaves the wall, live.
    act(() =>
      api.push("WallFeed", {
        activity: { kind: "state", deployment: deploy({ id: "hello-s3", environment: "staging", state: "SUCCESS", finishedAt: new Date(now - 1000).toISOString(), updatedAt: new Date(now - 1000).toISOString(), steps: [] }) },
      }),
    );
    expect(within(failedColumn).queryAllByRole("listitem")).toEqual([]);
    expect(failedColumn).toHaveTextContent("No failure in the last 1 h");
  });
});

describe("WallPage rollouts", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    vi.setSystemTime(now);
  });
  afterEach(() => vi.useRealTimers());

  const at = (s: number) => new Date(now + s * 1000).toISOString();
  const rolling = (patch: Partial<NonNullable<WallDeploymentFragment["rollout"]>> = {}): WallDeploymentFragment["rollout"] => ({
    state: "RUNNING",
    currentWave: "eu",
    targetsTotal: 9,
    targetsDone: 5,
    waves: [
      { name: "canary", state: "PASSED", deferredUntil: null, bake: { until: at(-300) }, batches: [{ state: "SUCCESS" }] },
      { name: "eu", state: "BAKING", deferredUntil: null, bake: { until: at(100) }, batches: [{ state: "SUCCESS" }, { state: "SUCCESS" }] },
      { name: "rest", state: "PENDING", deferredUntil: null, bake: null, batches: [{ state: "PENDING" }] },
    ],
    pause: null,
    ...patch,
  });

  async function renderWall(...activity: WallDeploymentFragment[]) {
    const api = fakeApi({ Wall: () => ({ activity, failed: { nodes: [] }, inService: [] }) });
    render(
      <MemoryRouter initialEntries={["/wall"]}>
        <WallPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    await act(async () => {});
    return api;
  }

  it("shows where a running rollout stands, its bake counting down", async () => {
    await renderWall(deploy({ id: "fleet-1", rollout: rolling() }), deploy({ id: "plain-1", environment: "dev" }));
    const line = card("fleet-1").querySelector("[data-rollout-state]");
    expect(line).toHaveTextContent("wave 2 of 3 · 5/9 targets · baking 1:40");
    act(() => vi.advanceTimersByTime(1005));
    expect(line).toHaveTextContent("wave 2 of 3 · 5/9 targets · baking 1:39");
    // A deploy without rollout has no such line.
    expect(card("plain-1").querySelector("[data-rollout-state]")).toBeNull();
  });

  it.each([
    // 23 h 41 min 10 s before the pause times out into an abort.
    ["paused", { state: "PAUSED" as const, pause: { until: at(85_270) } }, "wave 2 of 3 · 5/9 targets · paused · aborts in 23:41:10"],
    [
      "awaiting the approval of its last wave",
      { state: "AWAITING_APPROVAL" as const, currentWave: "rest", targetsDone: 6 },
      "wave 3 of 3 · 6/9 targets · awaiting approval",
    ],
  ])("says so when %s", async (_, patch, want) => {
    await renderWall(deploy({ id: "fleet-1", rollout: rolling(patch) }));
    expect(card("fleet-1").querySelector("[data-rollout-state]")).toHaveTextContent(want);
  });

  it("counts down the time a pause has left before it aborts", async () => {
    await renderWall(deploy({ id: "fleet-1", rollout: rolling({ state: "PAUSED", pause: { until: at(65) } }) }));
    const line = card("fleet-1").querySelector("[data-rollout-state]");
    expect(line).toHaveTextContent("wave 2 of 3 · 5/9 targets · paused · aborts in 1:05");
    act(() => vi.advanceTimersByTime(1005));
    expect(line).toHaveTextContent("wave 2 of 3 · 5/9 targets · paused · aborts in 1:04");
  });

  it("follows the rollout live", async () => {
    const api = await renderWall(deploy({ id: "fleet-1", rollout: rolling() }));
    act(() =>
      api.push("WallFeed", {
        activity: {
          kind: "step",
          deployment: deploy({
            id: "fleet-1",
            updatedAt: "2026-11-30T11:59:30Z",
            rollout: rolling({
              currentWave: "rest",
              targetsDone: 6,
              waves: [
                { name: "canary", state: "PASSED", deferredUntil: null, bake: null, batches: [{ state: "SUCCESS" }] },
                { name: "eu", state: "PASSED", deferredUntil: null, bake: null, batches: [{ state: "SUCCESS" }] },
                { name: "rest", state: "RUNNING", deferredUntil: null, bake: null, batches: [{ state: "SUCCESS" }, { state: "RUNNING" }, { state: "PENDING" }] },
              ],
            }),
          }),
        },
      }),
    );
    expect(card("fleet-1").querySelector("[data-rollout-state]")).toHaveTextContent("wave 3 of 3 · 6/9 targets · batch 2 of 3");
  });
});

describe("cardScale (the wall's type follows its number of cards)", () => {
  it.each([
    [0, "1"],
    [1, "1"],
    [5, "5"],
    [8, "8"],
    [40, "8"],
  ])("%i cards in the fullest column give --wall-cards %s", (cards, want) => {
    expect((cardScale(cards) as Record<string, string>)["--wall-cards"]).toBe(want);
  });
});
