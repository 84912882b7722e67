import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { ApprovalContextViewFragment } from "../../gql/graphql";
import { ApprovalContextPanel, approversText } from "./ApprovalContext";
import { formatAbsolute } from "../../shared/time";
import { answerOutcome } from "./outcome";

const context: ApprovalContextViewFragment = {
  inService: {
    deploymentId: "hello-prod-ab12",
    artifact: { name: "hello", version: "1.0.0" },
    sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    deployedAt: "2026-11-30T09:00:00Z",
    deployedBy: "token:demo-ci",
  },
  proposed: { name: "hello", version: "1.1.0" },
  proposedSha256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
  promotionEvidence: [{ environment: "staging", deploymentId: "hello-staging-b2d1de04", version: "1.1.0", finishedAt: "2026-11-30T10:00:00Z" }],
  explanation: "needs 1 approval from an identity other than the requester; staging must have run 1.1.0 successfully — it did: hello-staging-b2d1de04",
  approvers: { required: 1, groups: ["sre"], roles: ["approver"], holders: ["role:admin", "token:demo-admin"], excluded: "token:demo-ci" },
};

describe("ApprovalContextPanel", () => {
  it("shows what is in service against what is proposed, the evidence as links, the rule in words and who may approve", () => {
    render(
      <MemoryRouter>
        <ApprovalContextPanel context={context} />
      </MemoryRouter>,
    );
    const current = screen.getByTestId("approval-current");
    expect(within(current).getByRole("link", { name: "hello 1.0.0" })).toHaveAttribute("href", "/deployments/hello-prod-ab12");
    expect(current).toHaveTextContent("sha256 9f86d081884c");
    expect(current).toHaveTextContent("deployed by token:demo-ci");
    const proposed = screen.getByTestId("approval-proposed");
    expect(proposed).toHaveTextContent("hello 1.1.0");
    expect(proposed).toHaveTextContent("sha256 2c26b46b68ff");
    const evidence = screen.getByRole("list", { name: "Promotion evidence" });
    expect(within(evidence).getByRole("link", { name: "hello-staging-b2d1de04" })).toHaveAttribute("href", "/deployments/hello-staging-b2d1de04");
    expect(screen.getByTestId("approval-explanation")).toHaveTextContent(context.explanation);
    expect(screen.getByTestId("approval-approvers")).toHaveTextContent(
      "Who may approve: 1 approval from an identity other than token:demo-ci, in group sre or role approver. Holders of deployment.approve here: role:admin, token:demo-admin.",
    );
  });

  it("says when nothing is in service and the digest is not known yet", () => {
    render(
      <MemoryRouter>
        <ApprovalContextPanel context={{ ...context, inService: null, proposedSha256: null, promotionEvidence: [] }} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId("approval-current")).toHaveTextContent("nothing in service");
    expect(screen.getByTestId("approval-proposed")).toHaveTextContent("digest not known yet");
    expect(screen.queryByRole("list", { name: "Promotion evidence" })).toBeNull();
  });

  it.each([
    [{ required: 1, groups: [], roles: [], holders: [], excluded: "token:ci" }, "1 approval from an identity other than token:ci."],
    [{ required: 2, groups: ["sre", "ops"], roles: [], holders: [], excluded: "oidc:ann" }, "2 approvals from distinct identities other than oidc:ann, in group sre or group ops."],
  ])("words the approvers %#", (approvers, want) => {
    expect(approversText(approvers)).toBe(want);
  });
});

describe("answerOutcome", () => {
  const own = (status: string, remaining: number) => ({ approval: { status, remaining }, rollout: null });
  const waveAnswer = (status: string, required: number, approved: number) => ({
    approval: null,
    rollout: { waves: [{ name: "eu", approval: { status, required, approvals: Array.from({ length: approved }, () => ({ approved: true })) } }] },
  });
  it.each([
    ["one more needed", own("waiting", 1), false, undefined, "Your approval counts: 1 more approval needed before the deploy starts."],
    ["two more needed", own("waiting", 2), false, undefined, "Your approval counts: 2 more approvals needed before the deploy starts."],
    ["approved", own("approved", 0), false, undefined, "Approved: the deploy joins the queue: it starts when no other deploy runs there."],
    [
      "approved, in its environment",
      { ...own("approved", 0), environment: "prod", state: "AWAITING_APPROVAL" },
      false,
      undefined,
      "Approved: the deploy joins the queue of prod: it starts when no other deploy runs there.",
    ],
    [
      "approved, with a change ticket to open",
      { ...own("approved", 0), environment: "prod", decision: { change: "servicenow" } },
      false,
      undefined,
      "Approved: the deploy joins the queue of prod: it starts when no other deploy runs there. It then opens a change ticket in servicenow: nothing runs until the ticket is approved.",
    ],
    [
      "approved, scheduled later",
      { ...own("approved", 0), environment: "prod", startAt: "2999-01-01T10:00:00Z" },
      false,
      undefined,
      `Approved: the deploy waits until ${formatAbsolute("2999-01-01T10:00:00Z")} (its schedule), then joins the queue of prod: it starts when no other deploy runs there.`,
    ],
    [
      "approved, its time past",
      { ...own("approved", 0), environment: "prod", startAt: "2001-01-01T10:00:00Z" },
      false,
      undefined,
      "Approved: the deploy joins the queue of prod: it starts when no other deploy runs there.",
    ],
    ["approved, already running", { ...own("approved", 0), state: "PENDING" }, false, undefined, "Approved: the deploy is running."],
    ["rejected", own("rejected", 0), true, undefined, "Rejected: the deploy will not run."],
    ["a wave still waiting", waveAnswer("waiting", 2, 1), false, "eu", "Your approval counts: 1 more approval needed before wave eu starts."],
    ["a wave approved", waveAnswer("approved", 1, 1), false, "eu", "Approved: wave eu starts now."],
    ["a wave rejected", waveAnswer("rejected", 1, 0), true, "eu", "Rejected: wave eu will not start; the rollout aborts."],
  ])("%s", (_, answer, rejected, wave, want) => {
    expect(answerOutcome(answer, rejected, wave)).toBe(want);
  });
});
