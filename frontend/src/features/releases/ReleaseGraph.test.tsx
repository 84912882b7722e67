import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { DeploymentState } from "../../gql/graphql";
import { ReleaseGraph, type ReleaseGraphDeploy } from "./ReleaseGraph";

const edges = [
  { from: "db", to: "api" },
  { from: "db", to: "worker" },
  { from: "api", to: "web" },
  { from: "worker", to: "web" },
];

function deploys(states: Record<string, DeploymentState | null>, rollback: Record<string, string> = {}): ReleaseGraphDeploy[] {
  return ["db", "api", "worker", "web"].map((name) => ({
    name,
    deploymentId: `shop-demo.${name}`,
    state: states[name] ?? null,
    rollbackState: rollback[name] ?? null,
    deployment: { imports: name === "api" ? [{ name: "db", deploymentId: "shop-demo.db", exports: ["release"] }] : [] },
  }));
}

function node(container: HTMLElement, name: string): Element {
  const el = container.querySelector(`[data-node="${name}"]`);
  if (!el) throw new Error(`no node ${name}`);
  return el;
}

describe("ReleaseGraph", () => {
  it("colours each node by its deploy's state and recolours it when the state changes", () => {
    const { container, rerender } = render(
      <MemoryRouter>
        <ReleaseGraph releaseId="shop-demo" deploys={deploys({ db: "PENDING", api: "WAITING_DEPENDENCY", worker: "WAITING_DEPENDENCY", web: null })} edges={edges} />
      </MemoryRouter>,
    );
    expect(screen.getByRole("group", { name: "Dependency graph of shop-demo" })).toBeInTheDocument();
    expect(node(container, "db")).toHaveAttribute("data-tone", "running");
    expect(node(container, "api")).toHaveAttribute("data-tone", "waiting");
    expect(node(container, "web")).toHaveAttribute("data-state", "NONE");
    expect(node(container, "web")).toHaveAttribute("data-tone", "neutral");
    expect(node(container, "db")).toHaveAttribute("href", "/deployments/shop-demo.db");
    expect(node(container, "web")).toHaveAttribute("data-rank", "2");

    rerender(
      <MemoryRouter>
        <ReleaseGraph releaseId="shop-demo" deploys={deploys({ db: "SUCCESS", api: "ERROR", worker: "SUCCESS", web: "CANCELLED" })} edges={edges} />
      </MemoryRouter>,
    );
    expect(node(container, "db")).toHaveAttribute("data-tone", "success");
    expect(node(container, "api")).toHaveAttribute("data-tone", "danger");
    expect(node(container, "worker")).toHaveAttribute("data-state", "SUCCESS");
    expect(node(container, "web")).toHaveAttribute("data-tone", "neutral");
    expect(container.querySelector('[data-edge="db→api"]')).toHaveAttribute("data-flowing", "true");
    expect(container.querySelector('[data-edge="api→web"]')).not.toHaveAttribute("data-flowing");
  });

  it("shows the rollback state of a node and labels the edge with the exports imported", () => {
    const { container } = render(
      <MemoryRouter>
        <ReleaseGraph
          releaseId="shop-demo"
          deploys={deploys({ db: "SUCCESS", api: "ERROR", worker: "SUCCESS", web: "CANCELLED" }, { worker: "SUCCESS", db: "REFUSED" })}
          edges={edges}
        />
      </MemoryRouter>,
    );
    expect(node(container, "worker")).toHaveAttribute("data-rollback-state", "SUCCESS");
    expect(node(container, "worker")).toHaveTextContent("Rolled back");
    expect(node(container, "db")).toHaveTextContent("Rollback refused");
    expect(screen.getByRole("link", { name: "db: Success, Rollback refused" })).toBeInTheDocument();
    const dbApi = container.querySelector('[data-edge="db→api"]');
    expect(dbApi).toHaveAttribute("data-exports", "release");
    expect(dbApi).toHaveTextContent("release");
    expect(container.querySelector('[data-edge="db→worker"]')).toHaveAttribute("data-exports", "");
  });

  it("labels each node application → environment, and a failed node with the step that failed", () => {
    const where: Record<string, [string, string]> = { db: ["postgres", "prod"], api: ["shop-api", "prod"], worker: ["shop-worker", "prod"], web: ["shop-web", "prod"] };
    const placed = deploys({ db: "SUCCESS", api: "ERROR", worker: "SUCCESS", web: "CANCELLED" }).map((d) => ({
      ...d,
      application: where[d.name]![0],
      environment: where[d.name]![1],
      failedStep: d.name === "api" ? "migrate" : null,
    }));
    const { container } = render(
      <MemoryRouter>
        <ReleaseGraph releaseId="shop-demo" deploys={placed} edges={edges} />
      </MemoryRouter>,
    );
    expect(node(container, "db")).toHaveTextContent("postgres → prod");
    expect(node(container, "api")).toHaveTextContent("shop-api → prod");
    expect(node(container, "api")).toHaveTextContent("Error in migrate");
    expect(node(container, "db")).not.toHaveTextContent(" in ");
    expect(screen.getByRole("link", { name: "api shop-api → prod: Error in migrate" })).toBeInTheDocument();
  });
});
