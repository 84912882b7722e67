import { after, before } from "node:test";
import { setup, teardown } from "./lib/harness.mjs";
before(setup, { timeout: 600_000 });
after(teardown, { timeout: 120_000 });
await import("./specs/rollback.spec.mjs");
