import { describe, expect, it } from "vitest";
import type { DeploymentState, WallDeploymentFragment } from "../../gql/graphql";
import { applyEvent, columns, failedStep, fromSnapshot, windowFromSearch } from "./board";

const now = Date.parse("2026-11-30T12:00:00Z");
const hour = 3_600_000;

function d(id: string, state: DeploymentState, finishedAgoMs: number | null = null): WallDeploymentFragment {
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
    artifact: { version: "1.0.0" },
    currentStep: null,
    error: null,
    plan: { steps: [{ name: "deploy", maxRetries: 2 }] },
    steps: state === "ERROR" ? [{ name: "deploy", state: "ERROR", kind: "RUN", position: 0, attempts: 1, error: "exit 1" }] : [],
  };
}

describe("wall board", () => {
  it("sorts deploys into running, waiting and just failed", () => {
    const board = fromSnapshot([d("r", "PENDING"), d("w", "AWAITING_APPROVAL"), d("q", "ENQUEUED")], [d("f", "ERROR", 10 * 60_000), d("old", "ERROR", 2 * hour)], now, hour);
    const c = columns(board, now, hour);
    expect(c.running.map((x) => x.id)).toEqual(["r"]);
    expect(c.waiting.map((x) => x.id).sort()).toEqual(["q", "w"]);
    expect(c.failed.map((x) => x.id)).toEqual(["f"]);
    expect(failedStep(c.failed[0]!)).toBe("deploy");
  });

  it("forgets what it no longer shows, so that it can run for days", () => {
    let board = fromSnapshot([d("r", "PENDING")], [], now, hour);
    board = applyEvent(board, d("r", "SUCCESS", 0), now, hour);
    expect(board.size).toBe(0);
    board = applyEvent(board, d("f", "ERROR", 0), now, hour);
    expect(board.size).toBe(1);
    // An hour and a minute later, the next event sweeps the failure away.
    board = applyEvent(board, d("x", "PENDING"), now + hour + 60_000, hour);
    expect([...board.keys()]).toEqual(["x"]);
  });

  it("reads the failure window from ?window= in minutes", () => {
    expect(windowFromSearch("")).toBe(hour);
    expect(windowFromSearch("?window=90")).toBe(90 * 60_000);
    expect(windowFromSearch("?window=-3")).toBe(hour);
  });
});
