// @ts-check
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { cli, graphql, health, newPage, signIn, submit, targetDir } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

/** The status JSON of a deploy, as `manent status -o json` prints it. */
async function status(/** @type {string} */ id) {
  const r = await cli("demo-admin", "status", id, "-o", "json");
  assert.equal(r.code, 0, `manent status ${id}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** The ID in a deploy page's path. */
const pageID = (/** @type {string} */ url) => decodeURIComponent(new URL(url).pathname.replace(/^\/deployments\//, ""));

describe("actions from the browser", () => {
  test("redeploy, roll back and promote reach the server and show their result live; a viewer is offered none", { timeout: 420_000 }, async () => {
    // Given hello 1.0.0 deployed to staging (no governance there).
    const first = await submit("staging");
    await eventually(async () => (await status(first)).state === "SUCCESS", { timeout: 120_000, message: `${first} SUCCESS` });

    const admin = await newPage();
    const viewer = await newPage();
    /** @type {string[]} */
    const started = [];
    try {
      await signIn(admin.page, "demo-admin");
      await signIn(viewer.page, "demo-viewer");

      // Redeploy: the confirmation says what runs, the new deploy's page follows it to SUCCESS.
      const page = admin.page;
      await page.goto(`/deployments/${first}`);
      await page.getByRole("heading", { name: "hello → staging" }).waitFor();
      await page.getByRole("button", { name: "Redeploy…" }).click();
      const redeployDialog = page.getByRole("dialog", { name: "Redeploy this release?" });
      await redeployDialog.getByText(`Redeploy hello 1.0.0 (${first}) in staging: a new deploy runs the same artifact and descriptor again`).waitFor();
      await redeployDialog.getByRole("button", { name: "Redeploy", exact: true }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/deployments/") && pageID(u.href) !== first, { timeout: 30_000 });
      const redeployed = pageID(page.url());
      started.push(redeployed);
      await page.getByRole("heading", { name: "hello → staging" }).waitFor();
      await page.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor({ timeout: 120_000 });
      const rs = await status(redeployed);
      assert.equal(rs.requester, "token:demo-admin");
      assert.equal(rs.promoted_from, first, JSON.stringify(rs));

      // The viewer, on the same pages, is offered no action; the server refuses them anyway.
      const v = viewer.page;
      await v.goto(`/deployments/${first}`);
      await v.getByRole("heading", { name: "hello → staging" }).waitFor();
      await v.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor();
      assert.equal(await v.getByRole("button", { name: /Redeploy|Promote/ }).count(), 0, "no redeploy or promote for demo-viewer");
      await v.goto("/environments/demo/hello/staging");
      const viewerHistory = v.getByRole("table", { name: "Deploys here" });
      await viewerHistory.locator(`tr[data-deployment-id="${redeployed}"]`).waitFor({ timeout: 30_000 });
      assert.equal(await v.getByRole("button", { name: /Roll back|Promote/ }).count(), 0, "no rollback or promote for demo-viewer");
      await v.goto("/environments");
      await v.getByRole("table").first().waitFor();
      assert.equal(await v.getByRole("button", { name: /^→ / }).count(), 0, "no promotion in the matrix for demo-viewer");
      const refused = await graphql("demo-viewer", "mutation($id: ID!) { redeploy(id: $id) { id } }", { id: first });
      assert.equal(refused.errors?.[0]?.extensions?.code, "FORBIDDEN", JSON.stringify(refused));

      // Roll back: the environment's history offers the earlier release, not the one in service.
      await page.goto("/environments/demo/hello/staging");
      const history = page.getByRole("table", { name: "Deploys here" });
      const earlier = history.locator(`tr[data-deployment-id="${first}"]`);
      await earlier.waitFor({ timeout: 30_000 });
      assert.equal(await history.locator(`tr[data-deployment-id="${redeployed}"]`).getByRole("button").count(), 0, "no rollback to the release in service");
      await earlier.getByRole("button", { name: "Roll back to this…" }).click();
      const rollbackDialog = page.getByRole("dialog", { name: "Roll back staging to 1.0.0?" });
      await rollbackDialog.getByText(`Roll back hello in staging to 1.0.0 (${first}), deployed by token:demo-ci on`).waitFor();
      await rollbackDialog.getByRole("button", { name: "Roll back", exact: true }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/deployments/") && ![first, redeployed].includes(pageID(u.href)), { timeout: 30_000 });
      const rolledBack = pageID(page.url());
      started.push(rolledBack);
      await page.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor({ timeout: 120_000 });
      // The environment page, open again, has the rollback in its history, in service.
      await page.goto("/environments/demo/hello/staging");
      await page.getByRole("table", { name: "Deploys here" }).locator(`tr[data-deployment-id="${rolledBack}"][data-state="SUCCESS"]`).waitFor({ timeout: 30_000 });
      await page.getByRole("region", { name: "In service" }).getByRole("link", { name: "1.0.0" }).first().waitFor();

      // Promote, from the Environments matrix cell: the prod governance applies (approval; a freeze on Sundays).
      await page.goto("/environments");
      const promote = page.getByRole("button", { name: "→ prod…" }).first();
      await promote.waitFor({ timeout: 30_000 });
      await promote.click();
      const promoteDialog = page.getByRole("dialog", { name: "Promote to prod?" });
      await promoteDialog.getByText(/from staging to prod: a new deploy of the same artifact and descriptor runs in prod, without the source's after and deployment imports/).waitFor();
      await promoteDialog.getByRole("button", { name: "Promote to prod", exact: true }).click();
      if (new Date().getUTCDay() === 0) {
        // examples/ freezes prod on Sundays: the server's refusal is shown and nothing starts.
        await promoteDialog.getByRole("alert").filter({ hasText: /freeze/i }).waitFor({ timeout: 30_000 });
        await promoteDialog.getByRole("button", { name: "Not now" }).click();
      } else {
        await page.waitForURL(/\/deployments\//, { timeout: 30_000 });
        const promoted = pageID(page.url());
        started.push(promoted);
        await page.getByRole("heading", { name: "hello → prod" }).waitFor();
        await page.locator('.m-badge[data-size="large"][data-state="AWAITING_APPROVAL"]').waitFor({ timeout: 60_000 });
        // The approval's context: what is in service in prod now against what is proposed.
        const section = page.locator("section.m-approval-section");
        await section.getByTestId("approval-proposed").filter({ hasText: "hello 1.0.0" }).waitFor();
        await section.getByTestId("approval-current").waitFor();
        const ps = await status(promoted);
        assert.equal(ps.state, "AWAITING_APPROVAL");
        assert.equal(ps.environment, "prod");
        assert.ok(ps.promoted_from, JSON.stringify(ps));
      }

      assert.deepEqual(admin.consoleErrors(), []);
      assert.deepEqual(viewer.consoleErrors(), []);
    } finally {
      await admin.close();
      await viewer.close();
      // What is still waiting (the promotion's approval) is cancelled: prod is left as it was.
      for (const id of started) {
        const s = await status(id);
        if (s.state === "AWAITING_APPROVAL") await cli("demo-admin", "cancel", id);
      }
    }
  });

  test("a release is cancelled and a schedule deleted from the browser; a viewer is offered neither", { timeout: 300_000 }, async () => {
    // The copy of examples/ the server runs on: targets/hello/<env> is three levels under it.
    const work = path.resolve(targetDir("held"), "../../..");
    // A release file names its deploys' files inside its own directory.
    const releaseFile = path.join(work, "actions-held.yml");
    fs.writeFileSync(
      releaseFile,
      "apiVersion: manent/v1\nkind: Release\nid: actions-held\nonFailure: stop\ndeploys:\n" +
        "  - name: first\n    file: deploys/held.yml\n  - name: second\n    file: deploys/staging.yml\n    after: [first]\n",
    );
    const scheduleFile = path.join(work, "deploys", "actions-schedule.yml");
    // Its first tick is next January: it never runs during the spec.
    fs.writeFileSync(
      scheduleFile,
      fs.readFileSync(path.join(work, "deploys", "staging.yml"), "utf8") + "id: actions-nightly\nschedule: {cron: \"0 3 1 1 *\", timezone: UTC}\n",
    );

    const admin = await newPage();
    const viewer = await newPage();
    try {
      const r = await cli("demo-ci", "release", "submit", "-f", releaseFile, "--no-wait");
      assert.equal(r.code, 0, `manent release submit: ${r.stdout}${r.stderr}`);
      const s = await cli("demo-ci", "deploy", "-f", scheduleFile, "--no-wait");
      assert.equal(s.code, 0, `manent deploy (schedule): ${s.stdout}${s.stderr}`);
      await signIn(admin.page, "demo-admin");
      await signIn(viewer.page, "demo-viewer");

      // The viewer sees the release run, and no Cancel release.
      const v = viewer.page;
      await v.goto("/releases/actions-held");
      await v.locator('[data-node="first"][data-state="PENDING"]').waitFor({ timeout: 60_000 });
      await v.locator('[data-node="first"]').getByText("hello → held").waitFor();
      assert.equal(await v.getByRole("button", { name: "Cancel release…" }).count(), 0, "no Cancel release for demo-viewer");
      await v.goto("/schedules");
      await v.locator('tr[data-schedule="actions-nightly"]').waitFor({ timeout: 30_000 });
      assert.equal(await v.getByRole("button", { name: "Delete…" }).count(), 0, "no Delete for demo-viewer");

      // The admin cancels it: the page follows the release to its end, live.
      const page = admin.page;
      await page.goto("/releases/actions-held");
      await page.locator('[data-node="first"][data-state="PENDING"]').waitFor({ timeout: 60_000 });
      await page.getByRole("button", { name: "Cancel release…" }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel this release?" });
      await dialog.getByText("Cancel release actions-held: it stops starting deploys, then its 2 deploys not finished yet are cancelled").waitFor();
      await dialog.getByRole("button", { name: "Cancel release", exact: true }).click();
      await dialog.waitFor({ state: "hidden" });
      // The step held in post-test completes, then the deploy stops.
      health().release("held");
      // The page follows the release to CANCELLED, live; the held deploy stops once its post-test completes.
      await page.locator('article[data-release-id="actions-held"][data-state="CANCELLED"]').waitFor({ timeout: 60_000 });
      assert.equal(await page.getByRole("button", { name: "Cancel release…" }).count(), 0, "no Cancel once it ended");
      await eventually(
        async () => (await graphql("demo-admin", '{ deployment(id: "actions-held.first") { state } }')).data?.deployment?.state === "CANCELLED",
        { timeout: 120_000, message: "actions-held.first CANCELLED" },
      );
      const st = await cli("demo-admin", "release", "status", "actions-held", "-o", "json");
      const rel = JSON.parse(st.stdout);
      assert.notEqual(rel.state, "SUCCESS", st.stdout);

      // The schedule: its next tick and the Delete the admin may use.
      await page.goto("/schedules");
      const row = page.locator('tr[data-schedule="actions-nightly"]');
      await row.waitFor({ timeout: 30_000 });
      await row.getByText("0 3 1 1 *").first().waitFor();
      await row.getByRole("button", { name: "Delete…" }).click();
      const del = page.getByRole("dialog", { name: "Delete schedule actions-nightly?" });
      await del.getByText("no further tick starts a deploy; the deploys already started go on").waitFor();
      await del.getByRole("button", { name: "Delete schedule" }).click();
      await page.locator('tr[data-schedule="actions-nightly"][data-state="SCHEDULED"]').waitFor({ state: "detached", timeout: 30_000 });
      const left = await graphql("demo-admin", "{ schedules { name state } }");
      const still = (left.data?.schedules ?? []).filter((/** @type {any} */ x) => x.name === "actions-nightly" && x.state === "SCHEDULED");
      assert.deepEqual(still, [], JSON.stringify(left));

      assert.deepEqual(admin.consoleErrors(), []);
      assert.deepEqual(viewer.consoleErrors(), []);
    } finally {
      health().release("held");
      await admin.close();
      await viewer.close();
    }
  });
});
