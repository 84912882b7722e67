import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, useLocation, useNavigate } from "react-router";
import { Provider, type Client } from "urql";
import { fromValue, never } from "wonka";
import { describe, expect, it, vi } from "vitest";
import { DeploymentFilters } from "./DeploymentFilters";
import { DeploymentsPage } from "./DeploymentsPage";
import { parseFilters, toDeploymentFilter, writeFilters } from "./filters";
import { useUrlFilters } from "./useUrlFilters";

function Search() {
  const location = useLocation();
  return <output aria-label="URL query">{location.search}</output>;
}

function Harness() {
  const { filters, setFilters } = useUrlFilters();
  const navigate = useNavigate();
  return (
    <>
      <DeploymentFilters value={filters} onChange={setFilters} debounceMs={10} />
      <button type="button" onClick={() => navigate("/deployments?environment=prod&requester=token%3Aci")}>
        Open a shared link
      </button>
      <Search />
    </>
  );
}

const query = () => screen.getByRole("status", { name: "URL query" });

describe("deploy filters ↔ URL", () => {
  it("reads the filters of a shared URL into the fields", () => {
    render(
      <MemoryRouter initialEntries={["/deployments?tenant=demo&application=hello&state=ERROR&since=24h&requester=token:ci"]}>
        <Harness />
      </MemoryRouter>,
    );
    expect(screen.getByRole("textbox", { name: "Tenant" })).toHaveValue("demo");
    expect(screen.getByRole("textbox", { name: "Application" })).toHaveValue("hello");
    expect(screen.getByRole("textbox", { name: "Requester" })).toHaveValue("token:ci");
    expect(screen.getByRole("combobox", { name: "State" })).toHaveValue("ERROR");
    expect(screen.getByRole("combobox", { name: "Created" })).toHaveValue("24h");
  });

  it("writes every change to the URL, and follows the URL when it changes", async () => {
    const user = userEvent.setup();
    render(
      <MemoryRouter initialEntries={["/deployments?after=cursor-2"]}>
        <Harness />
      </MemoryRouter>,
    );
    await user.type(screen.getByRole("textbox", { name: "Application" }), "hello");
    // A change of filters leaves the page cursor behind.
    await waitFor(() => expect(query()).toHaveTextContent("?application=hello"));

    await user.selectOptions(screen.getByRole("combobox", { name: "State" }), "CANCELLED");
    expect(query()).toHaveTextContent("?application=hello&state=CANCELLED");

    await user.selectOptions(screen.getByRole("combobox", { name: "Created" }), "7d");
    expect(query()).toHaveTextContent("?application=hello&state=CANCELLED&since=7d");

    await user.selectOptions(screen.getByRole("combobox", { name: "Created" }), "custom");
    expect(screen.getByLabelText("From")).toBeInTheDocument();
    expect(query().textContent).toMatch(/&from=\d{4}-\d\d-\d\dT/);

    await user.type(screen.getByRole("textbox", { name: "Requester" }), "token:ci{Enter}");
    expect(query().textContent).toContain("requester=token%3Aci");

    await user.click(screen.getByRole("button", { name: "Open a shared link" }));
    expect(screen.getByRole("textbox", { name: "Application" })).toHaveValue("");
    expect(screen.getByRole("textbox", { name: "Environment" })).toHaveValue("prod");
    expect(screen.getByRole("combobox", { name: "State" })).toHaveValue("");

    await user.click(screen.getByRole("button", { name: "Clear filters" }));
    expect(query()).toHaveTextContent(/^$/);
    expect(screen.getByRole("textbox", { name: "Environment" })).toHaveValue("");
    expect(screen.getByRole("button", { name: "Clear filters" })).toBeDisabled();
  });

  it("parses, writes and turns filters into the GraphQL filter", () => {
    const f = parseFilters(new URLSearchParams("state=error,CANCELLED&state=BOGUS&since=1h&tenant=%20demo%20&from=2026-01-01T00:00:00Z"));
    expect(f.states).toEqual(["ERROR", "CANCELLED"]);
    expect(f.tenant).toBe("demo");
    // A relative range wins over a custom one.
    expect(writeFilters(f).toString()).toBe("tenant=demo&state=ERROR&state=CANCELLED&since=1h");
    const now = Date.parse("2026-11-30T12:00:00Z");
    expect(toDeploymentFilter(f, now)).toEqual({ tenant: "demo", states: ["ERROR", "CANCELLED"], createdAfter: "2026-11-30T11:00:00.000Z" });
    const custom = parseFilters(new URLSearchParams("from=2026-11-01T08:00:00Z&to=not-a-date"));
    expect(toDeploymentFilter(custom, now)).toEqual({ createdAfter: "2026-11-01T08:00:00.000Z" });
  });
});

