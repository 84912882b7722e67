import { describe, expect, it } from "vitest";
import type { DeploymentState, RolloutState, WaveState } from "../../gql/graphql";
import {
  approvalStatusLabel,
  approvalStatusTone,
  approvedCount,
  askedApproval,
  badgeCount,
  badgeText,
  canAnswer,
  explainDecision,
  missingApprovals,
  sortInbox,
  type ApprovalItem,
} from "./inbox";

function item(id: string, over: Partial<ApprovalItem> = {}, state: DeploymentState = "AWAITING_APPROVAL"): ApprovalItem {
  return {
    id,
    tenant: "demo",
    application: "hello",
    environment: "prod",
    state,
    requester: "token:demo-ci",
    createdAt: "2026-11-30T09:00:00Z",
    updatedAt: "2026-11-30T09:00:00Z",
    startAt: null,
    canApprove: true,
    approvalContext: null,
    artifact: { name: "hello", version: "1.0.0" },
    decision: {
      rule: "prod-approval",
      requires: ["approvals"],
      reason: null,
      approvalsRequired: 2,
      approvalGroups: [],
      change: null,
      freeze: null,
      promotionFrom: "staging",
      promotionSatisfiedBy: "hello-1",
    },
    approval: { status: "waiting", required: 2, remaining: 0, groups: [], expiresAt: "2026-12-01T09:00:00Z", approvals: [] },
    rollout: null,
    ...over,
  };
}

type Rollout = NonNullable<ApprovalItem["rollout"]>;
type WaveApproval = Rollout["waves"][number]["approval"];

/** A rollout of canary, eu and rest; rest in the state given, with its approval. */
function rolloutOf(state: RolloutState, rest: WaveState, approval: WaveApproval = null): Rollout {
  return {
    state,
    currentWave: "rest",
    waves: [
      { name: "canary", state: "PASSED", approval: null },
      { name: "eu", state: "PASSED", approval: null },
      { name: "rest", state: rest, approval },
    ],
  };
}

const waveWaiting: WaveApproval = {
  status: "waiting",
  required: 1,
  groups: ["sre"],
  roles: ["approver"],
  expiresAt: "2026-11-30T12:00:00Z",
  approvals: [],
};

/**
 * hello to fleet, whose rollout waits for the approval of its wave rest: the
 * deploy is PENDING (it keeps its slot), its own approval long answered.
 */
function waveItem(id: string, over: Partial<ApprovalItem> = {}): ApprovalItem {
  return item(
    id,
    {
      environment: "fleet",
      approval: { status: "approved", required: 1, remaining: 0, groups: [], expiresAt: "2026-11-30T10:00:00Z", approvals: [{ identity: "token:a", approved: true, comment: "", time: "2026-11-30T09:01:00Z" }] },
      rollout: rolloutOf("AWAITING_APPROVAL", "AWAITING_APPROVAL", waveWaiting),
      ...over,
    },
    "PENDING",
  );
}

