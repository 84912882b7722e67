import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes, useParams } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi, type Answer } from "../../test/fakeApi";
import { DeploymentActions } from "./DeploymentActions";
import { RollbackAction } from "./RollbackAction";

const hello = { id: "hello-staging-b2d1", application: "hello", environment: "staging", artifact: { name: "hello", version: "1.1.0" } };

function NewDeploy() {
  const { id } = useParams();
  return <p>deploy page {id}</p>;
}

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

/**
 * Each of these actions starts a new deploy whose ID the server generates at
 * random unless the request names it (promote/redeploy newId, rollback id).
 * When the answer is lost (a proxy timeout, the laptop's Wi-Fi) the server
 * has created the deploy; the dialog stays open with the error and offers
 * the same button again. Pressing it must be the same request again, under
 * the same new ID (the server answers the existing deploy), not a second
 * deploy of the same release to the same environment.
 */
describe("an action retried after a lost answer", () => {
  const lost = () => new Error("[Network] Failed to fetch");

  it.each([
    {
      name: "promote",
      op: "PromoteDeployment",
      key: "newId",
      ui: <DeploymentActions deployment={{ ...hello, dryRun: false, canRedeploy: false, promotionTargets: ["prod"] }} />,
      open: "Promote to prod…",
      dialog: "Promote to prod?",
      confirm: "Promote to prod",
      ok: { promote: { id: "hello-prod-77", state: "AWAITING_APPROVAL" } },
    },
    {
      name: "redeploy",
      op: "RedeployDeployment",
      key: "newId",
      ui: <DeploymentActions deployment={{ ...hello, dryRun: false, canRedeploy: true, promotionTargets: [] }} />,
      open: "Redeploy…",
      dialog: "Redeploy this release?",
      confirm: "Redeploy",
      ok: { redeploy: { id: "hello-staging-88", state: "ENQUEUED" } },
    },
    {
      name: "rollback",
      op: "RollbackEnvironment",
      key: "id",
      ui: <RollbackAction tenant="demo" target={{ id: "hello-prod-ab12", application: "hello", environment: "prod", version: "1.0.0" }} />,
      open: "Roll back to this…",
      dialog: "Roll back prod to 1.0.0?",
      confirm: "Roll back",
      ok: { rollback: { id: "hello-prod-rb1", state: "ENQUEUED" } },
    },
  ])("$name sends the same new deploy ID again", async ({ op, key, ui, open, dialog: title, confirm, ok }) => {
    const asked: Record<string, unknown>[] = [];
    renderAt(ui, {
      [op]: (v) => {
        asked.push(v);
        return asked.length === 1 ? lost() : ok;
      },
    });
    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: open }));
    const dialog = screen.getByRole("dialog", { name: title });
    await user.click(within(dialog).getByRole("button", { name: confirm }));
    await within(dialog).findByRole("alert");
    await user.click(within(dialog).getByRole("button", { name: confirm }));
    await screen.findByText(/deploy page/);
    expect(asked).toHaveLength(2);
    expect(typeof asked[0]?.[key]).toBe("string");
    expect(asked[0]?.[key]).not.toBe("");
    expect(asked[1]?.[key]).toBe(asked[0]?.[key]);
  });
});
