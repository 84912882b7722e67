// @ts-check
// The world the Playwright specs run in: the binaries, a fresh database, a
// test copy of examples/ with environments of its own, a loopback health
// server, one manent-server (restartable), the CLI and Debian's Chromium.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { startHealthServer } from "./health.mjs";

const run = promisify(execFile);

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const artifactsDir = path.join(repo, "e2e", "artifacts");
const binDir = process.env.MANENT_BIN_DIR ? path.resolve(process.env.MANENT_BIN_DIR) : path.join(repo, "bin");
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The environments of application hello that the specs deploy to, and their health check. */
const environments = {
  staging: "delay", // a second and a half in post-test: progress can be watched
  wall: "delay",
  cancel: "block/cancel", // held in post-test until the spec releases it
  viewer: "block/viewer",
  held: "block/held", // the actions spec: a release held here is cancelled from its page
  broken: "missing", // a 404: post-test fails at once, the deploy ends ERROR
  prod: "delay", // the approvals spec: examples/ governs it (approval, promotion from staging)
  rollback: "switch/rollback", // healthy until the rollback spec breaks it; automatic rollback on
};

/** What the environment configuration of some environments adds to plugin, targets and health. */
const environmentExtras = {
  rollback: "rollback: {enabled: true, on: [post-test, activation]}\n",
};

/** Descriptors beyond deploys/<environment>.yml (version 1.0.0): name → [environment, version]. */
const extraDeploys = {
  "rollback-1.1.0": ["rollback", "1.1.0"],
};

const descriptorText = (/** @type {string} */ env, /** @type {string} */ version) =>
  `apiVersion: manent/v1\napplication: hello\nenvironment: ${env}\ndescription: Playwright spec deploy\nartifact:\n  type: application\n  name: hello\n  version: ${version}\n  source: file:hello-1.0.0.tar.gz\n`;

/**
 * The environments of the rollout spec, written whole: `rollout`, four
 * targets, a canary wave of one with a bake of 6 s, then three batches of
 * one, each held 1.5 s in post-test (the grid can be watched changing);
 * `rollout-approve`, two targets, the second wave asking an approval (the
 * governance of examples/ asks none of hello here: one by another identity
 * than the requester); `rollout-abort`, two targets, a first wave that bakes
 * ten minutes (the spec aborts it there, never waits it out), automatic
 * rollback on; `fleet500`, 500 targets in 10 waves of 50 with no health
 * check, for a dry run whose page the spec measures.
 */
function rolloutEnvironments(/** @type {string} */ work, /** @type {string} */ healthURL) {
  const targets = (/** @type {string} */ env, /** @type {number} */ n, /** @type {(i: number) => string} */ labels) =>
    Array.from({ length: n }, (_, i) => `  - {path: ${path.join(work, "targets", "hello", env, `t${String(i + 1).padStart(3, "0")}`)}, labels: {${labels(i)}}}\n`).join("");
  const rollout =
    `# Written by e2e/playwright/lib/harness.mjs\nplugin: local\ntargets:\n${targets("rollout", 4, (i) => `n: "${i + 1}"`)}` +
    `health:\n  - {url: "${healthURL}/delay", timeout: 4m}\n` +
    `rollout:\n  waves:\n    - {name: canary, select: {labels: {n: "1"}}, bake: 6s}\n    - {name: rest, batch: 1}\n`;
  const pair = (/** @type {string} */ env) =>
    `# Written by e2e/playwright/lib/harness.mjs\nplugin: local\ntargets:\n${targets(env, 2, (i) => `n: "${i + 1}"`)}` +
    `health:\n  - {url: "${healthURL}/delay", timeout: 4m}\n`;
  const rolloutApprove = pair("rollout-approve") + `rollout:\n  waves:\n    - {name: first, select: {labels: {n: "1"}}}\n    - {name: last, approval: true}\n`;
  const rolloutAbort =
    pair("rollout-abort") +
    `rollout:\n  waves:\n    - {name: first, select: {labels: {n: "1"}}, bake: 10m}\n    - {name: last}\n` +
    `rollback: {enabled: true, on: [post-test, activation]}\n`;
  const waves = Array.from({ length: 10 }, (_, i) => `    - {name: w${i + 1}, select: {labels: {w: "${i + 1}"}}}\n`).join("");
  const fleet500 =
    `# Written by e2e/playwright/lib/harness.mjs\nplugin: local\ntargets:\n${targets("fleet500", 500, (i) => `w: "${Math.floor(i / 50) + 1}"`)}` +
    `rollout:\n  waves:\n${waves}`;
  return { rollout, "rollout-approve": rolloutApprove, "rollout-abort": rolloutAbort, fleet500 };
}

