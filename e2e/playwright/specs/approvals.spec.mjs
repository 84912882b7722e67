// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import path from "node:path";
import { artifactsDir, cli, newPage, signIn } from "../lib/harness.mjs";

/** Runs `manent deploy -f <file> --no-wait -o json` as token and returns the status JSON. */
async function deploy(token, file) {
  const r = await cli(token, "deploy", "-f", file, "--no-wait", "-o", "json");
  if (r.code !== 0) throw new Error(`manent deploy -f ${file} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
}

describe("approvals", () => {
  test("one identity submits to prod, another approves from the inbox, the deploy runs", { timeout: 300_000 }, async () => {
    // examples/ freezes prod on Sundays (UTC). Then demo-admin, who may
    // override a freeze, submits with freezeOverride and demo-ci (allowed to
    // approve hello in prod) approves: the same governance, every day.
    // MANENT_E2E_FREEZE_OVERRIDE=1 takes the Sunday path on any day.
    const sunday = new Date().getUTCDay() === 0;
    const override = sunday || process.env.MANENT_E2E_FREEZE_OVERRIDE === "1";
    const requester = override ? "demo-admin" : "demo-ci";
    const approver = override ? "demo-ci" : "demo-admin";
    const file = override ? "deploys/hello-prod-freeze-override.yml" : "deploys/hello-prod.yml";

    // The demo of examples/: prod needs the same version to have succeeded
    // in staging first, then one approval by an identity other than the requester.
    const staging = await cli("demo-ci", "deploy", "-f", "deploys/hello.yml");
    assert.equal(staging.code, 0, `hello.yml to staging:\n${staging.stdout}\n${staging.stderr}`);

    const submitted = await deploy(requester, file);
    const id = /** @type {string} */ (submitted.id);
    assert.equal(submitted.state, "AWAITING_APPROVAL", `${file}: ${JSON.stringify(submitted)}`);
    assert.equal(submitted.approval?.status, "waiting");
    if (sunday) assert.equal(submitted.governance?.freeze?.window, "sunday", `override recorded: ${JSON.stringify(submitted.governance)}`);

    // The requester may not approve their own deploy.
    const own = await cli(requester, "approve", id, "--comment", "mine");
    assert.equal(own.code, 3, `self-approval: ${own.stdout}${own.stderr}`);
    assert.match(own.stderr, /permission denied/);

    const { page, context, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, approver);
      // The deploy's page, open before the approval, must see it run without a reload.
      const deployPage = await context.newPage();
      /** @type {string[]} */
      const deployPageErrors = [];
      deployPage.on("console", (m) => {
        if (m.type() === "error") deployPageErrors.push(m.text());
      });
      deployPage.on("pageerror", (e) => deployPageErrors.push(`uncaught: ${e.message}`));
      await deployPage.goto(`/deployments/${id}`);
      await deployPage.getByRole("heading", { name: "hello → prod" }).waitFor();
      await deployPage.locator('.m-badge[data-size="large"][data-state="AWAITING_APPROVAL"]').waitFor();
      await deployPage.evaluate(() => {
        const w = /** @type {any} */ (window);
        w.__e2eStates = [];
        new MutationObserver(() => {
          const s = document.querySelector('.m-badge[data-size="large"]')?.getAttribute("data-state");
          if (s && w.__e2eStates[w.__e2eStates.length - 1] !== s) w.__e2eStates.push(s);
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
      });

      await page.bringToFront();
      const nav = page.getByRole("navigation", { name: "Main" });
      const badge = nav.getByTestId("nav-badge-approvals");
      await badge.filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 30_000 });
      const before = Number(await badge.innerText());
      await nav.getByRole("link", { name: /Approvals/ }).click();
      await page.waitForURL(/\/approvals$/);
      await page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();

      const item = page.locator(`li[data-deployment-id="${id}"]`);
      await item.waitFor({ timeout: 30_000 });
      // The rule in the server's words, the evidence as a link, who may approve.
      const explanation = item.getByTestId("approval-explanation");
      await explanation.getByText(/needs 1 approval from an identity other than the requester/).waitFor();
      await explanation.getByText(/staging must have run hello \S+ successfully — it did: /).waitFor();
      if (sunday) await explanation.getByText(/accepted in freeze window sunday with an override/).waitFor();
      const evidence = item.getByRole("list", { name: "Promotion evidence" }).getByRole("link");
      assert.match((await evidence.first().getAttribute("href")) ?? "", /^\/deployments\/hello-staging/);
      await item.getByTestId("approval-approvers").getByText(new RegExp(`other than token:${requester}`)).waitFor();
      // In service now against proposed, as the inventory says.
      const inv = await cli(requester, "inventory", "-o", "json");
      const prod = JSON.parse(inv.stdout).find((/** @type {any} */ e) => e.tenant === "demo" && e.application === "hello" && e.environment === "prod");
      const current = item.getByTestId("approval-current");
      if (prod?.deployment_id) {
        await current.getByRole("link", { name: `hello ${prod.artifact.version}` }).waitFor();
        await current.getByText(`deployed by ${prod.deployed_by}`).waitFor();
      } else await current.getByText("nothing in service").waitFor();
      await item.getByTestId("approval-proposed").getByText(`hello ${submitted.artifact?.version ?? ""}`.trim()).waitFor();
      await item.getByText(/0 of 1 approved so far/).waitFor();
      await item.getByText(/Expires/).waitFor();
      await screenshot("approvals-inbox");

      await item.getByRole("button", { name: "Approve…" }).click();
      const dialog = page.getByRole("dialog", { name: "Approve this deploy?" });
      await dialog.waitFor();
      await dialog.getByLabel("Comment (kept in the audit log)").fill("staging looked good");
      await screenshot("approvals-confirm");
      await dialog.getByRole("button", { name: "Approve deploy" }).click();
      await dialog.waitFor({ state: "hidden" });

      // The inbox and the badge follow live: the item leaves, the count drops, and what happens next is said.
      await item.waitFor({ state: "detached", timeout: 30_000 });
      await page.locator(`li[data-answered="${id}"]`).getByText("Approved: the deploy joins the queue of prod: it starts when no other deploy runs there.").waitFor();
      if (before === 1) await badge.waitFor({ state: "detached", timeout: 30_000 });
      else await badge.filter({ hasText: String(before - 1) }).waitFor({ timeout: 30_000 });
      await screenshot("approvals-inbox-empty");

      await deployPage.bringToFront();
      await deployPage.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor({ timeout: 180_000 });
      const states = await deployPage.evaluate(() => /** @type {any} */ (window).__e2eStates);
      console.log(`states seen on the deploy's page: AWAITING_APPROVAL → ${states.join(" → ")}`);
      assert.equal(states[states.length - 1], "SUCCESS");
      const section = deployPage.locator("section.m-approval-section");
      await section.getByText(`token:${approver}`).waitFor();
      await section.locator('.m-badge[data-approval-status="approved"]').waitFor();
      await section.getByText("staging looked good").waitFor();
      assert.equal(await deployPage.getByRole("button", { name: "Approve…" }).count(), 0, "no buttons once answered");
      await deployPage.screenshot({ path: path.join(artifactsDir, "approvals-deploy.png") });

      const status = await cli(requester, "status", id, "-o", "json");
      const st = JSON.parse(status.stdout);
      assert.equal(st.state, "SUCCESS");
      assert.equal(st.approval?.status, "approved");
      assert.deepEqual(
        st.approval.approvals.map((/** @type {any} */ a) => [a.identity, a.approved, a.comment]),
        [[`token:${approver}`, true, "staging looked good"]],
      );
      assert.deepEqual(consoleErrors(), []);
      assert.deepEqual(deployPageErrors, []);
    } finally {
      await close();
    }
  });
});
