// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { newPage, signIn, startServer, stopServer, submit } from "../lib/harness.mjs";

// What Chromium logs by itself while the server is away.
const offlineNoise = [/WebSocket connection to .* failed/, /Failed to load resource/, /ERR_CONNECTION_REFUSED/];

describe("wall display", () => {
  test("shows deploys live, says it is reconnecting while the server restarts, and is live again after", { timeout: 300_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage({ viewport: { width: 1920, height: 1080 }, colorScheme: "dark" });
    try {
      await signIn(page, "demo-viewer");
      await page.goto("/wall");
      const status = page.locator('[role="status"][data-status]');
      await page.getByText("● LIVE").waitFor();

      const failed = await submit("broken");
      await page.locator(`section[data-kind="failed"] li[data-deployment-id="${failed}"]`).waitFor({ timeout: 60_000 });
      const first = await submit("wall");
      await page.locator(`li[data-deployment-id="${first}"]`).waitFor({ timeout: 30_000 });
      await screenshot("wall");

      await stopServer();
      await page.getByText(/^Reconnecting…/).waitFor({ timeout: 60_000 });
      assert.equal(await status.getAttribute("data-status"), "reconnecting");
      await page.getByRole("alert").filter({ hasText: "Connection lost" }).waitFor();
      await screenshot("wall-reconnecting");

      await startServer();
      await page.getByText("● LIVE").waitFor({ timeout: 90_000 });
      assert.equal(await page.getByRole("alert").filter({ hasText: "Connection lost" }).count(), 0);

      // Live again, without a reload: a new deploy shows up.
      const second = await submit("wall");
      await page.locator(`li[data-deployment-id="${second}"]`).waitFor({ timeout: 60_000 });
      await screenshot("wall-reconnected");

      assert.deepEqual(consoleErrors(offlineNoise), []);
    } finally {
      await close();
    }
  });

  test("reads from across a room on a 4K screen", { timeout: 120_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage({ viewport: { width: 3840, height: 2160 }, colorScheme: "dark" });
    try {
      await signIn(page, "demo-viewer");
      await page.goto("/wall");
      await page.getByText("● LIVE").waitFor();
      const size = await page.locator("h2", { hasText: "Running" }).evaluate((h) => parseFloat(getComputedStyle(h).fontSize));
      assert.ok(size >= 48, `column titles are ${size}px on a 4K wall`);
      await screenshot("wall-4k");
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