/** The applications of examples/releases/shop.yml (all in staging) and their health check. */
const shopEnvironments = {
  "shop-db": "block/shop-db",
  "shop-api": "delay",
  "shop-worker": "delay",
  "shop-web": "delay",
};

/** @type {{work: string, dbURL: string, dropDB?: () => Promise<void>, stopPG?: () => Promise<void>, health: Awaited<ReturnType<typeof startHealthServer>>, port: number, browser: import("playwright-core").Browser} | null} */
let world = null;
/** @type {import("node:child_process").ChildProcess | null} */
let proc = null;
let serverLog = "";

function state() {
  if (!world) throw new Error("harness: setup() has not run");
  return world;
}

export const baseURL = () => `http://127.0.0.1:${state().port}`;
export const health = () => state().health;

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      s.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

async function build() {
  if (process.env.MANENT_E2E_SKIP_BUILD === "1") return;
  fs.mkdirSync(binDir, { recursive: true });
  // Incremental: a no-op when make build just ran. The server embeds
  // frontend/dist as it is now.
  await run("go", ["build", "-o", binDir + path.sep, "./cmd/manent-server", "./cmd/manent"], { cwd: repo, maxBuffer: 16 << 20 });
}

function commandExists(name) {
  return (process.env.PATH ?? "").split(path.delimiter).some((d) => fs.existsSync(path.join(d, name)));
}

