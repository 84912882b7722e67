import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Provider, type Client } from "urql";
import { fromValue } from "wonka";
import { describe, expect, it, vi } from "vitest";
import { RolloutActions, type RolloutActionsProps } from "./RolloutActions";

function fakeClient(answer: (vars: Record<string, unknown>) => unknown) {
  const executeMutation = vi.fn((op: { variables: Record<string, unknown>; query: unknown }) => fromValue(answer(op.variables)));
  return { client: { executeMutation } as unknown as Client, executeMutation };
}

const none = { canPause: false, canResume: false, canAbort: false };

function renderActions(client: Client, props: Partial<RolloutActionsProps>) {
  return render(
    <Provider value={client}>
      <RolloutActions id="hello-7" title="hello → prod" rollout={{ state: "RUNNING", request: null }} {...none} {...props} />
    </Provider>,
  );
}

/** The operation name a mutation call sent. */
function opName(call: unknown[]): string {
  const op = call[0] as { query: { definitions: Array<{ name?: { value: string } }> } };
  return op.query.definitions[0]?.name?.value ?? "";
}

describe("RolloutActions", () => {
  it("shows no action to a viewer", () => {
    const { client } = fakeClient(() => ({}));
    renderActions(client, {});
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("offers only what the server allows now", () => {
    const { client } = fakeClient(() => ({}));
    renderActions(client, { rollout: { state: "PAUSED", request: null }, canResume: true, canAbort: true });
    expect(screen.getByRole("button", { name: "Resume…" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Abort…" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Pause…" })).toBeNull();
  });

  it("says a pause is on its way, to anyone who reads the deploy", () => {
    const { client } = fakeClient(() => ({}));
    renderActions(client, { rollout: { state: "RUNNING", request: { action: "PAUSE", by: "oidc:ana", at: "2026-11-30T10:00:00Z" } } });
    expect(screen.getByRole("status").textContent).toBe("Pause requested: it takes effect after the batch in flight (by oidc:ana).");
  });

  it("aborts only after the confirmation, with the reason", async () => {
    const { client, executeMutation } = fakeClient(() => ({ data: { abortRollout: { id: "hello-7" } } }));
    renderActions(client, { canPause: true, canAbort: true });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Abort…" }));
    expect(executeMutation).not.toHaveBeenCalled();
    expect(screen.getByText(/every batch done is rolled back/)).toBeTruthy();
    await user.type(screen.getByLabelText("Reason (in the deploy's error and the audit log)"), "latency regression");
    await user.click(screen.getByRole("button", { name: "Abort rollout" }));
    expect(executeMutation).toHaveBeenCalledTimes(1);
    expect(opName(executeMutation.mock.calls[0]!)).toBe("AbortRollout");
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-7", reason: "latency regression" });
  });

  it("resumes with the comment, and a refusal stays in the dialog", async () => {
    const { client, executeMutation } = fakeClient(() => ({
      error: { message: "the rollout is not paused", graphQLErrors: [{ message: "its rollout is not paused: running", extensions: { code: "CONFLICT" } }] },
    }));
    renderActions(client, { rollout: { state: "PAUSED", request: null }, canResume: true });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Resume…" }));
    await user.type(screen.getByLabelText("Comment (kept in the audit log)"), "dashboards are fine");
    await user.click(screen.getByRole("button", { name: "Resume rollout" }));
    expect(opName(executeMutation.mock.calls[0]!)).toBe("ResumeRollout");
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-7", comment: "dashboards are fine", pause: null });
    expect(screen.getByRole("button", { name: "Resume rollout" })).toBeTruthy();
  });

  it("resumes the pause it was shown, not one that began since", async () => {
    const { client, executeMutation } = fakeClient(() => ({ data: { resumeRollout: { id: "hello-7" } } }));
    const paused = (step: string) => ({
      state: "PAUSED" as const,
      request: null,
      pause: { step, reason: "wave one could not be judged by its gates", since: "2026-11-30T10:00:00Z", until: "2026-12-01T10:00:00Z", by: null, mayResume: [] },
    });
    const view = renderActions(client, { rollout: paused("pause[1/1]"), canResume: true });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Resume…" }));
    // The rollout resumed by someone else and paused again while the dialog was open.
    view.rerender(
      <Provider value={client}>
        <RolloutActions id="hello-7" title="hello → prod" rollout={paused("pause[2/1]")} {...none} canResume />
      </Provider>,
    );
    await user.click(screen.getByRole("button", { name: "Resume rollout" }));
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-7", comment: "", pause: "pause[1/1]" });
  });

  it("pauses with the reason", async () => {
    const { client, executeMutation } = fakeClient(() => ({ data: { pauseRollout: { id: "hello-7" } } }));
    renderActions(client, { canPause: true });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Pause…" }));
    await user.click(screen.getByRole("button", { name: "Pause rollout" }));
    expect(opName(executeMutation.mock.calls[0]!)).toBe("PauseRollout");
    expect(executeMutation.mock.calls[0]![0].variables).toEqual({ id: "hello-7", reason: "" });
  });
});
