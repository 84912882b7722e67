// @ts-check
// A loopback HTTP server that the test environments use as their health
// endpoint: /delay answers after a pause (so a deploy's progress can be
// seen), /block/<name> holds every request until the spec releases <name>
// (a deploy that stays in its post-test step until then), /switch/<name>
// answers 200 until the spec breaks <name>, then 404 (a permanent failure:
// post-test fails at once, without retries).
import http from "node:http";

/** @returns {Promise<{url: string, release(name: string): void, hits(name: string): number, breakSwitch(name: string): void, close(): Promise<void>}>} */
export async function startHealthServer({ delayMs = 1500 } = {}) {
  /** @type {Set<string>} */
  const broken = new Set();
  /** @type {Map<string, {released: boolean, waiting: Set<() => void>, hits: number}>} */
  const blocks = new Map();
  const block = (/** @type {string} */ name) => {
    let b = blocks.get(name);
    if (!b) blocks.set(name, (b = { released: false, waiting: new Set(), hits: 0 }));
    return b;
  };
  const ok = (/** @type {http.ServerResponse} */ res) => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok\n");
  };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/delay") {
      const t = setTimeout(() => ok(res), delayMs);
      res.on("close", () => clearTimeout(t));
      return;
    }
    const m = path.match(/^\/block\/([a-z0-9-]+)$/);
    if (m) {
      const b = block(m[1] ?? "");
      b.hits++;
      if (b.released) return ok(res);
      const done = () => ok(res);
      b.waiting.add(done);
      res.on("close", () => b.waiting.delete(done));
      return;
    }
    const sw = path.match(/^\/switch\/([a-z0-9-]+)$/);
    if (sw && !broken.has(sw[1] ?? "")) return ok(res);
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("health server: no address");
  return {
    url: `http://127.0.0.1:${addr.port}`,
    release(name) {
      const b = block(name);
      b.released = true;
      for (const done of b.waiting) done();
      b.waiting.clear();
    },
    hits: (name) => block(name).hits,
    breakSwitch(name) {
      broken.add(name);
    },
    async close() {
      for (const b of blocks.values()) for (const done of b.waiting) done();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
