// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPage } from "../lib/harness.mjs";

describe("sign in", () => {
  test("a token session survives a reload and ends with sign out", { timeout: 120_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      // A shared link while signed out leads to sign-in, then back to it.
      await page.goto("/deployments?state=ERROR");
      await page.waitForURL(/\/signin\?next=/);
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();

      await page.getByLabel("Token", { exact: true }).fill("not-a-token");
      await page.getByRole("button", { name: "Sign in" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      assert.match(await alert.innerText(), /token is not valid/i);
      assert.equal(await alert.getAttribute("data-code"), "UNAUTHENTICATED");
      await screenshot("signin-refused");

      await page.getByLabel("Token", { exact: true }).fill("demo-admin");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/deployments\?state=ERROR$/);
      await page.getByText("token:demo-admin").waitFor();
      assert.equal(await page.getByRole("combobox", { name: "State" }).inputValue(), "ERROR");

      await page.reload();
      await page.getByText("token:demo-admin").waitFor();
      assert.match(page.url(), /\/deployments\?state=ERROR$/);
      await screenshot("signin-signed-in");

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(/\/signin/);
      await page.reload();
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();
      assert.equal(await page.evaluate(() => localStorage.getItem("manent.session")), null);

      // The browser itself logs the refused token's 401 response.
      assert.deepEqual(consoleErrors([/status of 401/]), []);
    } finally {
      await close();
    }
  });
});
