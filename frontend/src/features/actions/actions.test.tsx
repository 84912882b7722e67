import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes, useParams } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi, type Answer } from "../../test/fakeApi";
import { CancelReleaseAction } from "./CancelReleaseAction";
import { cancelReleaseText, deleteScheduleText, promoteText, redeployText, rollbackText } from "./copy";
import { DeploymentActions } from "./DeploymentActions";
import { RollbackAction } from "./RollbackAction";

const hello = { id: "hello-staging-b2d1", application: "hello", environment: "staging", artifact: { name: "hello", version: "1.1.0" } };

function NewDeploy() {
  const { id } = useParams();
  return <p>deploy page {id}</p>;
}

/** The action at /start, and the deploy page it may open. */
function renderAt(ui: React.ReactNode, answers: Record<string, Answer>) {
  const api = fakeApi(answers);
  render(
    <MemoryRouter initialEntries={["/start"]}>
      <Routes>
        <Route path="/start" element={ui} />
        <Route path="/deployments/:id" element={<NewDeploy />} />
      </Routes>
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
  return api;
}

describe("confirmation texts", () => {
  it.each([
    [
      "promote",
      promoteText(hello, "prod"),
      "Promote hello 1.1.0 (hello-staging-b2d1) from staging to prod: a new deploy of the same artifact and descriptor runs in prod, without the source's after and deployment imports; the prod governance applies (approvals, freeze windows, mandatory promotion).",
    ],
    [
      "redeploy",
      redeployText({ ...hello, dryRun: false }),
      "Redeploy hello 1.1.0 (hello-staging-b2d1) in staging: a new deploy runs the same artifact and descriptor again; the staging governance applies.",
    ],
    [
      "redeploy a dry run",
      redeployText({ ...hello, dryRun: true }),
      "Redeploy hello 1.1.0 (hello-staging-b2d1) in staging: a new deploy runs the same artifact and descriptor again (as a dry run, as this one was); the staging governance applies.",
    ],
    [
      "rollback without who and when",
      rollbackText({ id: "hello-prod-ab12", application: "hello", environment: "prod", version: "1.0.0" }),
      "Roll back hello in prod to 1.0.0 (hello-prod-ab12): a new deploy runs that release's artifact, the bytes that were in service; the prod governance applies.",
    ],
    [
      "cancel a release",
      cancelReleaseText("shop-1", 2),
      "Cancel release shop-1: it stops starting deploys, then its 2 deploys not finished yet are cancelled (each stops at the start of its next step; a step in progress completes). This cannot be undone.",
    ],
    [
      "delete a schedule",
      deleteScheduleText({ name: "nightly", application: "hello", environment: "qa", cron: "0 2 * * *", timezone: "UTC" }),
      "Delete schedule nightly (0 2 * * *, UTC) of hello → qa: no further tick starts a deploy; the deploys already started go on. This cannot be undone.",
    ],
  ])("%s", (_, got, want) => {
    expect(got).toBe(want);
  });

  it("names who deployed the release rolled back to", () => {
    const text = rollbackText({ id: "hello-prod-ab12", application: "hello", environment: "prod", version: "1.0.0", deployedBy: "token:ci", deployedAt: "2026-11-30T09:00:00Z" });
    expect(text).toMatch(/^Roll back hello in prod to 1\.0\.0 \(hello-prod-ab12\), deployed by token:ci on .+: a new deploy runs/);
  });
});

describe("DeploymentActions", () => {
  it("shows nothing when the server offers no action", () => {
    renderAt(<DeploymentActions deployment={{ ...hello, dryRun: false, canRedeploy: false, promotionTargets: [] }} />, {});
    expect(screen.queryByRole("button")).toBeNull();
  });

  it.each([
    [{ canRedeploy: true, promotionTargets: [] }, ["Redeploy…"]],
    [{ canRedeploy: false, promotionTargets: ["prod"] }, ["Promote to prod…"]],
    [{ canRedeploy: true, promotionTargets: ["prod", "dr"] }, ["Redeploy…", "Promote to prod…", "Promote to dr…"]],
  ])("offers exactly what the server allows: %j", (allowed, buttons) => {
    renderAt(<DeploymentActions deployment={{ ...hello, dryRun: false, ...allowed }} />, {});
    expect(screen.getAllByRole("button").map((b) => b.textContent)).toEqual(buttons);
  });

  it("promotes after the confirmation and opens the new deploy", async () => {
    const asked: Record<string, unknown>[] = [];
    renderAt(<DeploymentActions deployment={{ ...hello, dryRun: false, canRedeploy: false, promotionTargets: ["prod"] }} />, {
      PromoteDeployment: (v) => {
        asked.push(v);
        return { promote: { id: "hello-prod-77", state: "AWAITING_APPROVAL" } };
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Promote to prod…" }));
    const dialog = screen.getByRole("dialog", { name: "Promote to prod?" });
    expect(dialog).toHaveTextContent(promoteText(hello, "prod"));
    expect(asked).toEqual([]);
    await user.click(within(dialog).getByRole("button", { name: "Promote to prod" }));
    expect(await screen.findByText("deploy page hello-prod-77")).toBeInTheDocument();
    // Named by the browser, as every try of this dialog names it (idempotency.test.tsx).
    expect(asked).toEqual([{ id: "hello-staging-b2d1", to: "prod", newId: expect.stringMatching(/^hello-prod-[0-9a-f]{8}$/) }]);
  });

  it("keeps the dialog open with the server's refusal, and changes nothing", async () => {
    renderAt(<DeploymentActions deployment={{ ...hello, dryRun: false, canRedeploy: true, promotionTargets: [] }} />, {
      RedeployDeployment: () => new Error("[GraphQL] FORBIDDEN: token:demo-ci may not deployment.submit in staging"),
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Redeploy…" }));
    const dialog = screen.getByRole("dialog", { name: "Redeploy this release?" });
    await user.click(within(dialog).getByRole("button", { name: "Redeploy" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Redeploying");
    expect(screen.queryByText(/deploy page/)).toBeNull();
  });
});

describe("RollbackAction", () => {
  it("rolls the environment back to the chosen release and opens the new deploy", async () => {
    const asked: Record<string, unknown>[] = [];
    renderAt(<RollbackAction tenant="demo" target={{ id: "hello-prod-ab12", application: "hello", environment: "prod", version: "1.0.0" }} />, {
      RollbackEnvironment: (v) => {
        asked.push(v);
        return { rollback: { id: "hello-prod-rb1", state: "QUEUED" } };
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Roll back to this…" }));
    const dialog = screen.getByRole("dialog", { name: "Roll back prod to 1.0.0?" });
    expect(dialog).toHaveTextContent("Roll back hello in prod to 1.0.0 (hello-prod-ab12)");
    await user.click(within(dialog).getByRole("button", { name: "Roll back" }));
    expect(await screen.findByText("deploy page hello-prod-rb1")).toBeInTheDocument();
    expect(asked).toEqual([
      { application: "hello", environment: "prod", tenant: "demo", to: "hello-prod-ab12", id: expect.stringMatching(/^hello-prod-[0-9a-f]{8}$/) },
    ]);
  });
});

describe("CancelReleaseAction", () => {
  it("is absent unless the server says the viewer may cancel", () => {
    renderAt(<CancelReleaseAction id="shop-1" openDeploys={2} canCancel={false} />, {});
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("cancels after the confirmation", async () => {
    const asked: Record<string, unknown>[] = [];
    renderAt(<CancelReleaseAction id="shop-1" openDeploys={2} canCancel />, {
      CancelRelease: (v) => {
        asked.push(v);
        return { cancelRelease: { id: "shop-1", state: "CANCELLED", canCancel: false } };
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Cancel release…" }));
    const dialog = screen.getByRole("dialog", { name: "Cancel this release?" });
    expect(dialog).toHaveTextContent(cancelReleaseText("shop-1", 2));
    await user.click(within(dialog).getByRole("button", { name: "Cancel release" }));
    await waitFor(() => expect(asked).toEqual([{ id: "shop-1" }]));
  });
});
