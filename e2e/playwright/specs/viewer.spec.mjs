// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, graphql, health, newPage, signIn, submit } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

describe("a read-only identity", () => {
  test("demo-viewer sees no Cancel button and the server refuses its cancel", { timeout: 180_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    const id = await submit("viewer");
    try {
      await signIn(page, "demo-viewer");
      await page.goto(`/deployments/${id}`);
      await page.locator('li[data-state="RUNNING"]').filter({ hasText: "post-test" }).waitFor({ timeout: 120_000 });
      await page.getByRole("heading", { name: "hello → viewer" }).waitFor();
      assert.equal(await page.getByRole("button", { name: /cancel/i }).count(), 0, "no Cancel button for demo-viewer");
      await screenshot("viewer");

      const refused = await graphql("demo-viewer", "mutation($id: ID!) { cancelDeployment(id: $id) { id state } }", { id });
      assert.equal(refused.errors?.[0]?.extensions?.code, "FORBIDDEN", JSON.stringify(refused));

      // The refusal changed nothing, and the same deploy can be cancelled by demo-ci.
      const after = await graphql("demo-admin", "query($id: ID!) { deployment(id: $id) { state cancelRequested canCancel } }", { id });
      assert.deepEqual(after.data?.deployment, { state: "PENDING", cancelRequested: false, canCancel: true });

      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
      const r = await cli("demo-ci", "cancel", id);
      health().release("viewer");
      assert.equal(r.code, 0, `manent cancel: ${r.stdout}${r.stderr}`);
      await eventually(
        async () => {
          const s = await graphql("demo-admin", "query($id: ID!) { deployment(id: $id) { state } }", { id });
          return s.data?.deployment?.state === "CANCELLED";
        },
        { timeout: 120_000, message: "the viewer's deploy to end" },
      );
    }
  });
});
