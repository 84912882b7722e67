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

const stripQuery = `query ($current: DoraFilter, $previous: DoraFilter) {
  current: doraMetrics(filter: $current) { range { deploymentFrequency { deploys perWeek band } changeFailRate { of rate enoughData band } } }
  previous: doraMetrics(filter: $previous) { range { deploymentFrequency { deploys perWeek } } }
}`;

/** The strip's periods as the wall asks for them: the last 28 days up to the next minute, and the 28 before. */
function stripPeriods(/** @type {number} */ now) {
  const day = 86_400_000;
  const to = Math.ceil(now / 60_000) * 60_000;
  const iso = (/** @type {number} */ t) => new Date(t).toISOString();
  return { current: { from: iso(to - 28 * day), to: iso(to) }, previous: { from: iso(to - 56 * day), to: iso(to - 28 * day) } };
}

const perWeek = (/** @type {number} */ v) => `${Number.isInteger(v) ? v : v.toFixed(1)} / week`;
const bandName = (/** @type {string} */ b) => b.charAt(0) + b.slice(1).toLowerCase();

describe("the wall's DORA strip", () => {
  test("shows the figures the server computes for the last 28 days, with their bands", { timeout: 240_000 }, async () => {
    // Given a success and a failure through the real server.
    const ok = await submit("staging");
    const failed = await submit("broken");
    await finished(ok, "SUCCESS");
    await finished(failed, "ERROR");

    const { page, screenshot, consoleErrors, close } = await newPage({ viewport: { width: 1920, height: 1080 }, colorScheme: "dark" });
    try {
      await signIn(page, "demo-viewer");
      // Without the option there is no strip.
      await page.goto("/wall");
      await page.getByText("● LIVE").waitFor();
      assert.equal(await page.getByRole("region", { name: /DORA/ }).count(), 0);

      await page.goto("/wall?dora=1");
      const strip = page.getByRole("region", { name: "DORA metrics, last 28 days" });
      await strip.waitFor();
      const freq = strip.locator('[data-metric="deploymentFrequency"]');
      const cfr = strip.locator('[data-metric="changeFailRate"]');
      // Then the strip says what doraMetrics answers for the same periods (read again until they agree: a
      // deploy of another spec may end in between, and the strip follows it).
      /** @type {any} */
      let want;
      await eventually(
        async () => {
          want = (await graphql("demo-viewer", stripQuery, stripPeriods(Date.now()))).data;
          const f = want.current.range.deploymentFrequency;
          const text = await freq.innerText();
          if (f.deploys >= 2 && text.includes(perWeek(f.perWeek)) && text.includes(bandName(f.band))) return true;
          throw new Error(`the strip says ${JSON.stringify(text)}, the server ${JSON.stringify(f)}`);
        },
        { timeout: 60_000, message: "the strip's deployment frequency is the server's" },
      );
      assert.match(await freq.innerText(), new RegExp(`28 days before: ${perWeek(want.previous.range.deploymentFrequency.perWeek)}`));
      const c = want.current.range.changeFailRate;
      if (c.enoughData) assert.match(await cfr.innerText(), new RegExp(`${bandName(c.band)}`));
      else {
        assert.match(await cfr.innerText(), /not enough data/);
        assert.equal(await cfr.getAttribute("data-enough"), "false");
      }
      assert.equal(await strip.locator("[data-metric]").count(), 5);
      await screenshot("wall-dora");
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
