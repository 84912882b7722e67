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

describe("StepsTimeline", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-30T10:00:30Z"));
  });
  afterEach(() => vi.useRealTimers());

  it("lists every planned step in order, with what ran and what has not", () => {
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
          step({ name: "deploy", position: 2, state: "RUNNING", startedAt: "2026-11-30T10:00:14Z" }),
        ]}
      />,
    );
    const list = screen.getByRole("list", { name: "Steps" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((li) => li.querySelector("span:nth-child(2)")?.textContent)).toEqual(["config", "artifacts", "deploy", "post-test"]);

    const [config, artifacts, deploy, postTest] = items as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    expect(within(config).getByText("Success")).toBeInTheDocument();
    expect(within(config).getByLabelText("Duration")).toHaveTextContent("850 ms");

    // Retries show as attempts out of those the plan allows.
    expect(within(artifacts).getByText("attempt 2 of 4")).toBeInTheDocument();
    expect(within(artifacts).getByLabelText("Duration")).toHaveTextContent("12 s");
    const outputs = within(artifacts).getByRole("definition");
    expect(outputs).toHaveTextContent("9f86d081884c7d65");

    // The running step counts its duration live and is marked current.
    expect(deploy).toHaveAttribute("aria-current", "step");
    expect(within(deploy).getByText("Running")).toBeInTheDocument();
    expect(within(deploy).getByLabelText("Duration")).toHaveTextContent("16 s");

    expect(within(postTest).getByText("Not started")).toBeInTheDocument();
    expect(within(postTest).getByLabelText("Duration")).toHaveTextContent("—");
  });

  it("shows a failed step's error and the steps the plan does not name", () => {
    render(
      <StepsTimeline
        plan={plan.slice(0, 3)}
        steps={[
          step({ name: "config", position: 0, state: "SUCCESS", startedAt: "2026-11-30T10:00:00Z", finishedAt: "2026-11-30T10:00:01Z", durationMs: 1000 }),
          step({ name: "artifacts", position: 1, state: "ERROR", attempts: 4, error: "download: 404 Not Found", startedAt: "2026-11-30T10:00:01Z", finishedAt: "2026-11-30T10:00:09Z", durationMs: 8000 }),
          step({ name: "rollback:deploy", type: "rollback", position: 3, state: "SUCCESS", startedAt: "2026-11-30T10:00:09Z", finishedAt: "2026-11-30T10:00:10Z", durationMs: 1000 }),
        ]}
      />,
    );
    const items = within(screen.getByRole("list", { name: "Steps" })).getAllByRole("listitem");
    expect(items).toHaveLength(4);
    expect(within(items[1]!).getByText(/download: 404 Not Found/)).toBeInTheDocument();
    expect(within(items[1]!).getByText("attempt 4 of 4")).toBeInTheDocument();
    expect(within(items[2]!).getByText("Not started")).toBeInTheDocument();
    expect(within(items[3]!).getByText("rollback:deploy")).toBeInTheDocument();
    expect(within(items[3]!).getByText("rollback")).toBeInTheDocument();
  });

  it("says so when there is no plan", () => {
    render(<StepsTimeline plan={[]} steps={[]} />);
    expect(screen.getByText("No steps planned.")).toBeInTheDocument();
  });
});
