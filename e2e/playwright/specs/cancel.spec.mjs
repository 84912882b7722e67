// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { health, newPage, signIn, submit } from "../lib/harness.mjs";

describe("cancel", () => {
  test("a slow deploy is cancelled from its page", { timeout: 180_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      const id = await submit("cancel");
      await signIn(page, "demo-admin");
      await page.goto(`/deployments/${id}`);
      // The deploy waits in post-test on a health check that the spec holds.
      const postTest = page.getByRole("list", { name: "Steps" }).getByRole("listitem").filter({ hasText: "post-test" });
      await page.locator('li[data-state="RUNNING"]').filter({ hasText: "post-test" }).waitFor({ timeout: 120_000 });

      await page.getByRole("button", { name: "Cancel deploy…" }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel this deploy?" });
      await dialog.waitFor();
      await screenshot("cancel-confirm");
      await dialog.getByRole("button", { name: "Cancel deploy" }).click();
      await dialog.waitFor({ state: "hidden" });
      await page.getByText("Cancel requested: it stops at the start of the next step.").waitFor();

      // The step in progress completes; the deploy stops before the next one.
      health().release("cancel");
      await page.locator('.m-badge[data-size="large"][data-state="CANCELLED"]').waitFor({ timeout: 120_000 });
      assert.equal(await postTest.first().getAttribute("data-state"), "SUCCESS");
      const activation = page.getByRole("list", { name: "Steps" }).getByRole("listitem").filter({ hasText: "activation" }).first();
      assert.notEqual(await activation.getAttribute("data-state"), "SUCCESS", "activation did not run");
      assert.equal(await page.getByRole("button", { name: "Cancel deploy…" }).count(), 0);
      await screenshot("cancel");

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
