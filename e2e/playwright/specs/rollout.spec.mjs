// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, newPage, signIn, submit, submitFile } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

/** The status JSON of a deploy, as `manent status -o json` prints it. */
async function status(/** @type {string} */ id) {
  const r = await cli("demo-ci", "status", id, "-o", "json");
  assert.equal(r.code, 0, `manent status: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The states of the cells of each batch of a wave, as the page shows them: "SUCCESS,PENDING|...". */
const batchStates = (/** @type {string} */ w) =>
  [...document.querySelectorAll(`[role="group"][aria-label^="Batch "][aria-label*=" of wave ${w}:"]`)]
    .map((b) => [...b.querySelectorAll('[role="img"][data-state]')].map((c) => c.getAttribute("data-state")).join(","))
    .join("|");

describe("rollout", () => {
  test("the wave grid follows a rollout live: cells change as batches run, the bake counts down", { timeout: 300_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      // Given a rollout of four targets: a canary that bakes 6 s, then three batches of one.
      const id = await submit("rollout");
      await page.goto(`/deployments/${id}`);
      const card = page.locator("section[data-rollout-state]");
      await card.getByRole("heading", { name: "Rollout" }).waitFor({ timeout: 60_000 });
      const waves = card.getByRole("list", { name: "Waves" }).locator(":scope > li");
      assert.equal(await waves.count(), 2);

      // When the canary bakes, its countdown moves: read it, then wait for another reading.
      const countdown = card.locator("[data-bake-until]");
      await countdown.waitFor({ timeout: 60_000 });
      const first = (await countdown.innerText()).trim();
      assert.match(first, /^baking \d+:\d\d$/);
      await page.waitForFunction((before) => {
        const now = document.querySelector("[data-bake-until]")?.textContent?.trim();
        return now !== undefined && now !== before;
      }, first, { timeout: 30_000 });
      const second = (await countdown.innerText()).trim();
      const seconds = (/** @type {string} */ text) => text.replace(/^baking /, "").split(":").reduce((n, part) => n * 60 + Number(part), 0);
      assert.ok(seconds(second) < seconds(first), `the countdown went from ${first} to ${second}: it counts down`);
      assert.equal(await waves.first().getAttribute("aria-current"), "step", "the baking wave is the current one");
      await screenshot("rollout-baking");

      // Then the rest wave's cells turn one batch at a time, without a reload: a moment when the
      // first batch succeeded while the last has not started.
      await page.waitForFunction(
        (/** @type {string} */ w) => {
          const states = [...document.querySelectorAll(`[role="group"][aria-label*=" of wave ${w}:"]`)].map(
            (b) => b.querySelector('[role="img"][data-state]')?.getAttribute("data-state"),
          );
          return states.length === 3 && states[0] === "SUCCESS" && states[2] === "PENDING";
        },
        "rest",
        { timeout: 120_000 },
      );
      assert.equal(await waves.nth(1).getAttribute("aria-current"), "step", "the rest wave is current");
      await screenshot("rollout-running");
      await page.locator('section[data-rollout-state="COMPLETED"]').waitFor({ timeout: 120_000 });
      assert.equal(await page.evaluate(batchStates, "rest"), "SUCCESS|SUCCESS|SUCCESS");
      assert.equal(await page.evaluate(batchStates, "canary"), "SUCCESS");
      assert.equal((await status(id)).state, "SUCCESS");
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });

  test("approve and abort work for an allowed identity and are absent for a viewer", { timeout: 300_000 }, async () => {
    const admin = await newPage();
    const viewer = await newPage();
    try {
      await signIn(admin.page, "demo-admin");
      await signIn(viewer.page, "demo-viewer");
      /** The rollout card of a deploy's page, once it is in state. */
      const card = async (/** @type {import("playwright-core").Page} */ page, /** @type {string} */ id, /** @type {string} */ state) => {
        if (!page.url().endsWith(`/deployments/${id}`)) await page.goto(`/deployments/${id}`);
        const c = page.locator(`section[data-rollout-state="${state}"]`);
        await c.waitFor({ timeout: 120_000 });
        return c;
      };
      const buttons = /\b(Pause|Resume|Abort|Approve|Reject)…/;

      // Given a rollout whose last wave waits for an approval, submitted by demo-ci.
      const approveID = await submitFile("rollout-approve.yml");
      const awaiting = await card(admin.page, approveID, "AWAITING_APPROVAL");
      await awaiting.locator('[data-approval-status="waiting"]').getByText("Approval before the wave: waiting, 0 of 1").waitFor();
      // A viewer sees the rollout wait and none of its actions.
      const viewed = await card(viewer.page, approveID, "AWAITING_APPROVAL");
      await viewed.locator('[data-approval-status="waiting"]').waitFor();
      assert.equal(await viewed.getByRole("button", { name: buttons }).count(), 0, "no rollout action for a viewer");
      assert.equal(await viewed.getByRole("group", { name: "Rollout actions" }).count(), 0);
      await viewer.screenshot("rollout-awaiting-approval-viewer");

      // The pending wave is in demo-admin's Approvals inbox too: counted in the badge, named, with its buttons.
      const nav = admin.page.getByRole("navigation", { name: "Main" });
      await nav.getByTestId("nav-badge-approvals").filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 30_000 });
      await nav.getByRole("link", { name: /Approvals/ }).click();
      await admin.page.waitForURL(/\/approvals$/);
      const inboxItem = admin.page.locator(`li[data-deployment-id="${approveID}"]`);
      await inboxItem.waitFor({ timeout: 30_000 });
      assert.equal(await inboxItem.getAttribute("data-approval-wave"), "last");
      await inboxItem.getByText("Wave last (2 of 2) of the rollout waits for approval before it starts.").waitFor();
      await inboxItem.getByText("0 of 1 approved so far; 1 more approval needed.").waitFor();
      assert.equal(await inboxItem.getByRole("button", { name: "Approve…" }).count(), 1, "Approve in the inbox");
      assert.equal(await inboxItem.getByRole("button", { name: "Reject…" }).count(), 1, "Reject in the inbox");
      await admin.screenshot("rollout-approval-inbox");
      // Back to the deploy's page, where the card answers it.
      await card(admin.page, approveID, "AWAITING_APPROVAL");

      // When demo-admin approves the pending wave on the card, the rollout goes on to its end.
      await awaiting.getByRole("button", { name: "Approve…" }).click();
      // The confirmation names the wave and the release, not "this deploy".
      const approveDialog = admin.page.getByRole("dialog", { name: "Approve wave last of hello-1.0.0?" });
      await approveDialog.getByLabel("Comment (kept in the audit log)").fill("the first wave looks fine");
      await admin.screenshot("rollout-approve-dialog");
      await approveDialog.getByRole("button", { name: "Approve wave last" }).click();
      await card(admin.page, approveID, "COMPLETED");
      assert.equal(await admin.page.evaluate(batchStates, "last"), "SUCCESS");
      const approved = await status(approveID);
      assert.equal(approved.state, "SUCCESS");
      assert.deepEqual(
        approved.rollout.waves[1].approval.approvals.map((/** @type {{identity: string, approved: boolean}} */ a) => [a.identity, a.approved]),
        [["token:demo-admin", true]],
      );
      // The viewer's page, open all along, followed it without a reload.
      await card(viewer.page, approveID, "COMPLETED");
      // The answered wave has left the inbox.
      await admin.page.goto("/approvals");
      await admin.page.getByRole("heading", { name: "Approvals", level: 1 }).waitFor();
      await admin.page.locator(`li[data-deployment-id="${approveID}"]`).waitFor({ state: "detached", timeout: 30_000 });

      // Given another rollout, baking its first wave for ten minutes.
      const abortID = await submitFile("rollout-abort.yml");
      const baking = await card(admin.page, abortID, "RUNNING");
      await baking.locator("[data-bake-until]").waitFor({ timeout: 120_000 });
      const viewedBake = await card(viewer.page, abortID, "RUNNING");
      await viewedBake.locator("[data-bake-until]").waitFor({ timeout: 120_000 });
      assert.equal(await viewedBake.getByRole("button", { name: buttons }).count(), 0, "no rollout action for a viewer");

      // When demo-admin aborts it, a confirmation comes first: "Not now" changes nothing.
      await baking.getByRole("button", { name: "Abort…" }).click();
      const abortDialog = admin.page.getByRole("dialog", { name: "Abort this rollout?" });
      await abortDialog.getByRole("button", { name: "Not now" }).click();
      await abortDialog.waitFor({ state: "hidden" });
      assert.equal((await status(abortID)).rollout.state, "running", "a dismissed abort changes nothing");
      await baking.getByRole("button", { name: "Abort…" }).click();
      await abortDialog.getByLabel("Reason (in the deploy's error and the audit log)").fill("Playwright: abort in the bake");
      await abortDialog.getByRole("button", { name: "Abort rollout" }).click();

      // Then the rollout ends aborted, its first wave rolled back, the last never started.
      const aborted = await card(admin.page, abortID, "ABORTED");
      await aborted.getByRole("listitem", { name: /^Wave 2 of 2: last, / }).waitFor();
      await admin.page.locator('.m-badge[data-size="large"][data-state="ERROR"]').waitFor({ timeout: 60_000 });
      assert.equal(await aborted.getByRole("button", { name: buttons }).count(), 0, "no action on an ended rollout");
      await admin.screenshot("rollout-aborted");
      const end = await eventually(
        async () => {
          const st = await status(abortID);
          return st.rollback?.state === "completed" ? st : undefined;
        },
        { timeout: 120_000, message: `${abortID}: rollback completed` },
      );
      assert.equal(end.state, "ERROR");
      assert.match(end.error, /rollout aborted by token:demo-admin: Playwright: abort in the bake/);
      assert.equal(end.rollout.state, "aborted");
      assert.deepEqual(
        end.rollout.waves.map((/** @type {{name: string, state: string}} */ w) => [w.name, w.state]),
        [
          ["first", "rolled_back"],
          ["last", "skipped"],
        ],
      );
      await card(viewer.page, abortID, "ABORTED");
      assert.deepEqual(admin.consoleErrors(), []);
      assert.deepEqual(viewer.consoleErrors(), []);
    } finally {
      await admin.close();
      await viewer.close();
    }
  });

  test("renders 500 targets in 10 waves (prints the time, asserts none)", { timeout: 300_000 }, async (t) => {
    // A dry run: the span runs per batch without changing a target, so
    // 500 cells cost the server little and the page has a whole rollout.
    const id = await submitFile("fleet500.yml", "demo-ci", "--dry-run");
    await eventually(async () => (await status(id)).state === "SUCCESS", { timeout: 240_000, message: `${id} SUCCESS` });
    const { page, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      const started = Date.now();
      await page.goto(`/deployments/${id}`);
      await page.waitForFunction(() => document.querySelectorAll('section[data-rollout-state] [role="img"][data-state]').length === 500, null, {
        timeout: 120_000,
        polling: "raf",
      });
      const ms = Date.now() - started;
      const waves = await page.locator('section[data-rollout-state] ol[aria-label="Waves"] > li').count();
      assert.equal(waves, 10);
      const message = `rollout grid: 500 targets in ${waves} waves rendered ${ms} ms after navigation (dry run ${id})`;
      t.diagnostic(message);
      console.log(message);
    } finally {
      await close();
    }
  });
});
