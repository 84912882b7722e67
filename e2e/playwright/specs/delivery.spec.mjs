// @ts-check
import assert from "node:assert/strict";
import http from "node:http";
import { describe, test } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { baseURL, newPage, signIn } from "../lib/harness.mjs";

/** A GET as sent, the body as received: no client-side decoding. */
function rawGet(/** @type {string} */ path, /** @type {Record<string, string>} */ headers = {}) {
  return new Promise((resolve, reject) => {
    http
      .get(baseURL() + path, { headers }, (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/** @typedef {{status: number, headers: import("node:http").IncomingHttpHeaders, body: Buffer}} Raw */

describe("delivery of the web interface", () => {
  test("hashed assets go precompressed and cached for a year, index.html revalidated, a dotted route loads", { timeout: 60_000 }, async () => {
    /** @type {Raw} */
    const index = await rawGet("/", { "accept-encoding": "gzip, deflate, br, zstd" });
    assert.equal(index.status, 200);
    assert.equal(index.headers["cache-control"], "no-cache");
    assert.ok(index.headers.etag, "index.html has an ETag");
    /** @type {Raw} */
    const again = await rawGet("/", { "if-none-match": String(index.headers.etag) });
    assert.equal(again.status, 304);

    const script = index.body.toString().match(/src="(\/assets\/index-[^"]+\.js)"/)?.[1];
    assert.ok(script, `index.html names its script: ${index.body}`);
    /** @type {Raw} */
    const plain = await rawGet(script);
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.equal(plain.headers["cache-control"], "public, max-age=31536000, immutable");
    /** @type {Raw} */
    const br = await rawGet(script, { "accept-encoding": "gzip, deflate, br, zstd" });
    assert.equal(br.headers["content-encoding"], "br");
    assert.equal(br.headers["vary"], "Accept-Encoding");
    assert.match(String(br.headers["content-type"]), /^text\/javascript/);
    assert.ok(br.body.length < plain.body.length / 3, `brotli ${br.body.length} B of ${plain.body.length} B`);
    assert.ok(brotliDecompressSync(br.body).equals(plain.body), "the brotli variant is the script");
    /** @type {Raw} */
    const gz = await rawGet(script, { "accept-encoding": "gzip" });
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.ok(gunzipSync(gz.body).equals(plain.body), "the gzip variant is the script");

    /** @type {Raw} */
    const missing = await rawGet("/assets/index-0ld0ne.js");
    assert.equal(missing.status, 404);
    // Release members have a dot in their ID: the page, not a missing file.
    /** @type {Raw} */
    const dotted = await rawGet("/deployments/shop-demo.api");
    assert.equal(dotted.status, 200);
    assert.equal(dotted.body.toString(), index.body.toString());
  });

  test("the first load carries no release graph; the release page brings it", { timeout: 120_000 }, async () => {
    const { page, consoleErrors, close } = await newPage();
    try {
      // The scripts the page loaded, by path; their bodies are read before
      // the next navigation.
      /** @type {Map<string, import("playwright-core").Response>} */
      const scripts = new Map();
      page.on("response", (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith("/assets/") && u.pathname.endsWith(".js")) scripts.set(u.pathname, r);
      });
      await signIn(page, "demo-viewer");
      await page.getByRole("heading", { name: "Activity" }).waitFor();
      const first = [...scripts.keys()];
      assert.ok(first.length > 0);
      for (const [name, r] of scripts) {
        const text = await r.text();
        // The build leaves a chunk under 1 kB as it is: compressing it would gain nothing.
        if (text.length >= 1024) assert.equal(r.headers()["content-encoding"], "br", `${name} was sent as ${r.headers()["content-encoding"]}`);
        assert.ok(!text.includes("network-simplex"), `${name}, loaded for Activity, holds dagre`);
      }
      assert.ok(!first.some((n) => /\/ReleasePage-/.test(n)), `loaded for Activity: ${first.join(", ")}`);

      await page.getByRole("link", { name: "Releases", exact: true }).click();
      await page.waitForURL(/\/releases$/);
      await page.getByRole("heading", { name: "Releases" }).waitFor();
      await page.goto("/releases/no-such-release");
      await page.getByText("No release no-such-release.").waitFor();
      const graph = [...scripts.keys()].find((n) => /\/ReleasePage-/.test(n));
      assert.ok(graph, `the release page loads its chunk: ${[...scripts.keys()].join(", ")}`);
      assert.ok((await scripts.get(graph)?.text())?.includes("network-simplex"), "dagre comes with the release page");
      assert.deepEqual(consoleErrors(), []);
    } finally {
      await close();
    }
  });
});
