import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ApprovalSummary } from "./ApprovalSummary";

const decision = {
  rule: "hello-prod",
  requires: ["approvals"],
  reason: null,
  approvalsRequired: 1,
  approvalGroups: [],
  change: null,
  freeze: null,
  promotionFrom: null,
  promotionSatisfiedBy: null,
};

function approval(status: string) {
  return { status, required: 1, groups: [], expiresAt: "2026-12-01T09:00:00Z", approvals: [] };
}

describe("ApprovalSummary", () => {
  it("shows the status the server gives, a cancelled one neutral and not as waiting", () => {
    const { container } = render(<ApprovalSummary deployment={{ decision, approval: approval("cancelled") }} />);
    const badge = screen.getByText("Cancelled").closest(".m-badge");
    expect(badge?.getAttribute("data-tone")).toBe("neutral");
    expect(badge?.getAttribute("data-approval-status")).toBe("cancelled");
    expect(container.textContent).not.toMatch(/waiting|needed|Expires/i);
    expect(container.textContent).toContain("0 of 1 approved so far.");
  });

  it("shows a waiting approval with its expiry and what it still needs", () => {
    const { container } = render(<ApprovalSummary deployment={{ decision, approval: approval("waiting") }} />);
    expect(screen.getByText("Waiting").closest(".m-badge")?.getAttribute("data-tone")).toBe("waiting");
    expect(container.textContent).toContain("1 more approval needed");
    expect(container.textContent).toContain("Expires");
  });

  it("leaves the status out where every deploy waits (the inbox)", () => {
    render(<ApprovalSummary deployment={{ decision, approval: approval("waiting") }} showStatus={false} />);
    expect(screen.queryByText("Waiting")).toBeNull();
  });
});