describe("DeploymentsPage", () => {
  function mockClient(pages: Record<string, unknown>) {
    const executeQuery = vi.fn(({ query, variables }: { query: { definitions: { name?: { value: string } }[] }; variables: { after?: string | null } }) => {
      const name = query.definitions[0]?.name?.value;
      if (name === "DeploymentsSuggestions") return never;
      return fromValue({ data: pages[variables.after ?? ""] });
    });
    return { client: { executeQuery, executeMutation: vi.fn(), executeSubscription: vi.fn() } as unknown as Client, executeQuery };
  }

  const node = (id: string, state: string) => ({
    id,
    tenant: "demo",
    application: "hello",
    environment: "staging",
    state,
    requester: "token:demo-ci",
    createdAt: "2026-11-30T10:00:00Z",
    startedAt: "2026-11-30T10:00:01Z",
    finishedAt: "2026-11-30T10:00:09Z",
    dryRun: false,
    artifact: { name: "hello", version: "1.0.0" },
    currentStep: null,
    error: state === "ERROR" ? "post-test: health check failed" : null,
  });

  it("queries with the URL's filters and pages with a cursor in the URL", async () => {
    const user = userEvent.setup();
    const { client, executeQuery } = mockClient({
      "": { deployments: { edges: [{ cursor: "c1", node: node("d-1", "ERROR") }], pageInfo: { hasNextPage: true, endCursor: "c1" } } },
      c1: { deployments: { edges: [{ cursor: "c2", node: node("d-0", "SUCCESS") }], pageInfo: { hasNextPage: false, endCursor: "c2" } } },
    });
    render(
      <Provider value={client}>
        <MemoryRouter initialEntries={["/deployments?environment=staging&state=ERROR"]}>
          <DeploymentsPage />
          <Search />
        </MemoryRouter>
      </Provider>,
    );
    expect(await screen.findByRole("link", { name: /hello to staging/ })).toHaveAttribute("href", "/deployments/d-1");
    expect(screen.getByText("post-test: health check failed")).toBeInTheDocument();
    const variables = executeQuery.mock.calls.map(([op]) => op.variables).find((v) => v && "filter" in v);
    expect(variables).toMatchObject({ filter: { environment: "staging", states: ["ERROR"] }, first: 50, after: null });

    await user.click(screen.getByRole("button", { name: "Older →" }));
    expect(query()).toHaveTextContent("?environment=staging&state=ERROR&after=c1");
    expect(await screen.findByRole("link", { name: /hello to staging/ })).toHaveAttribute("href", "/deployments/d-0");
    expect(screen.getByRole("button", { name: "Older →" })).toBeDisabled();

    await user.click(screen.getByRole("button", { name: "← Newer" }));
    expect(query()).toHaveTextContent("?environment=staging&state=ERROR");
    expect(await screen.findByRole("link", { name: /hello to staging/ })).toHaveAttribute("href", "/deployments/d-1");
  });

  it("says when no deploy matches", async () => {
    const { client } = mockClient({ "": { deployments: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } } });
    render(
      <Provider value={client}>
        <MemoryRouter initialEntries={["/deployments?tenant=nobody"]}>
          <DeploymentsPage />
        </MemoryRouter>
      </Provider>,
    );
    expect(await screen.findByText("No deploy matches these filters.")).toBeInTheDocument();
  });
});
