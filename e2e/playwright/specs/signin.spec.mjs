// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPage } from "../lib/harness.mjs";

describe("sign in", () => {
  test("a token opens a server-side session that survives a reload and ends with sign out; the page keeps nothing", { timeout: 120_000 }, async () => {
    const { page, context, screenshot, consoleErrors, close } = await newPage();
    try {
      // An old version's token in localStorage is removed, never used.
      await page.goto("/signin");
      await page.evaluate(() => localStorage.setItem("manent.session", JSON.stringify({ kind: "token", token: "demo-admin" })));

      // A shared link while signed out leads to sign-in, then back to it.
      await page.goto("/deployments?state=ERROR");
      await page.waitForURL(/\/signin\?next=/);
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();
      assert.equal(await page.evaluate(() => localStorage.getItem("manent.session")), null);

      await page.getByLabel("Token", { exact: true }).fill("not-a-token");
      await page.getByRole("button", { name: "Sign in with the token", exact: true }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      assert.match(await alert.innerText(), /token is not valid/i);
      assert.equal(await alert.getAttribute("data-code"), "UNAUTHENTICATED");
      await screenshot("signin-refused");

      await page.getByLabel("Token", { exact: true }).fill("demo-admin");
      await page.getByRole("button", { name: "Sign in with the token", exact: true }).click();
      await page.waitForURL(/\/deployments\?state=ERROR$/);
      await page.getByText("token:demo-admin").waitFor();
      assert.equal(await page.getByRole("combobox", { name: "State" }).inputValue(), "ERROR");

      // The session is the server's cookie, which no script of the page can read.
      const cookie = (await context.cookies()).find((c) => c.name === "manent_session");
      assert.ok(cookie, "no session cookie");
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, "Lax");
      assert.equal(await page.evaluate(() => document.cookie.includes("manent_session")), false);
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);

      await page.reload();
      await page.getByText("token:demo-admin").waitFor();
      assert.match(page.url(), /\/deployments\?state=ERROR$/);
      await screenshot("signin-signed-in");

      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await page.waitForURL(/\/signin/);
      await page.reload();
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();
      assert.equal((await context.cookies()).find((c) => c.name === "manent_session"), undefined);
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);

      // The browser itself logs the refused token's 401 response.
      assert.deepEqual(consoleErrors([/status of 401/]), []);
    } finally {
      await close();
    }
  });
});
