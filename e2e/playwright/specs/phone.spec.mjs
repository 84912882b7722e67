// @ts-check
// The web interface on a phone and for assistive technology: at 390×844 no
// page scrolls sideways, axe-core finds no serious or critical violation in
// either theme, and badges and table headers are at least 12 px.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import { cli, graphql, health, newPage, signIn, submitFile, targetDir } from "../lib/harness.mjs";
import { eventually } from "../lib/wait.mjs";

/** @type {string} */
let waitingID;
/** @type {string} */
let releaseID;
/** @type {string} */
let memberID;
/** A recurring schedule whose first tick is next January: it never runs during the spec. */
const scheduleName = "phone-nightly";

/** The pages a release manager opens, each with what proves it has loaded its data. */
const pages = () => [
  { name: "Activity", path: "/activity", ready: `tr[data-deployment-id="${waitingID}"], [data-deployment-id="${waitingID}"]` },
  { name: "Deployments", path: "/deployments", ready: `[data-deployment-id="${waitingID}"], a[href="/deployments/${waitingID}"]` },
  // Two waves, the last waiting for its approval: the wave grid and the approval card.
  { name: "a deploy page (rollout)", path: `/deployments/${waitingID}`, ready: "section[data-rollout-state]" },
  // A release member: an ID with a dot, its chain.
  { name: "a release member's deploy page", path: `/deployments/${memberID}`, ready: "h1" },
  { name: "Releases", path: "/releases", ready: `a[href="/releases/${releaseID}"]` },
  { name: "a release page", path: `/releases/${releaseID}`, ready: "[data-node]" },
  { name: "Environments", path: "/environments", ready: "table" },
  { name: "an environment page", path: "/environments/demo/hello/staging", ready: "h1" },
  { name: "Approvals", path: "/approvals", ready: `li[data-deployment-id="${waitingID}"]` },
  // A schedule of this spec's: a row with its cron, next tick and Delete.
  { name: "Schedules", path: "/schedules", ready: `tr[data-schedule="${scheduleName}"]` },
  { name: "Audit", path: "/audit", ready: "table tbody tr" },
  { name: "DORA", path: "/dora", ready: "h1" },
];

/** What sticks out past the viewport when the page scrolls sideways, to say what to fix. */
async function sideways(/** @type {import("playwright-core").Page} */ page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return null;
    const culprits = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > width + 1)
      .filter((e) => ![...e.children].some((c) => c.getBoundingClientRect().right > width + 1))
      .map((e) => `${e.tagName.toLowerCase()}.${String(e.className)} (${Math.round(e.getBoundingClientRect().right)} px)`)
      .slice(0, 8);
    return { scrollWidth: document.documentElement.scrollWidth, culprits };
  });
}

