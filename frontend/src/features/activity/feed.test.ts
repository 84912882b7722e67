import { describe, expect, it } from "vitest";
import type { ActivityDeploymentFragment, DeploymentState } from "../../gql/graphql";
import { applyEvent, applySnapshot, recentLimit, split, type Feed } from "./feed";

function d(id: string, state: DeploymentState, updatedAt = "2026-11-30T10:00:00Z", createdAt = "2026-11-30T09:00:00Z"): ActivityDeploymentFragment {
  return {
    id,
    tenant: "demo",
    application: "hello",
    environment: "staging",
    state,
    requester: "token:demo-ci",
    createdAt,
    startedAt: null,
    finishedAt: state === "SUCCESS" || state === "ERROR" ? updatedAt : null,
    updatedAt,
    startAt: null,
    dryRun: false,
    artifact: { name: "hello", version: "1.0.0" },
    currentStep: null,
    error: null,
    plan: { steps: [] },
    steps: [],
  };
}

describe("activity feed", () => {
  it("takes an event unless it is older than what it shows", () => {
    let feed: Feed = new Map();
    feed = applyEvent(feed, d("a", "ENQUEUED", "2026-11-30T10:00:00Z"));
    feed = applyEvent(feed, d("a", "PENDING", "2026-11-30T10:00:01Z"));
    feed = applyEvent(feed, d("a", "ENQUEUED", "2026-11-30T10:00:00.500Z")); // late, out of order
    expect(feed.get("a")?.state).toBe("PENDING");
    feed = applyEvent(feed, d("a", "SUCCESS", "2026-11-30T10:00:02Z"));
    expect(split(feed)).toMatchObject({ active: [], finished: [{ id: "a", state: "SUCCESS" }] });
  });

  it("puts running deploys before waiting ones", () => {
    let feed: Feed = new Map();
    feed = applyEvent(feed, d("waits", "ENQUEUED", undefined, "2026-11-30T09:59:00Z"));
    feed = applyEvent(feed, d("runs", "PENDING", undefined, "2026-11-30T09:00:00Z"));
    expect(split(feed).active.map((x) => x.id)).toEqual(["runs", "waits"]);
  });

  it("drops a deploy shown as active that a fresh read no longer lists", () => {
    let feed: Feed = new Map();
    feed = applyEvent(feed, d("gone", "PENDING"));
    feed = applyEvent(feed, d("stays", "PENDING"));
    feed = applyEvent(feed, d("done", "SUCCESS"));
    feed = applySnapshot(feed, [d("stays", "PENDING", "2026-11-30T10:00:05Z")], []);
    expect([...feed.keys()].sort()).toEqual(["done", "stays"]);
  });

  it("keeps a bounded number of finished deploys", () => {
    let feed: Feed = new Map();
    for (let i = 0; i < recentLimit + 10; i++) {
      const t = new Date(Date.parse("2026-11-30T10:00:00Z") + i * 1000).toISOString();
      feed = applyEvent(feed, d(`d${i}`, "SUCCESS", t));
    }
    expect(feed.size).toBe(recentLimit);
    expect(split(feed).finished[0]?.id).toBe(`d${recentLimit + 9}`);
  });
});
