import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { StateBadge } from "./StateBadge";
import { failedStates, isFinal } from "./states";

describe("StateBadge", () => {
  it.each([
    ["PENDING", "Running", "running"],
    ["ENQUEUED", "Enqueued", "waiting"],
    ["AWAITING_APPROVAL", "Awaiting approval", "waiting"],
    ["SUCCESS", "Success", "success"],
    ["ERROR", "Error", "danger"],
    ["CANCELLED", "Cancelled", "neutral"],
    ["MAX_RECOVERY_ATTEMPTS_EXCEEDED", "Recovery exhausted", "danger"],
  ] as const)("shows %s as a word, not a colour alone", (state, label, tone) => {
    render(<StateBadge state={state} />);
    const badge = screen.getByText(label);
    expect(badge).toHaveAttribute("data-tone", tone);
    expect(badge).toHaveAttribute("data-state", state);
    // The raw state name, as the CLI prints it, is in the tooltip.
    expect(badge.getAttribute("title")).toMatch(new RegExp(`^${state}: `));
  });

  it("pulses only while running", () => {
    const { rerender } = render(<StateBadge state="PENDING" />);
    expect(screen.getByText("Running")).toHaveAttribute("data-live", "true");
    rerender(<StateBadge state="SUCCESS" />);
    expect(screen.getByText("Success")).not.toHaveAttribute("data-live");
  });

  it("speaks the step vocabulary for steps", () => {
    render(
      <>
        <StateBadge state="RUNNING" kind="step" />
        <StateBadge state="PENDING" kind="step" />
        <StateBadge state="SKIPPED" kind="step" />
      </>,
    );
    expect(screen.getByText("Running")).toHaveAttribute("data-tone", "running");
    expect(screen.getByText("Not started")).toHaveAttribute("data-tone", "neutral");
    expect(screen.getByText("Skipped")).toHaveAttribute("data-tone", "neutral");
  });

  it.each([
    ["RUNNING", "Rolling back", "running"],
    ["COMPLETED", "Rollback completed", "success"],
    ["FAILED", "Rollback failed", "danger"],
    ["NOT_NEEDED", "No rollback needed", "neutral"],
    ["DISABLED", "Rollback disabled", "neutral"],
  ] as const)("names the rollback outcome %s on its own", (state, label, tone) => {
    render(<StateBadge state={state} kind="rollback" />);
    const badge = screen.getByText(label);
    expect(badge).toHaveAttribute("data-tone", tone);
    expect(badge).toHaveAttribute("data-state", state);
  });

  it("classifies final and failed states as the spec does", () => {
    expect(failedStates.sort()).toEqual(["DEPENDENCY_FAILED", "ERROR", "EXPIRED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED", "REJECTED"]);
    expect(isFinal("CANCELLED")).toBe(true);
    expect(isFinal("PENDING")).toBe(false);
    expect(isFinal("WAITING_DEPENDENCY")).toBe(false);
  });
});