/** DATABASE_URL as given (make test exports one), or an embedded PostgreSQL of our own. */
async function database() {
  let base = process.env.DATABASE_URL;
  /** @type {(() => Promise<void>) | undefined} */
  let stopPG;
  if (!base) {
    // Readable by the unprivileged user PostgreSQL runs as when we are root.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "manent-e2e-pg-"));
    fs.chmodSync(dir, 0o755);
    const pgctl = ["run", "./internal/embeddedpg/cmd/pgctl"];
    const { stdout } = await run("go", [...pgctl, "start", "--dir", path.join(dir, "data"), "--ephemeral"], { cwd: repo });
    base = stdout.trim().split("\n").pop() ?? "";
    stopPG = async () => {
      await run("go", [...pgctl, "stop", "--dir", path.join(dir, "data"), "--ephemeral"], { cwd: repo }).catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  if (!commandExists("psql")) return { dbURL: base, stopPG };
  // A database of its own, so that a run never meets the deploys of another.
  const name = `manent_pw_${Date.now().toString(36)}_${process.pid}`;
  await run("psql", [base, "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE ${name}`]);
  const u = new URL(base);
  u.pathname = `/${name}`;
  const dropDB = async () => {
    await run("psql", [base, "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]).catch(() => {});
  };
  return { dbURL: u.toString(), dropDB, stopPG };
}

/** A copy of examples/ with the test environments of hello and their descriptors. */
function workspace(healthURL) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "manent-e2e-"));
  fs.cpSync(path.join(repo, "examples"), work, { recursive: true });
  const envDir = path.join(work, "envconfig", "demo", "hello");
  fs.mkdirSync(envDir, { recursive: true });
  fs.mkdirSync(path.join(work, "deploys"), { recursive: true });
  for (const [env, check] of Object.entries(environments)) {
    const target = path.join(work, "targets", "hello", env);
    fs.writeFileSync(
      path.join(envDir, `${env}.yml`),
      `# Written by e2e/playwright/lib/harness.mjs\nplugin: local\ntargets:\n  - path: ${target}\nhealth:\n  - {url: "${healthURL}/${check}", timeout: 4m}\n` +
        (environmentExtras[/** @type {keyof typeof environmentExtras} */ (env)] ?? ""),
    );
    fs.writeFileSync(path.join(work, "deploys", `${env}.yml`), descriptorText(env, "1.0.0"));
  }
  for (const [env, text] of Object.entries(rolloutEnvironments(work, healthURL))) {
    fs.writeFileSync(path.join(envDir, `${env}.yml`), text);
    fs.writeFileSync(path.join(work, "deploys", `${env}.yml`), descriptorText(env, "1.0.0"));
  }
  // The same artifact under another version: the local plugin unpacks it
  // into releases/<version>.
  for (const [name, [env, version]] of Object.entries(extraDeploys)) {
    fs.writeFileSync(path.join(work, "deploys", `${name}.yml`), descriptorText(env, version));
  }
  // The shop release (examples/releases/shop.yml): its environments with
  // targets in this copy, db held in post-test until the releases spec
  // releases it (the graph is on screen before anything succeeds), the others
  // a second and a half each, so the graph turns green node by node.
  for (const [app, check] of Object.entries(shopEnvironments)) {
    const target = path.join(work, "targets", app, "staging");
    fs.writeFileSync(
      path.join(work, "envconfig", "demo", app, "staging.yml"),
      `# Written by e2e/playwright/lib/harness.mjs\nplugin: local\ntargets:\n  - path: ${target}\nhealth:\n  - {url: "${healthURL}/${check}", timeout: 4m}\n`,
    );
  }
  // examples/ freezes prod on Sundays (UTC): the approvals spec submits this
  // copy of hello-prod.yml then, as demo-admin, who may override the freeze.
  fs.writeFileSync(
    path.join(work, "deploys", "hello-prod-freeze-override.yml"),
    fs.readFileSync(path.join(work, "deploys", "hello-prod.yml"), "utf8") +
      `freezeOverride:\n  reason: "Playwright approvals spec: runs every day, Sundays included"\n`,
  );
  return work;
}

export async function setup() {
  fs.mkdirSync(artifactsDir, { recursive: true });
  const health = await startHealthServer();
  const [, db] = await Promise.all([build(), database()]);
  const port = await freePort();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  world = { work: workspace(health.url), ...db, health, port, browser };
  serverLog = "";
  await startServer();
  const index = await fetch(baseURL() + "/").then((r) => r.text());
  if (!index.includes("/assets/")) {
    throw new Error("manent-server does not serve the built web interface: run `npm run build` in frontend/, then build the server again");
  }
}

export async function teardown() {
  if (!world) return;
  const w = world;
  await stopServer();
  await w.browser.close().catch(() => {});
  await w.health.close();
  await w.dropDB?.();
  await w.stopPG?.();
  fs.writeFileSync(path.join(artifactsDir, "manent-server.log"), serverLog);
  fs.rmSync(w.work, { recursive: true, force: true });
  world = null;
}

/** Starts manent-server on the suite's port and waits until it is ready. */
export async function startServer() {
  const w = state();
  const bin = path.join(binDir, "manent-server");
  const child = spawn(bin, ["serve", "-c", path.join(w.work, "manent.yml"), "--listen", `127.0.0.1:${w.port}`], {
    cwd: w.work,
    env: { ...process.env, DATABASE_URL: w.dbURL },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc = child;
  const append = (/** @type {Buffer} */ b) => {
    serverLog += b.toString();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`manent-server exited at start:\n${serverLog.slice(-4000)}`);
    try {
      const r = await fetch(baseURL() + "/readyz");
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`manent-server not ready after 90 s:\n${serverLog.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100)); // polling a port that is not open yet: nothing to wait on
  }
}

/** Stops manent-server (SIGTERM, then SIGKILL after 30 s). */
export async function stopServer() {
  const child = proc;
  proc = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Runs the manent CLI against the suite's server. */
export async function cli(token, ...args) {
  return new Promise((resolve) => {
    execFile(
      path.join(binDir, "manent"),
      args,
      { cwd: state().work, env: { ...process.env, MANENT_SERVER: baseURL(), MANENT_TOKEN: token }, timeout: 180_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The directory the local plugin deploys hello to in one of the test environments. */
export const targetDir = (/** @type {keyof typeof environments} */ environment) => path.join(state().work, "targets", "hello", environment);

/**
 * Submits the deploy of hello to one of the test environments with the CLI
 * (--no-wait) and returns its ID; descriptor names another descriptor of
 * the harness (deploys/<descriptor>.yml).
 * @param {keyof typeof environments} environment
 * @param {keyof typeof extraDeploys | undefined} [descriptor]
 */
export async function submit(environment, token = "demo-ci", descriptor = undefined) {
  return submitFile(`${descriptor ?? environment}.yml`, token);
}

/**
 * Submits deploys/<name> of the harness with the CLI (--no-wait, and the
 * extra flags given) and returns the deploy's ID.
 */
export async function submitFile(/** @type {string} */ name, token = "demo-ci", /** @type {string[]} */ ...flags) {
  const file = path.join(state().work, "deploys", name);
  const r = await cli(token, "deploy", "-f", file, "--no-wait", "-o", "json", ...flags);
  if (r.code !== 0) throw new Error(`manent deploy exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  const status = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
  if (typeof status.id !== "string") throw new Error(`manent deploy printed no id: ${r.stdout}`);
  return /** @type {string} */ (status.id);
}

/** Posts one GraphQL operation with a token, as any client would. */
export async function graphql(token, query, variables = {}) {
  const r = await fetch(baseURL() + "/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return /** @type {{data?: any, errors?: {message: string, extensions?: {code?: string}}[]}} */ (await r.json());
}

/**
 * A new browser page at 1280×800 that records console errors and uncaught
 * exceptions; `allow` lists messages a spec expects (a refused websocket
 * while the server restarts).
 */
export async function newPage({ viewport = { width: 1280, height: 800 }, colorScheme = /** @type {"light" | "dark"} */ ("light") } = {}) {
  const context = await state().browser.newContext({ viewport, colorScheme, baseURL: baseURL() });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  return {
    page,
    context,
    /** Console errors but those matching one of the patterns. */
    consoleErrors: (/** @type {RegExp[]} */ allow = []) => errors.filter((e) => !allow.some((re) => re.test(e))),
    screenshot: (/** @type {string} */ name) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false }),
    close: () => context.close(),
  };
}

/**
 * Signs in with a token through the sign-in page's token form (the server
 * checks it and sets its session cookie: auth.allow_token_sign_in, on in
 * examples/) and waits for the activity view.
 */
export async function signIn(page, token) {
  await page.goto("/signin");
  await page.getByLabel("Token", { exact: true }).fill(token);
  await page.getByRole("button", { name: "Sign in with the token", exact: true }).click();
  await page.waitForURL(/\/activity$/);
  await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
}

/** Runs one SQL statement on a database with psql and returns its output (-At: bare values). */
export async function psql(/** @type {string} */ dbURL, /** @type {string} */ sql) {
  const { stdout } = await run("psql", [dbURL, "-v", "ON_ERROR_STOP=1", "-Atqc", sql]);
  return stdout.trim();
}

/** The suite's database (the server's), for specs that look at what the server stored. */
export const databaseURL = () => state().dbURL;

/**
 * Starts a second manent-server, as `make run` does (`dev`, with its
 * development OIDC provider on loopback), on a database of its own and
 * the suite's copy of examples/, and waits for the provider's issuer and
 * its users' passwords on its output. Stop it with stop().
 */
export async function startDevServer() {
  const w = state();
  const port = await freePort();
  const name = `manent_pw_dev_${Date.now().toString(36)}_${process.pid}`;
  const base = new URL(w.dbURL);
  base.pathname = "/postgres";
  await run("psql", [base.toString(), "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE ${name}`]);
  const dbURL = new URL(w.dbURL);
  dbURL.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "manent-e2e-dev-"));
  const child = spawn(
    path.join(binDir, "manent-server"),
    ["dev", "-c", path.join(w.work, "manent.yml"), "--listen", `127.0.0.1:${port}`, "--demo-cdn-listen=", "--oidc-listen", "127.0.0.1:0"],
    { cwd: dataDir, env: { ...process.env, DATABASE_URL: dbURL.toString() }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  /** @type {{issuer?: string, passwords: Record<string, string>}} */
  const found = { passwords: {} };
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  /** @type {Promise<unknown>} */
  const printed = new Promise((resolve, reject) => {
    const onData = (/** @type {Buffer} */ b) => {
      output += b.toString();
      const issuer = /development OIDC provider: (http:\/\/127\.0\.0\.1:\d+) /.exec(output);
      if (issuer) found.issuer = issuer[1];
      for (const m of output.matchAll(/^\s+(alice|bob|carol)\s+password (\S+)/gm)) found.passwords[m[1] ?? ""] = m[2] ?? "";
      if (found.issuer && Object.keys(found.passwords).length === 3) resolve(undefined);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", () => reject(new Error(`manent-server dev exited at start:\n${output.slice(-4000)}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!exited) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await gone;
      clearTimeout(timer);
    }
    fs.appendFileSync(path.join(artifactsDir, "manent-server-dev.log"), output);
    await run("psql", [base.toString(), "-qc", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]).catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`manent-server dev printed no issuer and users in 90 s:\n${output.slice(-4000)}`)), 90_000);
    });
    await Promise.race([printed, timeout]).finally(() => clearTimeout(timer));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const r = await fetch(url + "/readyz").catch(() => null);
      if (r?.ok) break;
      if (exited || Date.now() > deadline) throw new Error(`manent-server dev not ready:\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100)); // polling a port that is not open yet: nothing to wait on
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, dbURL: dbURL.toString(), issuer: /** @type {string} */ (found.issuer), passwords: found.passwords, stop };
}

/** A new browser page on another server than the suite's (startDevServer). */
export async function newPageOn(/** @type {string} */ url) {
  const context = await state().browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: url });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  // With the URL it is about: two servers (manent and the provider) serve the page.
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  return {
    page,
    context,
    consoleErrors: (/** @type {RegExp[]} */ allow = []) => errors.filter((e) => !allow.some((re) => re.test(e))),
    screenshot: (/** @type {string} */ name) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false }),
    close: () => context.close(),
  };
}

export function serverOutput() {
  return serverLog;
}
