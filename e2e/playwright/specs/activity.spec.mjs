// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPage, signIn, submit } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

describe("activity and a deploy's page", () => {
  test("a deploy submitted with the CLI appears on Activity and reaches SUCCESS without a reload", { timeout: 180_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      // A mark that a reload would erase, and a record of every state a row shows.
      await page.evaluate(() => {
        const w = /** @type {any} */ (window);
        w.__e2eMark = "same page";
        w.__e2eStates = {};
        new MutationObserver(() => {
          for (const row of document.querySelectorAll("tr[data-deployment-id]")) {
            const id = row.getAttribute("data-deployment-id") ?? "";
            const states = (w.__e2eStates[id] ??= []);
            const s = row.getAttribute("data-state");
            if (states[states.length - 1] !== s) states.push(s);
          }
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
      });

      const id = await submit("staging");
      const submitted = Date.now();
      const row = page.locator(`tr[data-deployment-id="${id}"]`);
      await row.first().waitFor({ timeout: 15_000 });
      const appearedMs = Date.now() - submitted;
      console.log(`deploy ${id} appeared on Activity ${appearedMs} ms after the CLI returned`);
      assert.ok(appearedMs < 5_000, `appeared after ${appearedMs} ms`);
      await screenshot("activity-live");

      await page.locator(`tr[data-deployment-id="${id}"][data-state="SUCCESS"]`).waitFor({ timeout: 120_000 });
      const states = await page.evaluate((id) => /** @type {any} */ (window).__e2eStates[id], id);
      console.log(`states seen on Activity: ${states.join(" → ")}`);
      assert.ok(states.some((/** @type {string} */ s) => s !== "SUCCESS"), `the row went through a state before SUCCESS: ${states}`);
      assert.equal(states[states.length - 1], "SUCCESS");
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).__e2eMark), "same page", "the page was not reloaded");
      await screenshot("activity");

      await row.getByRole("link").first().click();
      await page.waitForURL(new RegExp(`/deployments/${id}$`));
      await page.getByRole("heading", { name: "hello → staging" }).waitFor();
      await page.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor();
      const sha = await page.getByTestId("artifact-sha256").innerText();
      assert.match(sha, /^[0-9a-f]{64}$/);
      const steps = page.getByRole("list", { name: "Steps" }).getByRole("listitem");
      await eventually(async () => (await steps.count()) >= 5, { message: "the steps" });
      for (const name of ["artifacts", "deploy", "post-test", "activation"]) {
        assert.equal(await steps.filter({ hasText: name }).first().getAttribute("data-state"), "SUCCESS", `step ${name}`);
      }

      const log = page.getByRole("log", { name: "Deploy log" });
      await eventually(async () => (await log.locator("[data-level]").count()) > 0, { message: "log lines" });
      const total = await log.locator("[data-level]").count();
      const first = (await log.locator("[data-level]").first().locator("span").last().textContent()) ?? "";
      const word = first.split(/\s+/).find((w) => w.length >= 4) ?? first.slice(0, 4);
      await page.getByRole("searchbox", { name: "Search the log" }).fill(word);
      await page.getByText(new RegExp(`of ${total} lines match`)).waitFor();
      assert.ok((await log.locator("mark").count()) > 0, "matches are marked");
      await page.getByRole("searchbox", { name: "Search the log" }).fill("");
      console.log(`${total} log lines; searched for "${word}"`);
      await screenshot("deployment");
      await log.scrollIntoViewIfNeeded();
      await screenshot("deployment-log");

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
