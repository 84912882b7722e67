import { describe, expect, it } from "vitest";
import type { DeploymentState, WallDeploymentFragment } from "../../gql/graphql";
import { applyEvent, columns, emptyBoard, failedStep, fromSnapshot, waitFigure, windowFromSearch } from "./board";

const now = Date.parse("2026-11-30T12:00:00Z");
const min = 60_000;
const hour = 60 * min;

function d(id: string, state: DeploymentState, finishedAgoMs: number | null = null, patch: Partial<WallDeploymentFragment> = {}): WallDeploymentFragment {
  const finished = finishedAgoMs === null ? null : new Date(now - finishedAgoMs).toISOString();
  return {
    id,
    tenant: "demo",
    application: "hello",
    environment: "prod",
    state,
    requester: "token:demo-ci",
    createdAt: "2026-11-30T11:00:00Z",
    startedAt: null,
    finishedAt: finished,
    updatedAt: finished ?? "2026-11-30T11:00:00Z",
    startAt: null,
    dryRun: false,
    artifact: { version: "1.0.0" },
    currentStep: null,
    error: null,
    plan: { steps: [{ name: "deploy", maxRetries: 2 }] },
    steps: state === "ERROR" ? [{ name: "deploy", state: "ERROR", kind: "RUN", position: 0, attempts: 1, error: "exit 1" }] : [],
    rollout: null,
    ...patch,
  };
}

const ids = (xs: { deployment: WallDeploymentFragment }[]) => xs.map((x) => x.deployment.id);

describe("wall board", () => {
  it("sorts deploys into running, waiting and just failed", () => {
    const board = fromSnapshot(
      [d("r", "PENDING"), d("w", "AWAITING_APPROVAL"), d("q", "ENQUEUED", null, { environment: "staging" })],
      [d("f", "ERROR", 10 * min), d("old", "ERROR", 2 * hour, { environment: "dev" })],
      [],
      now,
      hour,
    );
    const c = columns(board, now, hour);
    expect(c.running.map((x) => x.id)).toEqual(["r"]);
    expect(c.waiting.map((x) => x.id).sort()).toEqual(["q", "w"]);
    expect(ids(c.failed)).toEqual(["f"]);
    expect(failedStep(c.failed[0]!.deployment)).toBe("deploy");
  });

  it("forgets what it no longer shows, so that it can run for days", () => {
    let board = fromSnapshot([d("r", "PENDING")], [], [], now, hour);
    board = applyEvent(board, d("r", "SUCCESS", 0, { environment: "dev" }), now, hour);
    expect(board.deploys.size).toBe(0);
    board = applyEvent(board, d("f", "ERROR", 0), now, hour);
    expect(board.deploys.size).toBe(1);
    // An hour and a minute later, the next event sweeps the failure and the recovery of dev away.
    board = applyEvent(board, d("x", "PENDING"), now + hour + min, hour);
    expect([...board.deploys.keys()]).toEqual(["x"]);
    expect(board.recovered.size).toBe(0);
  });

  it("shows one card per application and environment, the latest failure, counted", () => {
    let board = emptyBoard();
    for (const [id, ago] of [
      ["f1", 30 * min],
      ["f2", 20 * min],
      ["f3", 5 * min],
    ] as const) {
      board = applyEvent(board, d(id, "ERROR", ago), now, hour);
    }
    board = applyEvent(board, d("s1", "ERROR", 8 * min, { environment: "staging" }), now, hour);
    const { failed } = columns(board, now, hour);
    expect(failed.map((c) => [c.deployment.id, c.failures])).toEqual([
      ["f3", 3],
      ["s1", 1],
    ]);
  });

  it("clears a failure once its application succeeds there, live", () => {
    let board = fromSnapshot([], [d("f1", "ERROR", 20 * min), d("f2", "ERROR", 10 * min)], [], now, hour);
    expect(ids(columns(board, now, hour).failed)).toEqual(["f2"]);
    // A dry run puts nothing in service; another environment is another place.
    board = applyEvent(board, d("dry", "SUCCESS", 5 * min, { dryRun: true }), now, hour);
    board = applyEvent(board, d("other", "SUCCESS", 5 * min, { environment: "staging" }), now, hour);
    expect(ids(columns(board, now, hour).failed)).toEqual(["f2"]);
    board = applyEvent(board, d("fix", "SUCCESS", 2 * min), now, hour);
    expect(columns(board, now, hour).failed).toEqual([]);
    // Failing again after the recovery is news.
    board = applyEvent(board, d("f3", "ERROR", min), now, hour);
    expect(columns(board, now, hour).failed.map((c) => [c.deployment.id, c.failures])).toEqual([["f3", 1]]);
  });

  it("after a reload, knows from the inventory which places have recovered", () => {
    const failures = [d("f1", "ERROR", 30 * min), d("s1", "ERROR", 20 * min, { environment: "staging" })];
    const board = fromSnapshot([], failures, [
      { tenant: "demo", application: "hello", environment: "prod", deployedAt: new Date(now - 10 * min).toISOString() },
      { tenant: "demo", application: "hello", environment: "staging", deployedAt: new Date(now - 3 * hour).toISOString() },
      { tenant: "demo", application: "hello", environment: "dev", deployedAt: null },
    ], now, hour);
    expect(ids(columns(board, now, hour).failed)).toEqual(["s1"]);
  });

  it("counts down to the start of a DELAYED deploy, and up for other waits", () => {
    const delayed = d("later", "DELAYED", null, { startAt: new Date(now + 2 * hour + 5 * min).toISOString() });
    expect(waitFigure(delayed, now)).toEqual({ kind: "starts", ms: 2 * hour + 5 * min });
    expect(waitFigure(delayed, now + 3 * hour)).toEqual({ kind: "starts", ms: 0 });
    expect(waitFigure(d("w", "AWAITING_APPROVAL"), now)).toEqual({ kind: "waited", ms: hour });
  });

  it("reads the failure window from ?window= in minutes", () => {
    expect(windowFromSearch("")).toBe(hour);
    expect(windowFromSearch("?window=90")).toBe(90 * min);
    expect(windowFromSearch("?window=-3")).toBe(hour);
  });
});
