import { render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StepsTimeline } from "./StepsTimeline";
import type { StepLike } from "./timeline";

const plan = [
  { name: "config", type: "config", maxRetries: 0 },
  { name: "artifacts", type: "artifacts", maxRetries: 3 },
  { name: "deploy", type: "deploy", maxRetries: 2 },
  { name: "post-test", type: "post-test", maxRetries: 2 },
];

function step(s: Partial<StepLike> & Pick<StepLike, "name" | "state">): StepLike {
  return {
    kind: "RUN",
    position: 0,
    type: s.name,
    attempts: 1,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    output: [],
    error: null,
    ...s,
  };
}

const names = (list: HTMLElement) => within(list).getAllByRole("listitem").map((li) => li.querySelector("span:nth-child(2)")?.textContent);

describe("StepsTimeline", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-30T10:00:30Z"));
  });
  afterEach(() => vi.useRealTimers());

  it("lists the operations in the server's order, with what ran and what has not", () => {
    render(
      <StepsTimeline
        plan={plan}
        currentStep="deploy"
        steps={[
          step({ name: "config", position: 0, state: "SUCCESS", startedAt: "2026-11-30T10:00:00Z", finishedAt: "2026-11-30T10:00:00.850Z", durationMs: 850 }),
          step({
            name: "artifacts",
            position: 1,
            state: "SUCCESS",
            attempts: 2,
            startedAt: "2026-11-30T10:00:01Z",
            finishedAt: "2026-11-30T10:00:13.400Z",
            durationMs: 12_400,
            output: [{ key: "sha256", value: "9f86d081884c7d65" }],
          }),
          step({ name: "checkpoint:deploy", kind: "CHECKPOINT", type: "standard", position: 2, state: "SUCCESS", startedAt: "2026-11-30T10:00:13.5Z", finishedAt: "2026-11-30T10:00:13.9Z", durationMs: 400 }),
          step({ name: "deploy", position: 2, state: "RUNNING", startedAt: "2026-11-30T10:00:14Z" }),
          step({ name: "post-test", position: 3, state: "PENDING", attempts: 0 }),
        ]}
      />,
    );
    const list = screen.getByRole("list", { name: "Steps" });
    expect(names(list)).toEqual(["config", "artifacts", "checkpoint:deploy", "deploy", "post-test"]);

    const [config, artifacts, checkpoint, deploy, postTest] = within(list).getAllByRole("listitem") as [HTMLElement, HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    expect(within(config).getByText("Success")).toBeInTheDocument();
    expect(within(config).getByLabelText("Duration")).toHaveTextContent("850 ms");

    // Retries show as attempts out of those the plan allows.
    expect(within(artifacts).getByText("attempt 2 of 4")).toBeInTheDocument();
    expect(within(artifacts).getByLabelText("Duration")).toHaveTextContent("12 s");
    const outputs = within(artifacts).getByRole("definition");
    expect(outputs).toHaveTextContent("9f86d081884c7d65");

    // The checkpoint stands before the step it precedes, and says what it is for.
    expect(checkpoint).toHaveAttribute("data-kind", "CHECKPOINT");
    expect(within(checkpoint).getByText("checkpoint:deploy")).toHaveAttribute("title", expect.stringMatching(/automatic rollback/));
    expect(within(checkpoint).getByLabelText("Duration")).toHaveTextContent("400 ms");

    // The running step counts its duration live and is marked current; its checkpoint is not.
    expect(deploy).toHaveAttribute("aria-current", "step");
    expect(checkpoint).not.toHaveAttribute("aria-current");
    expect(within(deploy).getByText("Running")).toBeInTheDocument();
    expect(within(deploy).getByLabelText("Duration")).toHaveTextContent("16 s");

    expect(within(postTest).getByText("Not started")).toBeInTheDocument();
    expect(within(postTest).getByLabelText("Duration")).toHaveTextContent("—");
  });

  it("shows a failed step's error and the steps outside the plan", () => {
    render(
      <StepsTimeline
        plan={plan.slice(0, 3)}
        steps={[
          step({ name: "change:open", type: "change", position: -1, state: "SUCCESS", startedAt: "2026-11-30T10:00:00Z", finishedAt: "2026-11-30T10:00:00.5Z", durationMs: 500 }),
          step({ name: "config", position: 0, state: "SUCCESS", startedAt: "2026-11-30T10:00:00Z", finishedAt: "2026-11-30T10:00:01Z", durationMs: 1000 }),
          step({ name: "artifacts", position: 1, state: "ERROR", attempts: 4, error: "download: 404 Not Found", startedAt: "2026-11-30T10:00:01Z", finishedAt: "2026-11-30T10:00:09Z", durationMs: 8000 }),
          step({ name: "deploy", position: 2, state: "PENDING", attempts: 0 }),
        ]}
      />,
    );
    const items = within(screen.getByRole("list", { name: "Steps" })).getAllByRole("listitem");
    expect(items).toHaveLength(4);
    expect(within(items[0]!).getByText("change:open")).toBeInTheDocument();
    expect(within(items[0]!).getByText("change")).toBeInTheDocument();
    expect(within(items[2]!).getByText(/download: 404 Not Found/)).toBeInTheDocument();
    expect(within(items[2]!).getByText("attempt 4 of 4")).toBeInTheDocument();
    expect(within(items[3]!).getByText("Not started")).toBeInTheDocument();
  });

  it("names its list and says so when there is nothing in it", () => {
    const { rerender } = render(<StepsTimeline plan={[]} steps={[]} />);
    expect(screen.getByText("No steps planned.")).toBeInTheDocument();
    rerender(<StepsTimeline plan={[]} steps={[step({ name: "rollback:deploy", kind: "ROLLBACK", type: "standard", position: 500, state: "SUCCESS", attempts: 3 })]} label="Compensations" />);
    const item = within(screen.getByRole("list", { name: "Compensations" })).getByRole("listitem");
    // A compensation's attempts are not the plan's.
    expect(within(item).getByText("3 attempts")).toBeInTheDocument();
  });
});
