import { describe, expect, it } from "vitest";
import type { DeploymentState } from "../../gql/graphql";
import { edgeExports, layoutRelease, nodeLook, ranks, type GraphDeploy } from "./graph";

/** The demo's release: db → (api, worker) → web, api importing db's release. */
function shop(states: Partial<Record<string, DeploymentState>> = {}): { deploys: GraphDeploy[]; edges: { from: string; to: string }[] } {
  const deploy = (name: string, imports: GraphDeploy["deployment"] = { imports: [] }): GraphDeploy => ({
    name,
    deploymentId: `shop-demo.${name}`,
    state: states[name] ?? null,
    rollbackState: null,
    deployment: imports,
  });
  return {
    deploys: [
      deploy("db"),
      deploy("api", { imports: [{ name: "db", deploymentId: "shop-demo.db", exports: ["release"] }] }),
      deploy("worker"),
      deploy("web"),
    ],
    edges: [
      { from: "db", to: "api" },
      { from: "db", to: "worker" },
      { from: "api", to: "web" },
      { from: "worker", to: "web" },
    ],
  };
}

describe("ranks", () => {
  it.each([
    { name: "db → (api, worker) → web", edges: shop().edges, want: { db: 0, api: 1, worker: 1, web: 2 } },
    {
      name: "the longest chain wins",
      edges: [
        { from: "db", to: "api" },
        { from: "api", to: "web" },
        { from: "db", to: "web" },
      ],
      want: { db: 0, api: 1, worker: 0, web: 2 },
    },
    { name: "no edges: all together", edges: [], want: { db: 0, api: 0, worker: 0, web: 0 } },
    { name: "an unknown name is ignored", edges: [{ from: "gone", to: "web" }], want: { db: 0, api: 0, worker: 0, web: 0 } },
  ])("$name", ({ edges, want }) => {
    expect(Object.fromEntries(ranks(["db", "api", "worker", "web"], edges))).toEqual(want);
  });
});

describe("layoutRelease", () => {
  it("puts each rank in its own column, left to right, and the nodes of a rank apart", () => {
    const { deploys, edges } = shop();
    const layout = layoutRelease(deploys, edges);
    const at = Object.fromEntries(layout.nodes.map((n) => [n.name, n]));
    expect(Object.fromEntries(layout.nodes.map((n) => [n.name, n.rank]))).toEqual({ db: 0, api: 1, worker: 1, web: 2 });
    expect(at.db!.x).toBeLessThan(at.api!.x);
    expect(at.api!.x).toBe(at.worker!.x);
    expect(at.worker!.x).toBeLessThan(at.web!.x);
    // api and worker side by side, not overlapping.
    expect(Math.abs(at.api!.y - at.worker!.y)).toBeGreaterThanOrEqual(at.api!.height);
    for (const n of layout.nodes) {
      expect(n.x - n.width / 2).toBeGreaterThanOrEqual(0);
      expect(n.x + n.width / 2).toBeLessThanOrEqual(layout.width);
      expect(n.y + n.height / 2).toBeLessThanOrEqual(layout.height);
    }
  });

  it("routes every edge from its producer to its consumer and labels the one with imports", () => {
    const { deploys, edges } = shop();
    const layout = layoutRelease(deploys, edges);
    expect(layout.edges.map((e) => `${e.from}→${e.to}`)).toEqual(["db→api", "db→worker", "api→web", "worker→web"]);
    const at = Object.fromEntries(layout.nodes.map((n) => [n.name, n]));
    for (const e of layout.edges) {
      expect(e.points.length).toBeGreaterThanOrEqual(2);
      expect(e.points[0]!.x).toBeLessThan(e.points[e.points.length - 1]!.x);
      expect(e.points[0]!.x).toBeGreaterThanOrEqual(at[e.from]!.x);
    }
    const dbApi = layout.edges.find((e) => e.to === "api")!;
    expect(dbApi.exports).toEqual(["release"]);
    expect(dbApi.labelAt).not.toBeNull();
    expect(dbApi.labelAt!.x).toBeGreaterThan(at.db!.x);
    expect(dbApi.labelAt!.x).toBeLessThan(at.api!.x);
    expect(layout.edges.find((e) => e.to === "worker")!.labelAt).toBeNull();
  });

  it("keeps the same places when only states change", () => {
    const before = layoutRelease(shop().deploys, shop().edges);
    const after = layoutRelease(shop({ db: "SUCCESS", api: "PENDING" }).deploys, shop().edges);
    expect(after.nodes).toEqual(before.nodes);
  });
});

describe("edgeExports", () => {
  it("names the exports a consumer imports from a producer of the release, matched by deploy ID", () => {
    const { deploys } = shop();
    deploys[3]!.deployment = {
      imports: [
        { name: "a", deploymentId: "shop-demo.api", exports: ["url"] },
        { name: "b", deploymentId: "shop-demo.api", exports: ["port", "url"] },
        { name: "outside", deploymentId: "infra-42", exports: ["vms"] },
        { name: "current", deploymentId: null, exports: ["x"] },
      ],
    };
    expect(Object.fromEntries(edgeExports(deploys))).toEqual({ "db→api": ["release"], "api→web": ["port", "url"] });
  });
});

describe("nodeLook", () => {
  it.each([
    { state: null, rollback: null, tone: "neutral", label: "Not queued", rb: null },
    { state: "WAITING_DEPENDENCY", rollback: null, tone: "waiting", label: "Waiting for dependency", rb: null },
    { state: "ENQUEUED", rollback: null, tone: "waiting", label: "Enqueued", rb: null },
    { state: "PENDING", rollback: null, tone: "running", label: "Running", rb: null },
    { state: "SUCCESS", rollback: null, tone: "success", label: "Success", rb: null },
    { state: "ERROR", rollback: null, tone: "danger", label: "Error", rb: null },
    { state: "DEPENDENCY_FAILED", rollback: null, tone: "danger", label: "Dependency failed", rb: null },
    { state: "CANCELLED", rollback: null, tone: "neutral", label: "Cancelled", rb: null },
    { state: "SUCCESS", rollback: "PENDING", tone: "success", label: "Success", rb: { tone: "running", label: "Rollback: running" } },
    { state: "SUCCESS", rollback: "SUCCESS", tone: "success", label: "Success", rb: { tone: "success", label: "Rolled back" } },
    { state: "SUCCESS", rollback: "ERROR", tone: "success", label: "Success", rb: { tone: "danger", label: "Rollback: error" } },
    { state: "SUCCESS", rollback: "REFUSED", tone: "success", label: "Success", rb: { tone: "danger", label: "Rollback refused" } },
    { state: "SUCCESS", rollback: "SKIPPED", tone: "success", label: "Success", rb: { tone: "neutral", label: "Rollback skipped" } },
  ] as const)("$state with rollback $rollback", ({ state, rollback, tone, label, rb }) => {
    const look = nodeLook(state, rollback);
    expect(look.tone).toBe(tone);
    expect(look.label).toBe(label);
    expect(look.rollback).toEqual(rb);
  });
});
