// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, newPage, signIn, submit } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

describe("the Audit page", () => {
  test("lists a deploy's entries, filtered from the URL and from the form, and opens the deploy", { timeout: 180_000 }, async () => {
    // Given a deploy to broken that ended ERROR: its submit and finish are in the audit.
    const id = await submit("broken");
    await eventually(async () => JSON.parse((await cli("demo-ci", "status", id, "-o", "json")).stdout).state === "ERROR", {
      timeout: 120_000,
      message: `${id} ERROR`,
    });
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-viewer");
      // When the page is opened on the environment's entries.
      await page.goto("/audit?environment=broken");
      const table = page.getByRole("table");
      const finish = table.locator('tr[data-action="deployment.finish"]').filter({ hasText: id });
      await finish.waitFor({ timeout: 30_000 });
      // Then the finish tells who, what and how it ended, about hello in broken.
      const text = await finish.innerText();
      assert.match(text, /token:demo-ci/);
      assert.match(text, /ERROR/);
      assert.match(text, /demo\/hello\/broken/);
      assert.ok((await table.locator('tr[data-action="deployment.submit"]').filter({ hasText: id }).count()) === 1, "the submit is listed");
      for (const env of await table.locator("tbody tr td:nth-child(5)").allInnerTexts()) {
        assert.equal(env, "demo/hello/broken", "only entries about broken");
      }
      await screenshot("audit");

      // When the action is filtered in the form, only the submits stay, and the URL says so.
      await page.getByRole("textbox", { name: "Action" }).fill("deployment.submit");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL(/\/audit\?environment=broken&action=deployment.submit$/);
      await eventually(async () => (await table.locator('tr[data-action="deployment.finish"]').count()) === 0, {
        timeout: 30_000,
        message: "the finish entries filtered out",
      });
      const submitted = table.locator('tr[data-action="deployment.submit"]').filter({ hasText: id });
      await submitted.waitFor();

      // A filter nothing matches says so.
      await page.getByRole("textbox", { name: "Identity" }).fill("token:nobody");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.getByText("No entry matches these filters.").waitFor({ timeout: 30_000 });

      // The target opens the deploy.
      await page.goto("/audit?environment=broken&action=deployment.submit");
      await table.getByRole("link", { name: id }).click();
      await page.waitForURL(new RegExp(`/deployments/${id}$`));
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
