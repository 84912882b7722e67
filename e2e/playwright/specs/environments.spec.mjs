// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, graphql, newPage, signIn, submit } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

describe("environments", () => {
  test("the matrix shows the release in service, the one before it, and follows a new deploy live", { timeout: 240_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage({ colorScheme: "dark" });
    try {
      await signIn(page, "demo-admin");
      await page.getByRole("link", { name: "Environments" }).click();
      await page.getByRole("heading", { name: "Environments" }).waitFor();

      const cell = page.locator('td[data-environment="staging"]');
      // The release in service of the cell (its first link), the one before
      // (the link of the Previous release group), and no deploy running there.
      const served = (/** @type {string} */ id, /** @type {string | null} */ before) =>
        page.waitForFunction(
          ([id, before]) => {
            const td = document.querySelector('td[data-environment="staging"]');
            const previous = td?.querySelector('[aria-label="Previous release"] a');
            const release = td ? [...td.querySelectorAll("a")].filter((a) => !a.closest('[aria-label="Previous release"]')) : [];
            return (
              release.length === 1 &&
              release[0]?.getAttribute("href") === `/deployments/${id}` &&
              (before === null || previous?.getAttribute("href") === `/deployments/${before}`) &&
              !td?.querySelector(".m-badge")
            );
          },
          [id, before],
          { timeout: 120_000 },
        );
      const first = await submit("staging");
      await served(first, null);
      const id = await submit("staging");
      // While it runs the cell says so; once it succeeds the cell links to it, and to the first as the one before.
      await cell.locator(`a[href="/deployments/${id}"]`).first().waitFor({ timeout: 60_000 });
      await served(id, first);
      assert.equal((await cell.getByRole("link").first().innerText()).trim(), "1.0.0");
      assert.match(await cell.getByRole("group", { name: "Previous release" }).innerText(), /^before 1\.0\.0/);
      assert.match(await cell.innerText(), /by\s+token:demo-ci/);
      assert.equal(await page.getByRole("rowheader", { name: /hello/ }).count(), 1);
      await screenshot("environments-dark");

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });

  test("an environment whose only deploy failed keeps its column, marked, and the failure is told in words", { timeout: 180_000 }, async () => {
    // Given a deploy to broken, whose health check answers 404: it ends ERROR, nothing in service there.
    const id = await submit("broken");
    await eventually(async () => JSON.parse((await cli("demo-ci", "status", id, "-o", "json")).stdout).state === "ERROR", {
      timeout: 120_000,
      message: `${id} ERROR`,
    });
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      // When the matrix is loaded directly.
      await page.goto("/environments");
      const broken = page.locator('td[data-environment="broken"]');
      // Then the column is there, the cell marked failing, with the deploy that failed.
      await broken.getByRole("link", { name: id }).waitFor({ timeout: 30_000 });
      await page.getByRole("columnheader", { name: "broken" }).waitFor();
      assert.equal(await broken.getAttribute("data-failing"), "true");
      assert.match(await broken.innerText(), /nothing in service/);
      const failure = broken.getByRole("group", { name: "Last failure" });
      assert.match(await failure.innerText(), /^Last deploy failed/);
      assert.match(await failure.innerText(), /failed in post-test/);
      assert.equal(await page.locator('td[data-environment="staging"]').getAttribute("data-failing"), null, "staging has not failed");
      const marked = await broken.evaluate((td) => getComputedStyle(td).backgroundColor);
      const plain = await page.locator('td[data-environment="staging"]').evaluate((td) => getComputedStyle(td).backgroundColor);
      assert.notEqual(marked, plain, "the failing cell is drawn apart");
      await broken.scrollIntoViewIfNeeded();
      await screenshot("environments-failure");

      // Its page tells the error in words, the error as recorded behind Details.
      await failure.getByRole("link", { name: id }).click();
      await page.waitForURL(new RegExp(`/deployments/${id}$`));
      const alert = page.getByRole("alert").filter({ hasText: "Failed:" });
      await alert.waitFor({ timeout: 30_000 });
      const steps = page.getByRole("list", { name: "Steps" });
      const postTest = steps.getByRole("listitem").filter({ has: page.getByText("post-test", { exact: true }) });
      assert.match(await postTest.innerText(), /answered HTTP 404 Not Found: nothing is there at that address/);
      const details = postTest.locator("details");
      assert.equal(await details.getAttribute("open"), null);
      assert.ok(!(await postTest.innerText()).includes("/missing: HTTP 404"), "the recorded error waits behind Details");
      await details.locator("summary").click();
      assert.match(await details.innerText(), /health check http:\/\/127\.0\.0\.1:\d+\/missing: HTTP 404/);
      await screenshot("deploy-failure-in-words");

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });

  test("the freeze calendar of hello/prod shows the demo's recurring Sunday window", { timeout: 120_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-admin");
      await page.goto("/environments/demo/hello/prod");
      await page.getByRole("heading", { name: "hello → prod" }).waitFor();
      const headline = page.getByTestId("freeze-headline");
      await headline.waitFor();
      // Frozen on a Sunday (UTC), before the next Sunday any other day.
      const sundayUTC = new Date().getUTCDay() === 0;
      assert.match(await headline.innerText(), sundayUTC ? /^Frozen now until .*, by sunday$/ : /^Next freeze .*, by sunday$/);

      const rows = page.locator('table[aria-label="Freeze windows"] tbody tr[data-rule="sunday"]');
      await rows.first().waitFor();
      // 30 days hold four or five Sundays, the one in force included.
      const n = await rows.count();
      assert.ok(n >= 4 && n <= 5, `${n} Sunday windows`);
      for (let i = 0; i < n; i++) {
        const [start, end] = await rows.nth(i).locator("time").evaluateAll((ts) => ts.map((t) => t.getAttribute("datetime") ?? ""));
        const s = new Date(start ?? "");
        assert.equal(s.getUTCDay(), 0, `window ${i} starts ${start}`);
        assert.equal(s.toISOString().slice(11), "00:00:00.000Z", `window ${i} starts ${start}`);
        assert.equal(Date.parse(end ?? "") - s.getTime(), 24 * 3600 * 1000, `window ${i} ends ${end}`);
        assert.match(await rows.nth(i).innerText(), /recurring: 0 0 \* \* SUN \(UTC\)/);
      }
      await screenshot("environments-freeze-calendar");

      // The API says the same: the same windows, and frozenNow or next.
      const { data } = await graphql(
        "demo-admin",
        `{ freezeCalendar(application: "hello", environment: "prod") { frozenNow { rule } next { rule start } windows { rule start end recurring cron timeZone } } }`,
      );
      const cal = data.freezeCalendar;
      assert.equal(cal.windows.length, n);
      assert.ok(cal.windows.every((/** @type {any} */ w) => w.rule === "sunday" && w.recurring && w.cron === "0 0 * * SUN" && w.timeZone === "UTC"));
      assert.equal((sundayUTC ? cal.frozenNow : cal.next)?.rule, "sunday");

      // Staging has no freeze: its calendar says so.
      await page.goto("/environments/demo/hello/staging");
      await page.getByTestId("freeze-headline").getByText("No freeze in the next 30 days").waitFor();

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
