import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { ApprovalsPage } from "./ApprovalsPage";
import type { ApprovalItem } from "./inbox";
import { PendingApprovalsProvider } from "./PendingApprovals";

const decision: ApprovalItem["decision"] = {
  rule: null,
  requires: [],
  reason: null,
  approvalsRequired: null,
  approvalGroups: null,
  change: null,
  freeze: null,
  promotionFrom: null,
  promotionSatisfiedBy: null,
};

/**
 * hello to fleet, as pendingApprovals lists it while the last wave of its
 * rollout waits for approval: PENDING, no approval of its own (the
 * governance asked none), the wave's approval waiting for one answer.
 */
const wave: ApprovalItem = {
  id: "hello-fleet-1",
  tenant: "demo",
  application: "hello",
  environment: "fleet",
  state: "PENDING",
  requester: "token:demo-ci",
  createdAt: "2026-11-30T09:00:00Z",
  updatedAt: "2026-11-30T09:05:00Z",
  startAt: null,
  canApprove: true,
  approvalContext: null,
  artifact: { name: "hello", version: "1.0.0" },
  decision,
  approval: null,
  rollout: {
    state: "AWAITING_APPROVAL",
    currentWave: "rest",
    waves: [
      { name: "canary", state: "PASSED", approval: null },
      { name: "eu", state: "PASSED", approval: null },
      {
        name: "rest",
        state: "AWAITING_APPROVAL",
        approval: { status: "waiting", required: 1, groups: [], roles: [], expiresAt: "2026-12-01T09:05:00Z", approvals: [] },
      },
    ],
  },
};

function renderInbox(items: ApprovalItem[]) {
  const api = fakeApi({ PendingApprovals: () => ({ pendingApprovals: items }) });
  render(
    <MemoryRouter>
      <PendingApprovalsProvider>
        <ApprovalsPage />
      </PendingApprovalsProvider>
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
}

describe("ApprovalsPage", () => {
  it("offers Approve and Reject on a wave awaiting approval, counts it, and explains the wave's approval", async () => {
    renderInbox([wave]);
    const list = await screen.findByRole("list", { name: "Deploys awaiting approval" });
    const item = list.querySelector<HTMLElement>('li[data-deployment-id="hello-fleet-1"]')!;
    expect(item).toHaveAttribute("data-approval-wave", "rest");
    expect(within(item).getByRole("button", { name: "Approve…" })).toBeInTheDocument();
    expect(within(item).getByRole("button", { name: "Reject…" })).toBeInTheDocument();
    expect(within(item).getByText("Wave rest (3 of 3) of the rollout waits for approval before it starts.")).toBeInTheDocument();
    expect(within(item).getByText("Requires 1 approval by an identity other than the requester.")).toBeInTheDocument();
    expect(within(item).getByText("0 of 1 approved so far; 1 more approval needed.")).toBeInTheDocument();
    expect(within(item).getByText(/^Expires/)).toBeInTheDocument();
    expect(screen.getByText("1 deploy awaits your approval. Updated live.")).toBeInTheDocument();
  });

  it("shows no button for a wave the viewer may not approve", async () => {
    renderInbox([{ ...wave, canApprove: false }]);
    const list = await screen.findByRole("list", { name: "Deploys awaiting approval" });
    expect(within(list).getByText(/Wave rest \(3 of 3\)/)).toBeInTheDocument();
    expect(within(list).queryByRole("button")).toBeNull();
    expect(screen.getByText("0 deploys await your approval. Updated live.")).toBeInTheDocument();
  });

  it("says what happens next once the viewer approved, as the item leaves the inbox", async () => {
    const own: ApprovalItem = {
      ...wave,
      id: "hello-prod-9",
      environment: "prod",
      state: "AWAITING_APPROVAL",
      rollout: null,
      approval: { status: "waiting", required: 2, remaining: 2, groups: [], expiresAt: null, approvals: [] },
    };
    let answered = false;
    const api = fakeApi({
      PendingApprovals: () => ({ pendingApprovals: answered ? [] : [own] }),
      ApproveDeployment: () => {
        answered = true;
        return {
          approveDeployment: {
            ...own,
            canApprove: false,
            approval: { ...own.approval!, remaining: 1, approvals: [{ identity: "token:demo-admin", approved: true, comment: "", time: "2026-12-01T09:00:00Z" }] },
          },
        };
      },
    });
    render(
      <MemoryRouter>
        <PendingApprovalsProvider>
          <ApprovalsPage />
        </PendingApprovalsProvider>
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Approve…" }));
    await user.click(within(screen.getByRole("dialog", { name: "Approve this deploy?" })).getByRole("button", { name: "Approve deploy" }));
    const answers = await screen.findByRole("list", { name: "Your answers" });
    expect(within(answers).getByText(/Your approval counts: 1 more approval needed before the deploy starts\./)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole("list", { name: "Deploys awaiting approval" })).toBeNull());
  });
});
