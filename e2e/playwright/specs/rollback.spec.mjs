// @ts-check
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { cli, health, newPage, signIn, submit, targetDir } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

/** The status JSON of a deploy, as `manent status -o json` prints it. */
async function status(/** @type {string} */ id) {
  const r = await cli("demo-ci", "status", id, "-o", "json");
  assert.equal(r.code, 0, `manent status: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Nothing sticks out sideways: the elements wider than the screen (none on a
 * page that fits), outside those meant to scroll (the matrix, the nav, the log).
 */
async function overflowing(/** @type {import("playwright-core").Page} */ page) {
  return page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth) return [];
    return [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(".m-table-wrap, .m-nav, [role=log]"))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`)
      .slice(0, 10);
  });
}

describe("automatic rollback", () => {
  test("a deploy whose post-test fails is rolled back; its page and the environments say so", { timeout: 300_000 }, async () => {
    // Given hello 1.0.0 in service in the rollback environment (rollback on post-test and activation).
    const good = await submit("rollback");
    await eventually(async () => (await status(good)).state === "SUCCESS", { timeout: 120_000, message: `${good} SUCCESS` });

    // When its health check breaks and 1.1.0 is deployed.
    health().breakSwitch("rollback");
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      const bad = await submit("rollback", "demo-ci", "rollback-1.1.0");
      await page.goto(`/deployments/${bad}`);
      await page.getByRole("heading", { name: "hello → rollback" }).waitFor();

      // Then the page shows ERROR, the rollback completed and its compensation, live.
      await page.locator('.m-badge[data-size="large"][data-state="ERROR"]').waitFor({ timeout: 120_000 });
      const panel = page.getByRole("region", { name: "Rollback" });
      await panel.getByText("Rollback completed").waitFor({ timeout: 60_000 });
      const compensations = panel.getByRole("list", { name: "Compensations" }).getByRole("listitem");
      const compensationNames = await compensations.locator(":scope > div:first-child > span:nth-child(2)").allInnerTexts();
      assert.deepEqual(compensationNames, ["rollback:deploy"], "post-test failed before activation: only deploy is undone");
      assert.equal(await compensations.first().getAttribute("data-state"), "SUCCESS");

      const steps = page.getByRole("list", { name: "Steps" }).getByRole("listitem");
      const checkpoint = steps.filter({ hasText: "checkpoint:deploy" });
      assert.equal(await checkpoint.getAttribute("data-kind"), "CHECKPOINT");
      assert.equal(await checkpoint.getAttribute("data-state"), "SUCCESS");
      const postTest = steps.filter({ has: page.getByText("post-test", { exact: true }) });
      assert.equal(await postTest.getAttribute("data-state"), "ERROR");
      assert.match(await postTest.innerText(), /404/);
      // The checkpoint is listed just before the step it precedes.
      const names = await steps.locator(":scope > div:first-child > span:nth-child(2)").allInnerTexts();
      assert.equal(names.indexOf("checkpoint:deploy") + 1, names.indexOf("deploy"), `steps: ${names.join(", ")}`);
      await panel.scrollIntoViewIfNeeded();
      await screenshot("rollback-deploy");

      // The status JSON says the same, and the target is back on 1.0.0.
      const st = await status(bad);
      assert.equal(st.state, "ERROR");
      assert.equal(st.rollback?.state, "completed", JSON.stringify(st.rollback));
      assert.deepEqual(
        st.rollback.steps.map((/** @type {any} */ s) => `${s.name} ${s.state}`),
        ["rollback:deploy SUCCESS"],
      );
      assert.ok(
        st.steps.some((/** @type {any} */ s) => s.name === "checkpoint:deploy" && s.kind === "checkpoint"),
        `steps: ${st.steps.map((/** @type {any} */ s) => s.name)}`,
      );
      assert.equal(fs.readlinkSync(path.join(targetDir("rollback"), "current")), path.join("releases", "1.0.0"));

      // The environments matrix keeps 1.0.0 in service and shows the last failure beside it.
      await page.getByRole("link", { name: "Environments" }).click();
      const cell = page.locator('td[data-environment="rollback"]');
      await cell.getByRole("link", { name: "1.0.0" }).waitFor({ timeout: 30_000 });
      assert.equal(await cell.getByRole("link", { name: "1.0.0" }).getAttribute("href"), `/deployments/${good}`);
      const failure = cell.getByRole("group", { name: "Last failure" });
      await failure.waitFor();
      assert.equal(await failure.getByRole("link", { name: bad }).getAttribute("href"), `/deployments/${bad}`);
      assert.match(await failure.innerText(), /failed in post-test/);
      await failure.getByText("Rollback completed").waitFor();
      await cell.scrollIntoViewIfNeeded();
      await screenshot("rollback-environments");

      // The inventory of the CLI agrees.
      const inv = await cli("demo-ci", "inventory", "-o", "json");
      const entry = JSON.parse(inv.stdout).find((/** @type {any} */ e) => e.environment === "rollback");
      assert.equal(entry?.deployment_id, good);
      assert.deepEqual(
        { id: entry.last_failure?.deployment_id, step: entry.last_failure?.step, rollback: entry.last_failure?.rollback },
        { id: bad, step: "post-test", rollback: "completed" },
      );

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }

    // On a phone: the same pages, one column, nothing sticking out.
    const phone = await newPage({ viewport: { width: 390, height: 844 } });
    try {
      const bad = JSON.parse((await cli("demo-ci", "inventory", "-o", "json")).stdout).find(
        (/** @type {any} */ e) => e.environment === "rollback",
      ).last_failure.deployment_id;
      await signIn(phone.page, "demo-admin");
      await phone.page.goto(`/deployments/${bad}`);
      const panel = phone.page.getByRole("region", { name: "Rollback" });
      await panel.getByText("Rollback completed").waitFor();
      assert.deepEqual(await overflowing(phone.page), [], "the deploy page fits 390 px");
      await panel.scrollIntoViewIfNeeded();
      await phone.screenshot("rollback-deploy-390");

      await phone.page.goto("/environments/demo/hello/rollback");
      const inService = phone.page.getByRole("region", { name: "In service" });
      await inService.getByRole("group", { name: "Last failure" }).getByText("Rollback completed").waitFor();
      await inService.getByRole("link", { name: "1.0.0" }).waitFor();
      assert.match(await inService.innerText(), /404/);
      assert.deepEqual(await overflowing(phone.page), [], "the environment page fits 390 px");
      await phone.screenshot("rollback-environment-390");

      assert.deepEqual(phone.consoleErrors(), []);
    } finally {
      await phone.close();
    }
  });
});
