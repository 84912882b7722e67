// @ts-check
// The Playwright suite: one manent-server for every spec (the wall spec
// restarts it), started here before the first spec and stopped after the
// last. Run with `npm test` in this folder; see README.md.
import { after, before } from "node:test";
import { setup, teardown } from "./lib/harness.mjs";

before(setup, { timeout: 600_000 });
after(teardown, { timeout: 120_000 });

await import("./specs/signin.spec.mjs");
await import("./specs/oidc.spec.mjs");
await import("./specs/activity.spec.mjs");
await import("./specs/cancel.spec.mjs");
await import("./specs/viewer.spec.mjs");
await import("./specs/environments.spec.mjs");
await import("./specs/rollback.spec.mjs");
await import("./specs/approvals.spec.mjs");
await import("./specs/releases.spec.mjs");
await import("./specs/delivery.spec.mjs");
await import("./specs/rollout.spec.mjs");
await import("./specs/audit.spec.mjs");
await import("./specs/dora.spec.mjs");
await import("./specs/actions.spec.mjs");
await import("./specs/phone.spec.mjs");
await import("./specs/wall.spec.mjs");
