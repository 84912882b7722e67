// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPage, signIn, submit } from "../lib/harness.mjs";

describe("environments", () => {
  test("the matrix shows the release in service and follows a new deploy live", { timeout: 180_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage({ colorScheme: "dark" });
    try {
      await signIn(page, "demo-admin");
      await page.getByRole("link", { name: "Environments" }).click();
      await page.getByRole("heading", { name: "Environments" }).waitFor();

      const id = await submit("staging");
      const cell = page.locator('td[data-environment="staging"]');
      // While it runs the cell says so; once it succeeds the cell links to it.
      await cell.locator(`a[href="/deployments/${id}"]`).first().waitFor({ timeout: 60_000 });
      await page.waitForFunction(
        (id) => {
          const td = document.querySelector('td[data-environment="staging"]');
          const links = td ? [...td.querySelectorAll("a")] : [];
          return links.length === 1 && links[0]?.getAttribute("href") === `/deployments/${id}` && !td?.querySelector(".m-badge");
        },
        id,
        { timeout: 120_000 },
      );
      assert.equal((await cell.getByRole("link").innerText()).trim(), "1.0.0");
      assert.match(await cell.innerText(), /by\s+token:demo-ci/);
      assert.equal(await page.getByRole("rowheader", { name: /hello/ }).count(), 1);
      await screenshot("environments-dark");

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