/** The serious and critical violations axe-core finds, with the nodes that have them. */
async function axeViolations(/** @type {import("playwright-core").Page} */ page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`);
}

/** Elements whose computed type is under 12 px, among those a selector finds. */
async function smallType(/** @type {import("playwright-core").Page} */ page, /** @type {string} */ selector) {
  return page.evaluate((sel) => {
    return [...document.querySelectorAll(sel)]
      .filter((e) => e.getClientRects().length > 0 && parseFloat(getComputedStyle(e).fontSize) < 12)
      .map((e) => `${e.tagName.toLowerCase()} "${(e.textContent ?? "").trim().slice(0, 30)}" ${getComputedStyle(e).fontSize}`)
      .slice(0, 8);
  }, selector);
}

describe("phones and accessibility", () => {
  before(async () => {
    // A deploy whose second wave waits for an approval: a page with waves,
    // an item in the Approvals inbox, a row on Activity.
    waitingID = await submitFile("rollout-approve.yml");
    await eventually(
      async () => {
        const r = await graphql("demo-admin", "query($id: ID!) { deployment(id: $id) { rollout { state } } }", { id: waitingID });
        return r.data?.deployment?.rollout?.state === "AWAITING_APPROVAL";
      },
      { timeout: 180_000, message: `${waitingID} AWAITING_APPROVAL` },
    );
    // A release with its members (the releases spec submits shop-demo; alone, this spec does).
    let releases = await graphql("demo-admin", "{ releases { nodes { id deploys { deploymentId } } } }");
    if (!releases.data?.releases?.nodes?.length) {
      const r = await cli("demo-ci", "release", "submit", "-f", "releases/shop.yml", "--no-wait");
      assert.equal(r.code, 0, `manent release submit: ${r.stdout}${r.stderr}`);
      health().release("shop-db");
      releases = await graphql("demo-admin", "{ releases { nodes { id deploys { deploymentId } } } }");
    }
    const release = releases.data?.releases?.nodes?.[0];
    assert.ok(release, JSON.stringify(releases));
    releaseID = release.id;
    memberID = release.deploys.find((/** @type {{deploymentId: string}} */ d) => d.deploymentId.includes(".")).deploymentId;
    // The copy of examples/ the server runs on: targets/hello/<env> is three levels under it.
    const work = path.resolve(targetDir("staging"), "../../..");
    const scheduleFile = path.join(work, "deploys", `${scheduleName}.yml`);
    fs.writeFileSync(
      scheduleFile,
      fs.readFileSync(path.join(work, "deploys", "staging.yml"), "utf8") + `id: ${scheduleName}\nschedule: {cron: "0 3 1 1 *", timezone: UTC}\n`,
    );
    const s = await cli("demo-ci", "deploy", "-f", scheduleFile, "--no-wait");
    assert.equal(s.code, 0, `manent deploy (schedule): ${s.stdout}${s.stderr}`);
  });

  // The waiting deploy ends before the next spec (the wall counts what waits).
  after(async () => {
    const d = await cli("demo-ci", "schedule", "delete", scheduleName);
    assert.equal(d.code, 0, `manent schedule delete: ${d.stdout}${d.stderr}`);
    if (!waitingID) return;
    const r = await cli("demo-ci", "cancel", waitingID);
    assert.equal(r.code, 0, `manent cancel: ${r.stdout}${r.stderr}`);
    await eventually(
      async () => {
        const s = await graphql("demo-admin", "query($id: ID!) { deployment(id: $id) { state } }", { id: waitingID });
        return s.data?.deployment?.state === "CANCELLED";
      },
      { timeout: 120_000, message: `${waitingID} CANCELLED` },
    );
  });

  for (const colorScheme of /** @type {const} */ (["light", "dark"])) {
    test(`at 390×844 in the ${colorScheme} theme every page fits the screen and axe finds nothing serious`, { timeout: 300_000 }, async () => {
      const phone = await newPage({ viewport: { width: 390, height: 844 }, colorScheme });
      try {
        // Signed out first: the sign-in page.
        await phone.page.goto("/signin");
        await phone.page.getByLabel("Token", { exact: true }).waitFor();
        assert.equal(await sideways(phone.page), null, "sign-in scrolls sideways");
        assert.deepEqual(await axeViolations(phone.page), [], "axe on sign-in");

        await signIn(phone.page, "demo-admin");
        // The header folds the nav behind Menu; the nav opens and leads somewhere.
        const menu = phone.page.getByRole("button", { name: "Menu" });
        const nav = phone.page.getByRole("navigation", { name: "Main" });
        assert.equal(await nav.getByRole("link", { name: "Deployments" }).isVisible(), false, "the nav is folded");
        await menu.click();
        assert.equal(await menu.getAttribute("aria-expanded"), "true");
        await nav.getByRole("link", { name: "Deployments" }).click();
        await phone.page.waitForURL(/\/deployments$/);
        // Following a link closes the menu.
        await phone.page.locator('button[aria-expanded="false"]', { hasText: "Menu" }).waitFor();

        // Every page is checked before the assertion, so that one run names every problem.
        /** @type {string[]} */
        const problems = [];
        for (const p of pages()) {
          await phone.page.goto(p.path);
          await phone.page.locator(p.ready).first().waitFor({ timeout: 60_000 });
          await phone.page.locator("main h1").first().waitFor();
          await phone.screenshot(`phone-${colorScheme}-${p.path.replace(/[^a-z0-9]+/gi, "-")}`);
          const wide = await sideways(phone.page);
          if (wide) problems.push(`${p.name} (${p.path}) scrolls sideways at 390 px: ${JSON.stringify(wide)}`);
          if (!(await phone.page.evaluate(() => document.documentElement.scrollWidth <= 390))) problems.push(`${p.name}: scrollWidth > 390`);
          for (const v of await axeViolations(phone.page)) problems.push(`axe on ${p.name}: ${v}`);
          for (const e of await smallType(phone.page, ".m-badge, th, .m-nav-badge")) problems.push(`under 12 px on ${p.name}: ${e}`);
        }
        assert.deepEqual(problems, [], `${colorScheme} theme at 390 px`);
        assert.deepEqual(phone.consoleErrors(), []);
      } finally {
        await phone.close();
      }
    });
  }

  test("on a desktop, in both themes, badges and table headers are at least 12 px and axe finds nothing serious", { timeout: 300_000 }, async () => {
    for (const colorScheme of /** @type {const} */ (["light", "dark"])) {
      const desk = await newPage({ colorScheme });
      try {
        await signIn(desk.page, "demo-admin");
        /** @type {string[]} */
        const problems = [];
        for (const p of pages()) {
          await desk.page.goto(p.path);
          await desk.page.locator(p.ready).first().waitFor({ timeout: 60_000 });
          for (const e of await smallType(desk.page, ".m-badge, th, .m-nav-badge")) problems.push(`under 12 px on ${p.name}: ${e}`);
          for (const v of await axeViolations(desk.page)) problems.push(`axe on ${p.name}: ${v}`);
        }
        assert.deepEqual(problems, [], `${colorScheme} theme at 1280 px`);
        // Table headers are shown there, as headers: the check above saw some.
        await desk.page.goto("/audit");
        await desk.page.locator("table thead th").first().waitFor();
        assert.deepEqual(await smallType(desk.page, "table thead th"), []);
        assert.deepEqual(desk.consoleErrors(), []);
      } finally {
        await desk.close();
      }
    }
  });
});
