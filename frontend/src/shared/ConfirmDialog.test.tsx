import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ConfirmDialog } from "./ConfirmDialog";

describe("ConfirmDialog", () => {
  it("is named by its own title when the page holds several", () => {
    const noop = () => {};
    render(
      <>
        <ConfirmDialog open={false} title="" confirmLabel="Abort rollout" onConfirm={noop} onCancel={noop} />
        <ConfirmDialog open title="Approve this deploy?" confirmLabel="Approve deploy" onConfirm={noop} onCancel={noop} />
      </>,
    );
    const dialog = screen.getByRole("dialog", { name: "Approve this deploy?" });
    expect(dialog.textContent).toContain("Approve deploy");
  });
});
