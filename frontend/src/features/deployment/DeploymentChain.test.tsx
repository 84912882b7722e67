import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { DeploymentViewFragment } from "../../gql/graphql";
import { targetLines } from "./chain";
import { Exports, WaitedOnBy, WaitsFor } from "./DeploymentChain";
import { liveReducer, withDependent, type ChangedDeployment } from "./liveDeployment";

describe("WaitsFor", () => {
  it("lists each dependency with its state and a link to it", () => {
    render(
      <MemoryRouter>
        <WaitsFor
          after={{
            status: "waiting",
            expiresAt: "2026-10-12T14:00:00Z",
            reason: null,
            dependencies: [
              { id: "shop-db-42-prod", state: "PENDING" },
              { id: "net-1", state: "SUCCESS" },
              { id: "gone-1", state: null },
            ],
          }}
        />
      </MemoryRouter>,
    );
    const list = screen.getByRole("list", { name: "Dependencies" });
    const items = within(list).getAllByRole("listitem");
    expect(items).toHaveLength(3);
    const [db, net, gone] = items as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(db).getByRole("link", { name: "shop-db-42-prod" })).toHaveAttribute("href", "/deployments/shop-db-42-prod");
    expect(db.querySelector("[data-state]")?.getAttribute("data-state")).toBe("PENDING");
    expect(net.querySelector("[data-state]")?.getAttribute("data-state")).toBe("SUCCESS");
    expect(gone).toHaveTextContent("removed");
    expect(screen.getByText("Waiting for its dependencies")).toBeInTheDocument();
    expect(screen.getByText(/gives up/)).toBeInTheDocument();
  });

  it("says why the wait failed", () => {
    render(
      <MemoryRouter>
        <WaitsFor
          after={{
            status: "failed",
            expiresAt: "2026-10-12T14:00:00Z",
            reason: "dependency shop-db-42-prod ended ERROR",
            dependencies: [{ id: "shop-db-42-prod", state: "ERROR" }],
          }}
        />
      </MemoryRouter>,
    );
    expect(screen.getByText("A dependency did not succeed")).toBeInTheDocument();
    expect(screen.getByText("dependency shop-db-42-prod ended ERROR")).toBeInTheDocument();
    expect(screen.queryByText(/gives up/)).toBeNull();
  });
});

describe("WaitedOnBy", () => {
  // Only the fields the chain reads: the rest of the view does not matter here.
  const db = {
    id: "shop-db-42-prod",
    state: "SUCCESS",
    updatedAt: "2026-10-12T13:00:00Z",
    dependents: [
      { id: "shop-api-7-prod", state: "WAITING_DEPENDENCY" },
      { id: "shop-web-3-prod", state: "PENDING" },
    ],
  } as unknown as DeploymentViewFragment;
  const after = (id: string, state: ChangedDeployment["state"], ...deps: string[]): ChangedDeployment => ({
    id,
    state,
    after: deps.length ? { dependencies: deps.map((dep) => ({ id: dep })) } : null,
  });
  const states = () =>
    within(screen.getByRole("list", { name: "Dependents" }))
      .getAllByRole("listitem")
      .map((li) => li.querySelector("[data-state]")?.getAttribute("data-state"));
  const show = (d: DeploymentViewFragment) => (
    <MemoryRouter>
      <WaitedOnBy dependents={d.dependents} />
    </MemoryRouter>
  );

  it("lists each dependent with its state and a link to it", () => {
    render(show(db));
    expect(screen.getByRole("heading", { name: "Waited on by" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "shop-api-7-prod" })).toHaveAttribute("href", "/deployments/shop-api-7-prod");
    expect(screen.getByRole("link", { name: "shop-web-3-prod" })).toHaveAttribute("href", "/deployments/shop-web-3-prod");
    expect(states()).toEqual(["WAITING_DEPENDENCY", "PENDING"]);
  });

  it("follows the dependents' changes from the activity feed", () => {
    const { rerender } = render(show(db));
    let live = liveReducer({ deployment: db, lines: [] }, { type: "changed", deployment: after("shop-api-7-prod", "PENDING", "shop-db-42-prod") });
    live = liveReducer(live, { type: "changed", deployment: after("shop-cache-1-prod", "WAITING_DEPENDENCY", "net-1", "shop-db-42-prod") });
    rerender(show(live.deployment!));
    expect(states()).toEqual(["PENDING", "PENDING", "WAITING_DEPENDENCY"]);
    expect(screen.getByRole("link", { name: "shop-cache-1-prod" })).toHaveAttribute("href", "/deployments/shop-cache-1-prod");
  });

  it.each([
    ["a deploy that does not run after it", after("other-1", "PENDING", "net-1")],
    ["a deploy without after", after("other-2", "SUCCESS")],
    ["the deploy itself", after("shop-db-42-prod", "ERROR", "shop-db-42-prod")],
    ["a dependent whose state did not change", after("shop-web-3-prod", "PENDING", "shop-db-42-prod")],
  ])("ignores %s", (_, changed) => {
    expect(withDependent(db, changed)).toBe(db);
  });
});

describe("Exports", () => {
  it("shows a string as it is and a targets export as a list of targets", () => {
    render(
      <Exports
        exports={[
          { name: "db_host", format: "string", value: "db.internal", public: false },
          {
            name: "vms",
            format: "targets",
            value: '[{"host":"10.20.0.1"},{"host":"10.20.0.2","port":2222,"user":"deploy"},"10.20.0.3"]',
            public: true,
          },
        ]}
      />,
    );
    expect(screen.getByText("db.internal")).toBeInTheDocument();
    const targets = screen.getByRole("list", { name: "Targets of vms" });
    expect(within(targets).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["10.20.0.1", "deploy@10.20.0.2:2222", "10.20.0.3"]);
    expect(screen.getByText("targets, public")).toBeInTheDocument();
  });
});

describe("targetLines", () => {
  it("keeps a value that is not a list of targets as it is", () => {
    expect(targetLines("not json")).toEqual(["not json"]);
    expect(targetLines('{"host":"a"}')).toEqual(['{"host":"a"}']);
  });
});
