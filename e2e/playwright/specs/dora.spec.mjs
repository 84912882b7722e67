// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, graphql, newPage, signIn, submit } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

const doraQuery = `query ($filter: DoraFilter) {
  doraMetrics(filter: $filter) {
    weeks { year week figures { deploymentFrequency { deploymentIds } changeFailRate { enoughData deploymentIds } } }
    total { changeFailRate { enoughData deploymentIds } }
  }
}`;

/** The week a deploy counts in, as the page names it (2026-W48), from the server's own answer. */
function weekOf(/** @type {any[]} */ weeks, /** @type {string} */ id, /** @type {"deploymentFrequency" | "changeFailRate"} */ metric) {
  const w = weeks.find((w) => w.figures[metric].deploymentIds.includes(id));
  assert.ok(w, `${id} is in a week of ${metric}`);
  return `${w.year}-W${String(w.week).padStart(2, "0")}`;
}

async function finished(/** @type {string} */ id, /** @type {string} */ state) {
  await eventually(async () => JSON.parse((await cli("demo-ci", "status", id, "-o", "json")).stdout).state === state, {
    timeout: 120_000,
    message: `${id} ${state}`,
  });
}

describe("the DORA page", () => {
  test("charts a seeded history and opens the deploys behind a point", { timeout: 240_000 }, async () => {
    // Given a success in staging and a failure in broken, through the real server.
    const ok = await submit("staging");
    const failed = await submit("broken");
    await finished(ok, "SUCCESS");
    await finished(failed, "ERROR");
    const staging = (await graphql("demo-viewer", doraQuery, { filter: { application: "hello", environment: "staging" } })).data.doraMetrics;
    const broken = (await graphql("demo-viewer", doraQuery, { filter: { application: "hello", environment: "broken" } })).data.doraMetrics;
    const okWeek = weekOf(staging.weeks, ok, "deploymentFrequency");
    const failedWeek = weekOf(broken.weeks, failed, "changeFailRate");

    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-viewer");
      // When the page is opened from the nav and filtered on hello in staging.
      await page.getByRole("link", { name: "DORA" }).click();
      await page.waitForURL(/\/dora$/);
      await page.getByRole("textbox", { name: "Application" }).fill("hello");
      await page.getByRole("textbox", { name: "Environment" }).fill("staging");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/\/dora\?application=hello&environment=staging$/);

      // Then each of the five metrics has its chart, drawn as SVG.
      for (const key of ["deploymentFrequency", "leadTime", "changeFailRate", "recoveryTime", "reworkRate"]) {
        await page.locator(`[data-chart="${key}"] svg.recharts-surface`).first().waitFor({ timeout: 30_000 });
      }
      await screenshot("dora");
      // And the point of the success's week opens its deploys, linking to its page.
      await page.locator(`[data-chart="deploymentFrequency"] [data-week="${okWeek}"]`).click();
      const panel = page.getByRole("region", { name: "Deploys behind the figure" });
      await panel.getByText(`Deployment frequency, ${okWeek}`).waitFor();
      await panel.getByRole("link", { name: ok, exact: true }).click();
      await page.waitForURL(new RegExp(`/deployments/${ok}$`));

      // In broken the change fail rate rests on a few deploys: the page says what the server says, and the
      // week's figure opens the failure.
      await page.goto("/dora?application=hello&environment=broken");
      const card = page.getByRole("region", { name: "Change fail rate" });
      const figure = card.locator('[data-figure="changeFailRate"]');
      await figure.waitFor({ timeout: 30_000 });
      if (!broken.total.changeFailRate.enoughData) assert.equal(await figure.innerText(), "Not enough data");
      else assert.match(await figure.innerText(), /%$/);
      await card.locator(`button[data-week="${failedWeek}"]`).click();
      await panel.getByRole("link", { name: failed, exact: true }).waitFor();
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
