import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { describe, expect, it, vi } from "vitest";
import type { DeploymentViewFragment, StepViewFragment } from "../../gql/graphql";
import { fakeApi } from "../../test/fakeApi";
import { DeploymentPage } from "./DeploymentPage";
import { rollout, target, wave } from "./rolloutFixture";

function op(name: string, kind: StepViewFragment["kind"], position: number, state: StepViewFragment["state"], error: string | null = null): StepViewFragment {
  const started = state === "PENDING" ? null : "2026-11-30T10:00:05Z";
  return {
    name,
    kind,
    pass: 0,
    batch: 0,
    target: null,
    position,
    type: "standard",
    state,
    attempts: state === "PENDING" ? 0 : 1,
    startedAt: started,
    finishedAt: state === "PENDING" || state === "RUNNING" ? null : "2026-11-30T10:00:06Z",
    durationMs: started && state !== "RUNNING" ? 1000 : null,
    output: [],
    error,
  };
}

const planned = (name: string) => ({ name, type: "standard", specHash: null as string | null, maxRetries: 1, timeoutSeconds: 60, mandatory: true });

/** hello 1.1.0 to prod, whose post-test failed: rollback on, being decided. */
function deployment(patch: Partial<DeploymentViewFragment>): DeploymentViewFragment {
  return {
    id: "hello-2",
    tenant: "demo",
    application: "hello",
    environment: "prod",
    state: "PENDING",
    requester: "token:demo-ci",
    createdAt: "2026-11-30T10:00:00Z",
    startedAt: "2026-11-30T10:00:01Z",
    finishedAt: null,
    updatedAt: "2026-11-30T10:00:07Z",
    startAt: null,
    dryRun: false,
    release: null,
    artifact: { type: "application", name: "hello", version: "1.1.0", source: "file:hello.tgz", pinnedSha256: null },
    sha256: null,
    labels: [],
    plan: { steps: ["config", "deploy", "post-test", "activation"].map(planned) },
    effective: {
      plugin: "local",
      targets: [],
      healthChecks: [],
      secretNames: [],
      configSource: null,
      configRevision: null,
      rollback: { enabled: true, on: ["post-test", "activation"] },
    },
    decision: { rule: null, requires: [], reason: null, approvalsRequired: null, approvalGroups: null, change: null, freeze: null, promotionFrom: null, promotionSatisfiedBy: null },
    approval: null,
    after: null,
    dependents: [],
    exports: [],
    currentStep: null,
    error: null,
    cancelRequested: false,
    cancelledBy: null,
    canCancel: false,
    canApprove: false,
    canPauseRollout: false,
    canResumeRollout: false,
    canAbortRollout: false,
    canRedeploy: false,
    promotionTargets: [],
    memberOf: null,
    approvalContext: null,
    steps: [
      op("config", "RUN", 0, "SUCCESS"),
      op("checkpoint:deploy", "CHECKPOINT", 1, "SUCCESS"),
      op("deploy", "RUN", 1, "SUCCESS"),
      op("post-test", "RUN", 2, "ERROR", "health check http://127.0.0.1:9/h: 404 Not Found"),
      op("activation", "RUN", 3, "PENDING"),
    ],
    rollback: null,
    rollout: null,
    ...patch,
  };
}

