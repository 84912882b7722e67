import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { describe, expect, it } from "vitest";
import type { InFlightFragment, InventoryCellFragment } from "../../gql/graphql";
import { fakeApi } from "../../test/fakeApi";
import { EnvironmentPage } from "./EnvironmentPage";
import { maxCalendars } from "./cells";
import { EnvironmentsPage } from "./EnvironmentsPage";

const inService = (environment: string, patch: Partial<InventoryCellFragment> = {}): InventoryCellFragment => ({
  tenant: "demo",
  application: "hello",
  environment,
  deploymentId: `hello-${environment}-1`,
  artifact: { name: "hello", version: "1.0.0" },
  sha256: "9f86d081884c7d659a2feaa0c55ad015",
  deployedAt: "2026-11-30T09:00:00Z",
  deployedBy: "token:demo-ci",
  previous: null,
  lastFailure: null,
  promotionTargets: [],
  ...patch,
});

const nothingInService = (environment: string, failure: InventoryCellFragment["lastFailure"]): InventoryCellFragment => ({
  ...inService(environment),
  deploymentId: null,
  artifact: null,
  sha256: null,
  deployedAt: null,
  deployedBy: null,
  previous: null,
  lastFailure: failure,
});

const rolledBack: InventoryCellFragment["lastFailure"] = {
  deploymentId: "hello-prod-2",
  step: "post-test",
  error: "health check http://127.0.0.1:9/h: 404 Not Found",
  finishedAt: "2026-11-30T09:30:00Z",
  rollback: "COMPLETED",
};

const noFreeze = () => ({ freezeCalendar: { from: "2026-11-30T00:00:00Z", to: "2026-12-30T00:00:00Z", windows: [] } });

type Ref = { tenant: string; application: string; environment: string };
const noFreezes = (v: Record<string, unknown>) => ({
  freezeCalendars: (v.environments as Ref[]).map((e) => ({ ...e, calendar: { from: "2026-11-30T00:00:00Z", to: "2026-12-30T00:00:00Z", windows: [] } })),
});

