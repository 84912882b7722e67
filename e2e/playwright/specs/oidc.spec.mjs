// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPageOn, psql, startDevServer } from "../lib/harness.mjs";

describe("single sign-on", () => {
  test("alice signs in at the development provider (code + PKCE), sees who she is, signs out; an expired session is refused", { timeout: 300_000 }, async () => {
    const dev = await startDevServer();
    const { page, context, screenshot, consoleErrors, close } = await newPageOn(dev.url);
    /** Signs alice in from the sign-in page through the provider's own sign-in page. */
    const signInAsAlice = async () => {
      const authorize = page.waitForRequest((r) => r.url().startsWith(`${dev.issuer}/`) && r.url().includes("code_challenge="));
      await page.getByRole("link", { name: "Sign in with the demo provider" }).click();
      const q = new URL((await authorize).url()).searchParams;
      assert.equal(q.get("code_challenge_method"), "S256");
      assert.equal(q.get("response_type"), "code");
      assert.ok((q.get("state") ?? "").length >= 43 && (q.get("nonce") ?? "").length >= 43, "state and nonce of 256 bits");
      await page.waitForURL((u) => u.href.startsWith(`${dev.issuer}/login`));
      await page.getByLabel("User").fill("alice");
      await page.getByLabel("Password").fill(dev.passwords.alice ?? "");
      await page.getByRole("button", { name: "Sign in" }).click();
    };
    try {
      await page.goto("/releases");
      await page.waitForURL(/\/signin\?next=/);
      // The demo offers both: the provider and a token.
      await page.getByLabel("Token", { exact: true }).waitFor();
      await screenshot("oidc-signin-page");

      await signInAsAlice();
      // Back from the provider, on the page that sent her to sign in.
      await page.waitForURL(`${dev.url}/releases`);
      await page.getByText("oidc:alice").waitFor();
      await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
      await screenshot("oidc-signed-in");

      // The page never sees a token: an HttpOnly cookie, nothing in storage.
      const cookie = (await context.cookies(dev.url)).find((c) => c.name === "manent_session");
      assert.ok(cookie, "no session cookie");
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, "Lax");
      assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);
      const session = await page.evaluate(() => fetch("/auth/session").then((r) => r.json()));
      assert.deepEqual(session.identity, { subject: "oidc:alice", groups: ["release-managers"] });
      assert.equal(JSON.stringify(session).includes("eyJ"), false, "a JWT reached the page");

      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await page.waitForURL(/\/signin/);
      await page.reload();
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();
      assert.equal((await context.cookies(dev.url)).find((c) => c.name === "manent_session"), undefined);
      await page.goto("/releases");
      await page.waitForURL(/\/signin\?next=/);

      // A session past its expiry is refused: signed in again, then the
      // session's time is over in the database.
      await signInAsAlice();
      await page.waitForURL(`${dev.url}/releases`);
      await page.getByText("oidc:alice").waitFor();
      const expired = await psql(dev.dbURL, "UPDATE manent.sessions SET expires_at = now() - interval '1 second' WHERE subject = 'oidc:alice' RETURNING 1");
      assert.equal(expired, "1");
      const refused = await page.evaluate(() =>
        fetch("/graphql", { method: "POST", headers: { "Content-Type": "application/json", "X-Manent-CSRF": "1" }, body: JSON.stringify({ query: "{ viewer { subject } }" }) }).then(
          (r) => r.status,
        ),
      );
      assert.equal(refused, 401);
      await page.reload();
      await page.waitForURL(/\/signin\?next=%2Freleases/);
      await page.getByRole("heading", { name: "Sign in to manent" }).waitFor();
      assert.equal(await psql(dev.dbURL, "SELECT count(*) FROM manent.sessions WHERE subject = 'oidc:alice'"), "0", "the expired session is purged");
      await screenshot("oidc-expired");

      // The provider's sign-in page has no icon; the expired session's 401 is the test's own request.
      assert.deepEqual(consoleErrors([/status of 401 .*\/graphql/, /status of 404 .*\/favicon\.ico/]), []);
    } finally {
      await close();
      await dev.stop();
    }
  });
});