function renderPage(first: DeploymentViewFragment) {
  const api = fakeApi({ DeploymentPage: () => ({ deployment: { ...first, logs: { lines: [], lastSeq: 0 } } }) });
  render(
    <MemoryRouter initialEntries={[`/deployments/${first.id}`]}>
      <Routes>
        <Route path="/deployments/:id" element={<DeploymentPage />} />
      </Routes>
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
  const push = (d: DeploymentViewFragment) => act(() => api.push("DeploymentLive", { deploymentEvents: { kind: "state", deployment: d, logLines: [] } }));
  return { api, push };
}

describe("DeploymentPage", () => {
  it("links a member deploy to its release, and offers redeploy and promote only as the server says", async () => {
    const { push } = renderPage(deployment({ state: "SUCCESS", memberOf: { id: "shop-demo", state: "SUCCESS" }, canRedeploy: false, promotionTargets: [] }));
    const crumbs = await screen.findByRole("navigation", { name: "Breadcrumb" });
    expect(within(crumbs).getByRole("link", { name: "shop-demo" })).toHaveAttribute("href", "/releases/shop-demo");
    expect(screen.getByText(/member of release/)).toBeInTheDocument();
    expect(screen.queryByRole("group", { name: "Deploy actions" })).toBeNull();

    push(deployment({ state: "SUCCESS", updatedAt: "2026-11-30T10:02:00Z", memberOf: null, canRedeploy: true, promotionTargets: ["dr"] }));
    const actions = await screen.findByRole("group", { name: "Deploy actions" });
    expect(within(actions).getAllByRole("button").map((b) => b.textContent)).toEqual(["Redeploy…", "Promote to dr…"]);
    expect(within(screen.getByRole("navigation", { name: "Breadcrumb" })).getByRole("link", { name: "Deployments" })).toBeInTheDocument();
  });

  it("names the retention among the reasons a deploy is not found: the DORA page links to removed deploys", async () => {
    const api = fakeApi({ DeploymentPage: () => ({ deployment: null }) });
    render(
      <MemoryRouter initialEntries={["/deployments/hello-old"]}>
        <Routes>
          <Route path="/deployments/:id" element={<DeploymentPage />} />
        </Routes>
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    expect(await screen.findByText("No deploy hello-old.")).toBeInTheDocument();
    expect(screen.getByText(/the retention removed it/)).toHaveTextContent("the DORA metrics still count it");
  });

  it("follows a rollout live: a batch done, the next wave current, a deploy without rollout shows none", async () => {
    const targets = (eu2: "PENDING" | "RUNNING" | "SUCCESS") => [
      target("eu-1", { wave: "canary", batch: 1, state: "SUCCESS" }),
      target("eu-2", { wave: "eu", batch: 1, state: eu2 }),
    ];
    const waves = (canary: "BAKING" | "PASSED", eu: "PENDING" | "RUNNING" | "PASSED") => [
      wave("canary", [["eu-1"]], { state: canary, bake: { seconds: 60, until: canary === "BAKING" ? "2026-11-30T10:01:00Z" : null } }),
      wave("eu", [["eu-2"]], { state: eu }),
    ];
    const { push } = renderPage(deployment({ rollout: rollout(waves("BAKING", "PENDING"), targets("PENDING"), { currentWave: "canary" }) }));
    const panel = await screen.findByRole("region", { name: "Rollout" });
    expect(within(panel).getByRole("listitem", { name: "Wave 1 of 2: canary, Baking" })).toHaveAttribute("aria-current", "step");
    expect(within(panel).getByRole("img", { name: "eu-2: targeted, Not started" })).toBeInTheDocument();

    push(deployment({ updatedAt: "2026-11-30T10:01:05Z", rollout: rollout(waves("PASSED", "RUNNING"), targets("RUNNING"), { currentWave: "eu" }) }));
    expect(await within(panel).findByRole("img", { name: "eu-2: targeted, Running" })).toHaveAttribute("data-state", "RUNNING");
    expect(within(panel).getByRole("listitem", { name: "Wave 2 of 2: eu, Running" })).toHaveAttribute("aria-current", "step");
    expect(within(panel).getByRole("listitem", { name: "Wave 1 of 2: canary, Passed" })).not.toHaveAttribute("aria-current");

    push(deployment({ updatedAt: "2026-11-30T10:01:09Z", rollout: rollout(waves("PASSED", "PASSED"), targets("SUCCESS"), { state: "COMPLETED" }) }));
    expect(await within(panel).findByText("completed, 2 waves · 2/2 targets")).toBeInTheDocument();
    expect(within(panel).getByRole("img", { name: "eu-2: targeted, Success" })).toHaveTextContent("✓");
  });

  it("puts the rollout's actions on its card for an allowed identity, and none for a viewer", async () => {
    const paused = rollout([wave("canary", [["eu-1"]], { state: "PAUSED" })], [target("eu-1", { wave: "canary", batch: 1, state: "SUCCESS" })], {
      state: "PAUSED",
      currentWave: "canary",
      pause: { step: "pause[1/1]", reason: "wave canary could not be judged by its gates", since: "2026-11-30T10:00:05Z", until: "2026-12-01T10:00:05Z", by: null, mayResume: ["role:deployer"] },
    });
    const { push } = renderPage(deployment({ rollout: paused, canResumeRollout: true, canAbortRollout: true }));
    const panel = await screen.findByRole("region", { name: "Rollout" });
    expect(within(panel).getByRole("button", { name: "Resume…" })).toBeInTheDocument();
    expect(within(panel).getByRole("button", { name: "Abort…" })).toBeInTheDocument();
    expect(within(panel).queryByRole("button", { name: "Approve…" })).toBeNull();

    // The wave after asks an approval: Approve for whoever may give it.
    const awaiting = rollout([wave("canary", [["eu-1"]], { state: "AWAITING_APPROVAL" })], [target("eu-1", { wave: "canary", batch: 1 })], {
      state: "AWAITING_APPROVAL",
      currentWave: "canary",
    });
    // The deploy's own approval, given before it ran, offers no second Approve.
    const own = { status: "approved", required: 1, remaining: 0, groups: [], expiresAt: null, approvals: [{ identity: "token:ops", approved: true, comment: "", time: "2026-11-30T09:59:00Z" }] };
    push(deployment({ updatedAt: "2026-11-30T10:01:05Z", rollout: awaiting, approval: own, canApprove: true, canPauseRollout: true, canAbortRollout: true }));
    expect(await within(panel).findByRole("button", { name: "Approve…" })).toBeInTheDocument();
    expect(within(panel).getByRole("button", { name: "Pause…" })).toBeInTheDocument();
    expect(screen.getAllByRole("button", { name: "Approve…" })).toHaveLength(1);
    // Its confirmation is about the wave, not the deploy.
    const user = userEvent.setup();
    await user.click(within(panel).getByRole("button", { name: "Approve…" }));
    const dialog = screen.getByRole("dialog", { name: "Approve wave canary of hello-1.1.0?" });
    expect(within(dialog).getByRole("button", { name: "Approve wave canary" })).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Not now" }));

    // A viewer: the same rollout, no action.
    push(deployment({ updatedAt: "2026-11-30T10:01:09Z", rollout: awaiting }));
    await waitFor(() => expect(within(panel).queryByRole("button")).toBeNull());
  });

  it("has no rollout panel for a deploy without rollout", async () => {
    renderPage(deployment({}));
    await screen.findByRole("list", { name: "Steps" });
    expect(screen.queryByRole("region", { name: "Rollout" })).toBeNull();
  });

  it("shows the checkpoints in the timeline and follows the rollback live below it", async () => {
    const { push } = renderPage(deployment({}));
    const steps = await screen.findByRole("list", { name: "Steps" });
    expect(within(steps).getAllByRole("listitem").map((li) => li.getAttribute("data-kind"))).toEqual(["RUN", "CHECKPOINT", "RUN", "RUN", "RUN"]);
    expect(within(steps).getByText("checkpoint:deploy")).toBeInTheDocument();
    // Nothing decided yet: no rollback panel; the policy is in the facts.
    expect(screen.queryByRole("region", { name: "Rollback" })).toBeNull();
    expect(screen.getByText("on failure of post-test, activation")).toBeInTheDocument();

    push(
      deployment({
        updatedAt: "2026-11-30T10:00:08Z",
        currentStep: "rollback:deploy",
        rollback: { state: "RUNNING", steps: [op("rollback:deploy", "ROLLBACK", 500, "RUNNING")] },
      }),
    );
    const panel = await screen.findByRole("region", { name: "Rollback" });
    expect(within(panel).getByText("Rolling back")).toBeInTheDocument();
    const compensations = within(panel).getByRole("list", { name: "Compensations" });
    expect(within(compensations).getByRole("listitem")).toHaveTextContent("rollback:deploy");
    expect(within(compensations).getByText("Running")).toBeInTheDocument();

    push(
      deployment({
        state: "ERROR",
        updatedAt: "2026-11-30T10:00:09Z",
        finishedAt: "2026-11-30T10:00:09Z",
        error: "step post-test failed",
        rollback: { state: "COMPLETED", steps: [op("rollback:deploy", "ROLLBACK", 500, "SUCCESS")] },
      }),
    );
    expect(await within(panel).findByText("Rollback completed")).toBeInTheDocument();
    expect(within(panel).getByText(/back where the checkpoints found them/)).toBeInTheDocument();
    expect(within(within(panel).getByRole("list", { name: "Compensations" })).getByText("Success")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("step post-test failed");
  });

  it("shows a failed compensation with its error", async () => {
    renderPage(
      deployment({
        state: "ERROR",
        error: "step post-test failed",
        rollback: {
          state: "FAILED",
          steps: [op("rollback:activation", "ROLLBACK", 500, "SUCCESS"), op("rollback:deploy", "ROLLBACK", 501, "ERROR", "remove releases/1.1.0: permission denied")],
        },
      }),
    );
    const panel = await screen.findByRole("region", { name: "Rollback" });
    expect(within(panel).getByText("Rollback failed")).toBeInTheDocument();
    const items = within(within(panel).getByRole("list", { name: "Compensations" })).getAllByRole("listitem");
    expect(items.map((li) => li.querySelector("span:nth-child(2)")?.textContent)).toEqual(["rollback:activation", "rollback:deploy"]);
    expect(within(items[1]!).getByText(/permission denied/)).toBeInTheDocument();
  });

  it("says why nothing was undone when the policy is off, and says nothing for a success", async () => {
    renderPage(deployment({ state: "ERROR", error: "step post-test failed", rollback: { state: "DISABLED", steps: [] } }));
    const panel = await screen.findByRole("region", { name: "Rollback" });
    expect(within(panel).getByText("Rollback disabled")).toBeInTheDocument();
    expect(within(panel).queryByRole("list")).toBeNull();
  });

  it("says who cancelled a deploy, and where it stopped", async () => {
    renderPage(
      deployment({
        state: "CANCELLED",
        cancelledBy: "token:ops",
        error: "cancelled by token:ops after step deploy, before post-test",
        rollback: { state: "NOT_NEEDED", steps: [] },
      }),
    );
    const facts = await screen.findByRole("region", { name: "Deploy" });
    expect(within(facts).getByText("Cancelled by").nextElementSibling).toHaveTextContent("token:ops");
    expect(within(facts).queryByText("Starts at")).toBeNull();
  });

  it("says when a DELAYED deploy starts", async () => {
    renderPage(deployment({ state: "DELAYED", startedAt: null, steps: [], startAt: "2026-12-01T14:00:00Z" }));
    const facts = await screen.findByRole("region", { name: "Deploy" });
    expect(within(facts).getByText("Starts at")).toBeInTheDocument();
    expect(within(facts).queryByText("Cancelled by")).toBeNull();
  });

  it("has no rollback panel for a success that needed none", async () => {
    renderPage(deployment({ state: "SUCCESS", rollback: { state: "NOT_NEEDED", steps: [] } }));
    await screen.findByRole("list", { name: "Steps" });
    expect(screen.queryByRole("region", { name: "Rollback" })).toBeNull();
  });

  it("says when a DELAYED deploy starts", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
    try {
      renderPage(deployment({ state: "DELAYED", startedAt: null, startAt: "2026-11-30T12:30:00Z", steps: [], currentStep: null }));
      await screen.findByRole("heading", { name: "hello → prod" });
      expect(document.querySelector("[data-starts-at]")).toHaveTextContent(/^starts \d\d:30:00 \(in 2 h\)$/);
      expect(screen.getByTestId("start-at")).toHaveTextContent("(in 2 h)");
    } finally {
      vi.useRealTimers();
    }
  });

  it("tells a step's error in words, the error as recorded behind Details", async () => {
    const raw = 'health check http://10.0.0.5:8080/h: Get "http://10.0.0.5:8080/h": dial tcp 10.0.0.5:8080: connect: connection refused';
    renderPage(deployment({ state: "ERROR", error: raw, steps: [op("post-test", "RUN", 2, "ERROR", raw)] }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Failed: The health check http://10.0.0.5:8080/h: the connection to 10.0.0.5:8080 was refused");
    const steps = screen.getByRole("list", { name: "Steps" });
    const title = within(steps).getByText(/was refused: nothing is listening there/);
    expect(title).not.toHaveTextContent("dial tcp");
    for (const d of document.querySelectorAll("details")) {
      expect(d).not.toHaveAttribute("open");
      expect(d).toHaveTextContent(raw);
    }
    expect(document.querySelectorAll("details")).toHaveLength(2);
  });

  it("shows a custom step of the plan by its type and spec_hash", async () => {
    const hash = "3b0f4c00112233445566778899aabbccddeeff00112233445566778899aae91a";
    const steps = [planned("config"), { ...planned("db-migrate"), type: "command", specHash: hash }, planned("deploy")];
    renderPage(deployment({ plan: { steps } }));
    const plan = await screen.findByRole("region", { name: "Plan" });
    const row = within(plan).getByText("db-migrate").closest("tr") as HTMLElement;
    expect(row).toHaveTextContent("command");
    expect(within(row).getByLabelText(`spec_hash ${hash}`)).toHaveTextContent("3b0f4c001122…");
    expect(within(within(plan).getByText("deploy").closest("tr") as HTMLElement).queryByLabelText(/spec_hash/)).toBeNull();
  });
});