describe("EnvironmentsPage", () => {
  it("shows the release before the one in service, the last failure beside it, and an environment with nothing in service", async () => {
    const api = fakeApi({
      EnvironmentsPage: () => ({
        inventory: [
          inService("staging"),
          inService("prod", {
            lastFailure: rolledBack,
            previous: { deploymentId: "hello-prod-0", artifact: { name: "hello", version: "0.9.0" }, deployedAt: "2026-11-29T09:00:00Z" },
          }),
          nothingInService("broken", { deploymentId: "hello-broken-1", step: "post-test", error: "404", finishedAt: "2026-11-30T09:40:00Z", rollback: "DISABLED" }),
        ],
        activity: [],
      }),
      EnvironmentsFreezes: noFreezes,
    });
    render(
      <MemoryRouter>
        <EnvironmentsPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const table = await screen.findByRole("table");
    const cell = (env: string) => table.querySelector<HTMLElement>(`td[data-environment="${env}"]`)!;

    expect(within(cell("staging")).getByRole("link", { name: "1.0.0" })).toHaveAttribute("href", "/deployments/hello-staging-1");
    expect(within(cell("staging")).queryByRole("group", { name: "Last failure" })).toBeNull();
    // Its first release: nothing was in service before it.
    expect(within(cell("staging")).queryByRole("group", { name: "Previous release" })).toBeNull();

    const prod = cell("prod");
    expect(within(prod).getByRole("link", { name: "1.0.0" })).toHaveAttribute("href", "/deployments/hello-prod-1");
    const previous = within(prod).getByRole("group", { name: "Previous release" });
    expect(previous).toHaveTextContent(/^before 0\.9\.0/);
    expect(within(previous).getByRole("link", { name: "0.9.0" })).toHaveAttribute("href", "/deployments/hello-prod-0");
    const failure = within(prod).getByRole("group", { name: "Last failure" });
    expect(within(failure).getByRole("link", { name: "hello-prod-2" })).toHaveAttribute("href", "/deployments/hello-prod-2");
    expect(failure).toHaveTextContent("failed in post-test");
    expect(within(failure).getByText("Rollback completed")).toBeInTheDocument();
    // The matrix keeps the error for the deploy's page.
    expect(failure).not.toHaveTextContent("404 Not Found");

    const broken = cell("broken");
    expect(broken).toHaveTextContent("nothing in service");
    expect(within(broken).getAllByRole("link").map((a) => a.textContent)).toEqual(["hello-broken-1"]);
    expect(within(broken).getByText("Rollback disabled")).toBeInTheDocument();
  });
});

describe("EnvironmentsPage: failures and freezes", () => {
  it("marks the cells whose last deploy failed, and draws a failure recovered from since as history", async () => {
    const api = fakeApi({
      EnvironmentsPage: () => ({
        inventory: [
          // Failed after the release in service: failing, 1.0.0 still serving.
          inService("prod", { lastFailure: rolledBack }),
          // Failed, then 1.0.0 was deployed: recovered.
          inService("staging", { deployedAt: "2026-11-30T10:00:00Z", lastFailure: { ...rolledBack, deploymentId: "hello-staging-1b", finishedAt: "2026-11-30T09:10:00Z" } }),
          // Its only deploy failed: the column stays, failing.
          nothingInService("broken", { ...rolledBack, deploymentId: "hello-broken-1", rollback: null }),
          inService("dev"),
        ],
        activity: [],
      }),
      EnvironmentsFreezes: noFreezes,
    });
    render(
      <MemoryRouter>
        <EnvironmentsPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const table = await screen.findByRole("table");
    expect(within(table).getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Application", "dev", "staging", "prod", "broken"]);
    const cell = (env: string) => table.querySelector<HTMLElement>(`td[data-environment="${env}"]`)!;

    expect(cell("prod")).toHaveAttribute("data-failing", "true");
    expect(within(cell("prod")).getByRole("group", { name: "Last failure" })).toHaveTextContent(/^Last deploy failed hello-prod-2/);
    expect(cell("broken")).toHaveAttribute("data-failing", "true");

    expect(cell("staging")).not.toHaveAttribute("data-failing");
    const history = within(cell("staging")).getByRole("group", { name: "Last failure" });
    expect(history).toHaveAttribute("data-recovered", "true");
    expect(history).toHaveTextContent("recovered since");
    expect(cell("dev")).not.toHaveAttribute("data-failing");
  });

  it("reads the freeze calendars of the whole matrix in one request", async () => {
    const asked: Ref[][] = [];
    const api = fakeApi({
      EnvironmentsPage: () => ({
        inventory: [inService("staging"), inService("prod"), inService("prod", { application: "shop" })],
        activity: [],
      }),
      EnvironmentsFreezes: (v) => {
        asked.push(v.environments as Ref[]);
        return {
          freezeCalendars: (v.environments as Ref[]).map((e) => ({
            ...e,
            // A cell the viewer may not read has no calendar.
            calendar:
              e.application === "shop" && e.environment === "staging"
                ? null
                : {
                    from: "2026-11-30T00:00:00Z",
                    to: "2099-12-30T00:00:00Z",
                    windows: e.environment === "prod" ? [{ rule: "sunday", start: "2099-12-06T00:00:00Z", end: "2099-12-07T00:00:00Z", recurring: true, cron: "0 0 * * SUN", timeZone: "UTC" }] : [],
                  },
          })),
        };
      },
      FreezeCalendar: noFreeze,
    });
    render(
      <MemoryRouter>
        <EnvironmentsPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const table = await screen.findByRole("table");
    await waitFor(() => expect(table.querySelectorAll("[data-freeze]")).toHaveLength(2));
    // Every request is the whole matrix (the fake has no cache, so urql may
    // send a query twice: never once per cell).
    const cells = [
      { tenant: "demo", application: "hello", environment: "staging" },
      { tenant: "demo", application: "hello", environment: "prod" },
      { tenant: "demo", application: "shop", environment: "staging" },
      { tenant: "demo", application: "shop", environment: "prod" },
    ];
    expect(asked.length).toBeGreaterThan(0);
    for (const a of asked) expect(a).toEqual(cells);
    expect(api.received.filter((n) => n === "FreezeCalendar")).toEqual([]);
    expect(api.received.filter((n) => n === "EnvironmentsFreezes").length).toBeLessThanOrEqual(api.received.filter((n) => n === "EnvironmentsPage").length);
    for (const td of table.querySelectorAll('td[data-environment="prod"]')) expect(td.querySelector("[data-freeze]")).toHaveTextContent(/Next freeze/);
  });
});

describe("EnvironmentsPage: a matrix larger than one request", () => {
  // 30 applications in 20 environments: 600 cells, more than the server
  // answers in one request (maxCalendars).
  const environments = Array.from({ length: 20 }, (_, i) => `env${String(i).padStart(2, "0")}`);
  const applications = Array.from({ length: 30 }, (_, i) => `app${String(i).padStart(2, "0")}`);
  const inventory = applications.flatMap((application) => environments.map((environment) => inService(environment, { application })));
  const frozenSoon = (e: Ref) => ({
    ...e,
    calendar: {
      from: "2026-11-30T00:00:00Z",
      to: "2099-12-30T00:00:00Z",
      windows: [{ rule: "sunday", start: "2099-12-06T00:00:00Z", end: "2099-12-07T00:00:00Z", recurring: true, cron: "0 0 * * SUN", timeZone: "UTC" }],
    },
  });

  function renderMatrix(freezes: (refs: Ref[], batch: number) => Record<string, unknown> | Error) {
    const asked: Ref[][] = [];
    const api = fakeApi({
      EnvironmentsPage: () => ({ inventory, activity: [] }),
      EnvironmentsFreezes: (v) => {
        const refs = v.environments as Ref[];
        asked.push(refs);
        return freezes(refs, asked.length - 1);
      },
    });
    render(
      <MemoryRouter>
        <EnvironmentsPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    return asked;
  }

  it("asks in batches of at most the server's limit and shows the notes of every cell", async () => {
    const asked = renderMatrix((refs) => ({ freezeCalendars: refs.map(frozenSoon) }));
    const table = await screen.findByRole("table");
    await waitFor(() => expect(table.querySelectorAll("[data-freeze]")).toHaveLength(600));
    for (const refs of asked) expect(refs.length).toBeLessThanOrEqual(maxCalendars);
    const distinct = new Set(asked.flat().map((e) => `${e.application}/${e.environment}`));
    expect(distinct.size).toBe(600);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says so when a batch fails, and keeps the notes of the others", async () => {
    renderMatrix((refs) => (refs.length < maxCalendars ? new Error("connection refused") : { freezeCalendars: refs.map(frozenSoon) }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Loading the freeze windows");
    const table = screen.getByRole("table");
    expect(table.querySelectorAll("[data-freeze]")).toHaveLength(maxCalendars);
    expect(within(alert).getByRole("button", { name: "Retry" })).toBeInTheDocument();
  });

  it("says so when the only batch fails", async () => {
    const api = fakeApi({
      EnvironmentsPage: () => ({ inventory: [inService("staging"), inService("prod")], activity: [] }),
      EnvironmentsFreezes: () => new Error("connection refused"),
    });
    render(
      <MemoryRouter>
        <EnvironmentsPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    expect(await screen.findByRole("alert")).toHaveTextContent("Loading the freeze windows");
    expect(screen.getByRole("table").querySelectorAll("[data-freeze]")).toHaveLength(0);
  });
});

const historyRow = (id: string, state: "SUCCESS" | "ERROR", patch: Record<string, unknown> = {}) => ({
  id,
  state,
  requester: "token:demo-ci",
  createdAt: "2026-11-30T08:59:00Z",
  finishedAt: "2026-11-30T09:00:00Z",
  durationMs: 61_000,
  dryRun: false,
  artifact: { name: "hello", version: "1.0.0" },
  rollback: null,
  canRollbackTo: false,
  ...patch,
});

describe("EnvironmentPage", () => {
  function renderPage(entries: () => InventoryCellFragment[], environment: string) {
    // The environment as the server answers it, from the inventory entries of the test.
    const api = fakeApi({
      EnvironmentPage: (v) => {
        const e = entries().find((x) => x.environment === v.environment);
        return {
          environment: {
            tenant: "demo",
            application: "hello",
            environment,
            inService: e?.deploymentId ? e : null,
            lastFailure: e?.lastFailure ?? null,
            history: { nodes: e ? [historyRow(e.deploymentId ?? `hello-${environment}-0`, e.deploymentId ? "SUCCESS" : "ERROR")] : [], pageInfo: { hasNextPage: false, endCursor: null } },
          },
        };
      },
      FreezeCalendar: noFreeze,
    });
    render(
      <MemoryRouter initialEntries={[`/environments/demo/hello/${environment}`]}>
        <Routes>
          <Route path="/environments/:tenant/:application/:environment" element={<EnvironmentPage />} />
        </Routes>
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    return api;
  }

  it("shows the release in service and the last failure with its error, and reads them again when a deploy there ends", async () => {
    let entries = [inService("prod"), inService("staging", { lastFailure: { ...rolledBack, deploymentId: "hello-staging-9" } })];
    const api = renderPage(() => entries, "prod");
    const section = await screen.findByRole("region", { name: "In service" });
    expect(await within(section).findByRole("link", { name: "1.0.0" })).toHaveAttribute("href", "/deployments/hello-prod-1");
    // Another environment's failure is not this one's.
    expect(within(section).queryByRole("group", { name: "Last failure" })).toBeNull();

    entries = [inService("prod", { lastFailure: rolledBack })];
    const ended: InFlightFragment = {
      id: "hello-prod-2",
      tenant: "demo",
      application: "hello",
      environment: "prod",
      state: "ERROR",
      updatedAt: "2026-11-30T09:30:00Z",
      currentStep: null,
      artifact: { version: "1.1.0" },
    };
    act(() => api.push("EnvironmentsFeed", { activity: { kind: "state", deployment: ended } }));
    const failure = await within(section).findByRole("group", { name: "Last failure" });
    expect(within(failure).getByRole("link", { name: "hello-prod-2" })).toBeInTheDocument();
    expect(failure).toHaveTextContent("failed in post-test");
    expect(failure).toHaveTextContent("health check http://127.0.0.1:9/h: 404 Not Found");
    expect(within(failure).getByText("Rollback completed")).toBeInTheDocument();
    // The release in service is still the one before.
    expect(within(section).getByRole("link", { name: "1.0.0" })).toBeInTheDocument();
  });

  it("copes with an environment with nothing in service, and one never deployed", async () => {
    renderPage(() => [nothingInService("broken", { ...rolledBack, deploymentId: "hello-broken-1", rollback: null })], "broken");
    const section = await screen.findByRole("region", { name: "In service" });
    expect(await within(section).findByText("nothing in service")).toBeInTheDocument();
    const failure = within(section).getByRole("group", { name: "Last failure" });
    expect(within(failure).getByRole("link", { name: "hello-broken-1" })).toBeInTheDocument();
    expect(within(failure).queryByText(/Rollback/)).toBeNull();
  });

  it("says so for an environment never deployed", async () => {
    renderPage(() => [], "qa");
    const section = await screen.findByRole("region", { name: "In service" });
    expect(await within(section).findByText("not deployed")).toBeInTheDocument();
  });

  it("lists the history with Roll back only on the releases the server allows, and pages to older deploys", async () => {
    const asked: Record<string, unknown>[] = [];
    const page1 = [
      historyRow("hello-prod-3", "ERROR", { artifact: { name: "hello", version: "1.2.0" }, rollback: { state: "COMPLETED" }, durationMs: 95_000 }),
      historyRow("hello-prod-2", "SUCCESS", { artifact: { name: "hello", version: "1.1.0" } }),
      historyRow("hello-prod-1", "SUCCESS", { canRollbackTo: true }),
    ];
    const page2 = [historyRow("hello-prod-0", "SUCCESS", { artifact: { name: "hello", version: "0.9.0" }, canRollbackTo: true })];
    const api = fakeApi({
      EnvironmentPage: (v) => {
        asked.push(v);
        return {
          environment: {
            tenant: "demo",
            application: "hello",
            environment: "prod",
            inService: {
              ...inService("prod", { deploymentId: "hello-prod-2", artifact: { name: "hello", version: "1.1.0" }, promotionTargets: ["dr"] }),
              previous: {
                deploymentId: "hello-prod-1",
                artifact: { name: "hello", version: "1.0.0" },
                deployedAt: "2026-11-30T09:00:00Z",
                deployedBy: "token:demo-ci",
                canRollbackTo: true,
              },
            },
            lastFailure: rolledBack,
            history: v.after
              ? { nodes: page2, pageInfo: { hasNextPage: false, endCursor: "c2" } }
              : { nodes: page1, pageInfo: { hasNextPage: true, endCursor: "c1" } },
          },
        };
      },
      FreezeCalendar: noFreeze,
    });
    render(
      <MemoryRouter initialEntries={["/environments/demo/hello/prod"]}>
        <Routes>
          <Route path="/environments/:tenant/:application/:environment" element={<EnvironmentPage />} />
        </Routes>
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const table = await screen.findByRole("table", { name: "Deploys here" });
    const row = (id: string) => table.querySelector(`[data-deployment-id="${id}"]`) as HTMLElement;
    expect(row("hello-prod-3")).toHaveTextContent("1.2.0");
    expect(row("hello-prod-3")).toHaveTextContent("1 min 35 s");
    expect(within(row("hello-prod-3")).queryByRole("button")).toBeNull();
    expect(within(row("hello-prod-2")).queryByRole("button")).toBeNull();
    expect(within(row("hello-prod-1")).getByRole("button", { name: "Roll back to this…" })).toBeInTheDocument();
    const section = screen.getByRole("region", { name: "In service" });
    expect(within(section).getByRole("button", { name: "Roll back to 1.0.0…" })).toBeInTheDocument();
    expect(within(section).getByRole("button", { name: "Promote to dr…" })).toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(screen.getByRole("button", { name: "Older →" }));
    expect(await within(screen.getByRole("table", { name: "Deploys here" })).findByText("0.9.0")).toBeInTheDocument();
    expect(asked.at(-1)).toMatchObject({ tenant: "demo", application: "hello", environment: "prod", after: "c1" });
    expect(screen.getByRole("button", { name: "← Newer" })).toBeInTheDocument();
  });

  it("offers Roll back to the release before only when the server allows a rollback to it", async () => {
    const api = fakeApi({
      EnvironmentPage: () => ({
        environment: {
          tenant: "demo",
          application: "hello",
          environment: "prod",
          inService: {
            ...inService("prod", { deploymentId: "hello-prod-2", artifact: { name: "hello", version: "1.1.0" } }),
            previous: {
              deploymentId: "hello-prod-1",
              artifact: { name: "hello", version: "1.0.0" },
              deployedAt: "2026-11-30T09:00:00Z",
              deployedBy: "token:demo-ci",
              canRollbackTo: false,
            },
          },
          lastFailure: null,
          history: { nodes: [historyRow("hello-prod-2", "SUCCESS")], pageInfo: { hasNextPage: false, endCursor: null } },
        },
      }),
      FreezeCalendar: noFreeze,
    });
    render(
      <MemoryRouter initialEntries={["/environments/demo/hello/prod"]}>
        <Routes>
          <Route path="/environments/:tenant/:application/:environment" element={<EnvironmentPage />} />
        </Routes>
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const section = await screen.findByRole("region", { name: "In service" });
    expect(await within(section).findByRole("link", { name: "1.1.0" })).toBeInTheDocument();
    expect(within(section).getByRole("group", { name: "Previous release" })).toHaveTextContent("1.0.0");
    expect(within(section).queryByRole("button", { name: /Roll back/ })).toBeNull();
  });
});
