import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { StepState } from "../gql/graphql";
import { attemptNote, planProgress } from "./progress";
import { StepProgress } from "./StepProgress";

const plan = ["config", "secrets", "artifacts", "qa", "deploy", "post-test", "activation", "cleanup"].map((name) => ({ name, maxRetries: 2 }));

const run = (name: string, state: StepState, extra: { attempts?: number; position?: number; kind?: "RUN" | "CHECKPOINT" | "ROLLBACK" } = {}) => ({
  name,
  state,
  kind: extra.kind ?? ("RUN" as const),
  position: extra.position ?? plan.findIndex((p) => p.name === name.replace(/[[@].*$/, "")),
  attempts: extra.attempts ?? 1,
});

const segments = () => screen.getByRole("img").querySelectorAll<HTMLElement>(".m-progress-seg");

describe("StepProgress", () => {
  it("draws skipped steps apart from done ones: a deploy that failed at artifacts is not 7 of 8 done", () => {
    render(
      <StepProgress
        plan={plan}
        steps={[
          run("config", "SUCCESS"),
          run("secrets", "SUCCESS"),
          run("artifacts", "ERROR", { attempts: 3 }),
          ...["qa", "deploy", "post-test", "activation"].map((n) => run(n, "SKIPPED")),
          run("cleanup", "SUCCESS"),
        ]}
      />,
    );
    const bar = screen.getByRole("img");
    expect(bar).toHaveAccessibleName("3 of 8 steps succeeded, 1 failed, 4 skipped");
    const tones = [...segments()].map((s) => s.dataset.tone);
    expect(tones).toEqual(["success", "success", "danger", "neutral", "neutral", "neutral", "neutral", "success"]);
    expect([...segments()].filter((s) => s.dataset.stepState === "SKIPPED")).toHaveLength(4);
    expect(bar.getAttribute("title")).toContain("qa: Skipped");
  });

  it("says which step runs, and counts only what succeeded", () => {
    render(<StepProgress plan={plan} steps={[run("config", "SUCCESS"), run("secrets", "SUCCESS"), run("artifacts", "RUNNING")]} />);
    expect(screen.getByRole("img")).toHaveAccessibleName("2 of 8 steps succeeded, artifacts running");
    expect(segments()[2]).toHaveAttribute("data-step-state", "RUNNING");
    expect(segments()[3]).toHaveAttribute("data-step-state", "PENDING");
  });

  it("takes the runs of a rollout and leaves checkpoints and compensations out", () => {
    render(
      <StepProgress
        plan={plan}
        steps={[
          run("checkpoint:deploy", "SUCCESS", { kind: "CHECKPOINT", position: 4 }),
          run("deploy[1/2]", "SUCCESS", { position: 4 }),
          run("deploy[2/2]", "PENDING", { position: 4 }),
          run("rollback:activation", "ERROR", { kind: "ROLLBACK", position: 9 }),
          run("activation@web-1", "SUCCESS", { position: 6 }),
          run("activation@web-2", "SUCCESS", { position: 6 }),
        ]}
      />,
    );
    const states = [...segments()].map((s) => s.dataset.stepState);
    expect(states[4]).toBe("RUNNING");
    expect(states[6]).toBe("SUCCESS");
    expect(states.filter((s) => s === "ERROR")).toEqual([]);
  });
});

describe("attemptNote", () => {
  it.each([
    ["a step retried", [run("deploy", "RUNNING", { attempts: 3 })], "attempt 3 of 3"],
    ["a first attempt says nothing", [run("deploy", "RUNNING", { attempts: 1 })], null],
    ["before the first record of attempts", [run("deploy", "RUNNING", { attempts: 0 })], null],
    ["the step that failed after retries", [run("deploy", "ERROR", { attempts: 3 }), run("cleanup", "SUCCESS")], "attempt 3 of 3"],
    ["nothing running", [run("config", "SUCCESS", { attempts: 2 })], null],
  ])("%s", (_, steps, want) => {
    expect(attemptNote(planProgress(plan, steps))).toBe(want);
  });

  it("gives the attempts alone where the plan's retries are not known", () => {
    expect(attemptNote(planProgress([{ name: "deploy" }], [run("deploy", "RUNNING", { attempts: 4, position: 0 })]))).toBe("attempt 4");
  });
});
