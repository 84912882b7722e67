// @ts-check
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cli, graphql, health, newPage, signIn } from "../lib/harness.mjs";

// examples/releases/shop.yml: db → (api, worker) → web, api importing db's release.
const nodes = ["db", "api", "worker", "web"];
const edges = [
  ["db", "api"],
  ["db", "worker"],
  ["api", "web"],
  ["worker", "web"],
];

describe("releases", () => {
  test("a release submitted with the CLI turns its graph green node by node", { timeout: 240_000 }, async () => {
    const { page, screenshot, consoleErrors, close } = await newPage();
    try {
      await signIn(page, "demo-ci");
      // db stays in post-test until released below: the whole run is on screen.
      const r = await cli("demo-ci", "release", "submit", "-f", "releases/shop.yml", "--no-wait");
      assert.equal(r.code, 0, `manent release submit exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /shop-demo/);

      await page.getByRole("link", { name: "Releases", exact: true }).click();
      await page.waitForURL(/\/releases$/);
      await page.locator('tr[data-release-id="shop-demo"]').getByRole("link", { name: "shop-demo" }).click();
      await page.waitForURL(/\/releases\/shop-demo$/);
      const graph = page.getByRole("group", { name: "Dependency graph of shop-demo" });
      await graph.waitFor();
      for (const n of nodes) await graph.locator(`[data-node="${n}"]`).waitFor();

      // Every state each node shows from now on, in the order the page showed them.
      await page.evaluate(() => {
        const w = /** @type {any} */ (window);
        w.__e2eMark = "same page";
        w.__e2eSeq = 0;
        w.__e2eSeen = {};
        const record = () => {
          for (const el of document.querySelectorAll("[data-node]")) {
            const name = el.getAttribute("data-node") ?? "";
            const seen = (w.__e2eSeen[name] ??= []);
            const s = el.getAttribute("data-state");
            if (seen.length === 0 || seen[seen.length - 1].state !== s) seen.push({ state: s, seq: w.__e2eSeq++ });
          }
        };
        record();
        new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
      });

      const db = graph.locator('[data-node="db"]');
      await page.locator('[data-node="db"][data-state="PENDING"]').waitFor({ timeout: 60_000 });
      assert.equal(await db.getAttribute("data-tone"), "running");
      for (const n of ["api", "worker", "web"]) {
        assert.notEqual(await graph.locator(`[data-node="${n}"]`).getAttribute("data-state"), "SUCCESS", `${n} before db`);
      }
      assert.equal(await graph.locator('[data-edge="db→api"]').getAttribute("data-exports"), "release", "the edge names the export api imports");
      await screenshot("release-graph-running");

      health().release("shop-db");
      for (const n of nodes) {
        await page.locator(`[data-node="${n}"][data-state="SUCCESS"]`).waitFor({ timeout: 120_000 });
        assert.equal(await graph.locator(`[data-node="${n}"]`).getAttribute("data-tone"), "success");
        if (n === "db") await screenshot("release-graph-db-done");
      }
      await page.locator('article[data-release-id="shop-demo"][data-state="SUCCESS"]').waitFor({ timeout: 60_000 });

      /** @type {Record<string, {state: string, seq: number}[]>} */
      const seen = await page.evaluate(() => /** @type {any} */ (window).__e2eSeen);
      for (const n of nodes) console.log(`${n}: ${seen[n]?.map((s) => s.state).join(" → ")}`);
      const successAt = Object.fromEntries(nodes.map((n) => [n, seen[n]?.find((s) => s.state === "SUCCESS")?.seq ?? -1]));
      for (const n of nodes) {
        assert.ok(successAt[n] > 0, `${n} turned SUCCESS while watched: ${JSON.stringify(seen[n])}`);
        assert.ok((seen[n]?.length ?? 0) >= 2, `${n} showed a state before SUCCESS`);
      }
      for (const [from, to] of edges) {
        assert.ok(successAt[from] < successAt[to], `${from} turned green before ${to}: ${JSON.stringify(successAt)}`);
      }
      assert.equal(await page.evaluate(() => /** @type {any} */ (window).__e2eMark), "same page", "the page was not reloaded");

      // db's export, as the CLI and the API report it.
      await page.locator('tr[data-export="db.release"]').filter({ hasText: "1.4.0" }).waitFor();
      const status = await cli("demo-ci", "release", "status", "shop-demo", "-o", "json");
      assert.equal(status.code, 0, status.stderr);
      const json = JSON.parse(status.stdout);
      assert.equal(json.state, "SUCCESS");
      assert.deepEqual(
        json.deploys.map((/** @type {any} */ d) => [d.name, d.state]),
        nodes.map((n) => [n, "SUCCESS"]),
      );
      assert.deepEqual(json.deploys.find((/** @type {any} */ d) => d.name === "db").exports.map((/** @type {any} */ e) => [e.name, e.value]), [["release", "1.4.0"]]);
      const api = await graphql("demo-ci", `{ deployment(id: "shop-demo.api") { imports { name deploymentId exports } } }`);
      assert.deepEqual(api.data?.deployment.imports, [{ name: "db", deploymentId: "shop-demo.db", exports: ["release"] }]);
      await screenshot("release-graph");

      await graph.locator('[data-node="api"]').click();
      await page.waitForURL(/\/deployments\/shop-demo\.api$/);
      await page.getByRole("heading", { name: "shop-api → staging" }).waitFor();
      // A member's ID has a dot: its page loads directly, from a bookmark or a reload.
      await page.reload();
      await page.getByRole("heading", { name: "shop-api → staging" }).waitFor();
      await page.goto("/deployments/shop-demo.web");
      await page.getByRole("heading", { name: "shop-web → staging" }).waitFor();
      await page.locator('.m-badge[data-size="large"][data-state="SUCCESS"]').waitFor();
      assert.deepEqual(consoleErrors(), []);
    } finally {
      health().release("shop-db");
      await close();
    }
  });
});