describe("approvals inbox", () => {
  it.each([
    ["waiting", "waiting", "Waiting"],
    ["approved", "success", "Approved"],
    ["rejected", "danger", "Rejected"],
    ["expired", "danger", "Expired"],
    ["cancelled", "neutral", "Cancelled"],
    ["someday-new", "neutral", "Someday-new"],
  ])("shows approval status %s with tone %s as %s", (status, tone, label) => {
    expect(approvalStatusTone(status)).toBe(tone);
    expect(approvalStatusLabel(status)).toBe(label);
  });

  it("counts in the badge only the deploys the viewer may still answer", () => {
    expect(badgeCount([])).toBe(0);
    expect(badgeCount([item("a"), item("b")])).toBe(2);
    expect(badgeCount([item("a"), item("b", { canApprove: false }), item("c", {}, "ENQUEUED")])).toBe(1);
  });

  it("shows no badge at zero and caps long counts", () => {
    expect(badgeText(0)).toBeUndefined();
    expect(badgeText(3)).toBe("3");
    expect(badgeText(120)).toBe("99+");
  });

  it.each([
    ["waiting and allowed", true, "AWAITING_APPROVAL", null, true],
    ["not allowed (the requester, answered, no permission)", false, "AWAITING_APPROVAL", null, false],
    ["approved and enqueued", true, "ENQUEUED", null, false],
    ["rejected", true, "REJECTED", null, false],
    ["expired", true, "EXPIRED", null, false],
    ["a wave awaits approval, allowed", true, "PENDING", rolloutOf("AWAITING_APPROVAL", "AWAITING_APPROVAL", waveWaiting), true],
    ["a wave awaits approval, not allowed", false, "PENDING", rolloutOf("AWAITING_APPROVAL", "AWAITING_APPROVAL", waveWaiting), false],
    ["the rollout runs its wave", true, "PENDING", rolloutOf("RUNNING", "RUNNING"), false],
    ["the rollout is paused", true, "PENDING", rolloutOf("PAUSED", "PAUSED"), false],
    ["the deploy ended while the wave waited", true, "ERROR", rolloutOf("AWAITING_APPROVAL", "AWAITING_APPROVAL", waveWaiting), false],
  ] as const)("shows the buttons when %s: %s", (_, canApprove, state, rollout, want) => {
    expect(canAnswer({ canApprove, state, rollout })).toBe(want);
  });

  it("counts a wave awaiting approval in the badge, as the server lists it", () => {
    expect(badgeCount([waveItem("w")])).toBe(1);
    expect(badgeCount([waveItem("w"), item("a"), waveItem("x", { canApprove: false })])).toBe(2);
  });

  it("reads the approval asked: the deploy's own, or the wave's", () => {
    expect(askedApproval(item("a"))).toEqual({ wave: null, approval: item("a").approval });
    expect(askedApproval(waveItem("w"))).toEqual({ wave: { name: "rest", index: 3, total: 3 }, approval: waveWaiting });
    expect(askedApproval(item("b", { rollout: rolloutOf("RUNNING", "RUNNING") }, "PENDING"))).toBeNull();
  });

  it("explains a wave's approval: the wave, the rule, what the wave needs, and not the deploy's conditions", () => {
    const d = waveItem("w", { decision: { ...item("w").decision, change: "servicenow", freeze: "sunday" } });
    const asked = askedApproval(d)!;
    expect(explainDecision({ decision: d.decision, approval: asked.approval }, asked.wave)).toEqual([
      "Wave rest (3 of 3) of the rollout waits for approval before it starts.",
      "Rule prod-approval matched.",
      "Requires 1 approval by an identity other than the requester, from group sre or role approver.",
      "0 of 1 approved so far; 1 more approval needed.",
    ]);
  });

  it("counts one identity's approvals once and a rejection never", () => {
    const d = item("a", {
      approval: {
        status: "waiting",
        required: 3,
        remaining: 0,
        groups: [],
        expiresAt: null,
        approvals: [
          { identity: "token:a", approved: true, comment: "", time: "2026-11-30T09:01:00Z" },
          { identity: "token:a", approved: true, comment: "", time: "2026-11-30T09:02:00Z" },
          { identity: "token:b", approved: false, comment: "no", time: "2026-11-30T09:03:00Z" },
        ],
      },
    });
    expect(approvedCount(d)).toBe(1);
    expect(missingApprovals(d)).toBe(2);
    expect(missingApprovals(item("b", { approval: null }))).toBe(0);
  });

  it("explains the decision: rule, requirement, promotion, freeze and progress", () => {
    const d = item("a", {
      decision: { ...item("a").decision, freeze: "sunday", change: "servicenow", approvalsRequired: 1, approvalGroups: ["ops"] },
      approval: {
        status: "waiting",
        required: 1,
        remaining: 0,
        groups: ["ops"],
        expiresAt: null,
        approvals: [],
      },
    });
    expect(explainDecision(d)).toEqual([
      "Rule prod-approval matched.",
      "Requires 1 approval by an identity other than the requester, from group ops.",
      "Requires an approved change ticket (servicenow).",
      "Promotion from staging satisfied by hello-1.",
      "Accepted during freeze window sunday with an override.",
      "0 of 1 approved so far; 1 more approval needed.",
    ]);
    const two = item("b", {
      approval: { ...item("b").approval!, approvals: [{ identity: "token:x", approved: true, comment: "", time: "2026-11-30T09:01:00Z" }] },
    });
    expect(explainDecision(two)).toContain("Requires 2 approvals by identities other than the requester.");
    expect(explainDecision(two)).toContain("1 of 2 approved so far; 1 more approval needed.");
  });

  it("lists first what expires first", () => {
    const late = item("late", { approval: { ...item("x").approval!, expiresAt: "2026-12-02T00:00:00Z" } });
    const soon = item("soon", { approval: { ...item("x").approval!, expiresAt: "2026-12-01T00:00:00Z" } });
    const never = item("never", { approval: null });
    expect(sortInbox([never, late, soon]).map((d) => d.id)).toEqual(["soon", "late", "never"]);
    // A wave's approval expires when the wave's says, not when the deploy's did.
    const wave = waveItem("wave", { rollout: rolloutOf("AWAITING_APPROVAL", "AWAITING_APPROVAL", { ...waveWaiting!, expiresAt: "2026-12-03T00:00:00Z" }) });
    expect(sortInbox([late, wave, soon]).map((d) => d.id)).toEqual(["soon", "late", "wave"]);
  });
});

describe("explainDecision beside the server's explanation", () => {
  it("keeps only the count so far", () => {
    const d = {
      decision: { rule: "hello-prod", requires: [], reason: "raw text", approvalsRequired: 1, approvalGroups: null, change: null, freeze: null, promotionFrom: "staging", promotionSatisfiedBy: "hello-staging-1" },
      approval: { status: "waiting", required: 1, remaining: 1, groups: [], expiresAt: null, approvals: [] },
    };
    expect(explainDecision(d, null, true)).toEqual(["0 of 1 approved so far; 1 more approval needed."]);
    expect(explainDecision(d, null, false)).toContain("Rule hello-prod matched: raw text");
  });
});
