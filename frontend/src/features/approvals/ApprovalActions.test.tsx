import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Provider, type Client } from "urql";
import { fromValue } from "wonka";
import { describe, expect, it, vi } from "vitest";
import { ApprovalActions } from "./ApprovalActions";

function fakeClient(answer: (vars: Record<string, unknown>) => unknown) {
  const executeMutation = vi.fn((op: { variables: Record<string, unknown> }) => fromValue(answer(op.variables)));
  return { client: { executeMutation } as unknown as Client, executeMutation };
}

describe("ApprovalActions", () => {
  it("shows no buttons to one who may not answer", () => {
    const { client } = fakeClient(() => ({}));
    render(
      <Provider value={client}>
        <ApprovalActions id="hello-1" title="hello → prod" visible={false} />
      </Provider>,
    );
    expect(screen.queryByRole("button", { name: "Approve…" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Reject…" })).toBeNull();
  });

  it("approves with the comment after the confirmation", async () => {
    const { client, executeMutation } = fakeClient(() => ({ data: { approveDeployment: { id: "hello-1" } } }));
    const answered = vi.fn();
    render(
      <Provider value={client}>
        <ApprovalActions id="hello-1" title="hello → prod" visible onAnswered={answered} />
      </Provider>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Approve…" }));
    expect(executeMutation).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText("Comment (kept in the audit log)"), "release notes read");
    await user.click(screen.getByRole("button", { name: "Approve deploy" }));
    expect(executeMutation).toHaveBeenCalledTimes(1);
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-1", comment: "release notes read" });
    expect(answered).toHaveBeenCalled();
  });

  it("names the wave and the release when the approval asked is a wave's", async () => {
    const { client, executeMutation } = fakeClient(() => ({ data: { approveDeployment: { id: "hello-1" } } }));
    render(
      <Provider value={client}>
        <ApprovalActions id="hello-1" title="hello → prod" visible wave={{ name: "eu", release: "hello-1.2.0" }} />
      </Provider>,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Approve…" }));
    const dialog = screen.getByRole("dialog", { name: "Approve wave eu of hello-1.2.0?" });
    expect(dialog.textContent).toContain("The wave eu of hello-1.2.0 starts once every approval it needs is given.");
    expect(dialog.textContent).not.toMatch(/deploy/i);
    await user.click(screen.getByRole("button", { name: "Approve wave eu" }));
    expect(executeMutation).toHaveBeenCalledTimes(1);
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-1", comment: "" });

    await user.click(screen.getByRole("button", { name: "Reject…" }));
    const reject = screen.getByRole("dialog", { name: "Reject wave eu of hello-1.2.0?" });
    expect(reject.textContent).toContain("the rollout aborts");
    expect(screen.getByRole("button", { name: "Reject wave eu" })).toBeTruthy();
  });
});
