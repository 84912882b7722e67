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

  // The actions come with the mutations of rollout control (pauseRollout,
  // resumeRollout, abortRollout and the approval of a pending wave), which
  // are not merged yet: the panel has no button to press.
  test("approve and abort work for an allowed identity and are absent for a viewer", {
    todo: "fixme: needs the rollout actions (approval between waves, abortRollout) on the deploy page",
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
