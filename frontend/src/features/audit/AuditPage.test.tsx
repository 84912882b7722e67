import { fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { AuditPage } from "./AuditPage";
import { auditOutcome, parseAuditFilters, toAuditFilter, writeAuditFilters } from "./filters";

const entry = (id: string, action: string, target: string, details: Record<string, unknown>) => ({
  id,
  time: "2026-11-30T09:00:00Z",
  actor: "token:demo-ci",
  action,
  target,
  details,
  resources: [{ tenant: "demo", application: "hello", environment: "prod" }],
});

function renderAudit(search: string, answer: (v: Record<string, unknown>) => Record<string, unknown>) {
  const seen: Record<string, unknown>[] = [];
  const api = fakeApi({
    AuditPage: (v) => {
      seen.push(v);
      return answer(v);
    },
  });
  render(
    <MemoryRouter initialEntries={[`/audit${search}`]}>
      <AuditPage />
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
  return seen;
}

describe("audit filters", () => {
  it("round-trip through the URL and become the GraphQL filter", () => {
    const f = parseAuditFilters(new URLSearchParams("environment=prod&action=deployment.*&since=24h&tenant=%20&bogus=1"));
    expect(f).toEqual({ tenant: "", application: "", environment: "prod", actor: "", action: "deployment.*", since: "24h" });
    expect(writeAuditFilters(f).toString()).toBe("environment=prod&action=deployment.*&since=24h");
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(toAuditFilter(f, now)).toEqual({ environment: "prod", action: "deployment.*", since: "2026-11-30T12:00:00.000Z" });
    expect(parseAuditFilters(new URLSearchParams("since=forever")).since).toBe("");
  });

  it("take the outcome an entry records", () => {
    expect(auditOutcome({ state: "SUCCESS" })).toBe("SUCCESS");
    expect(auditOutcome({ outcome: "failed" })).toBe("failed");
    expect(auditOutcome({ comment: "ok" })).toBe("");
    expect(auditOutcome(null)).toBe("");
  });
});

describe("AuditPage", () => {
  it("lists the entries with their outcome and links, sending the URL's filters", async () => {
    const seen = renderAudit("?environment=prod&action=deployment.finish", () => ({
      auditEntries: {
        nodes: [entry("2", "deployment.finish", "hello-2", { state: "SUCCESS" }), entry("1", "release.submit", "rel-1", {})],
        pageInfo: { hasNextPage: true, endCursor: "c1" },
      },
    }));
    const table = await screen.findByRole("table");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText("SUCCESS")).toBeTruthy();
    expect(within(rows[0]!).getByRole("link", { name: "hello-2" }).getAttribute("href")).toBe("/deployments/hello-2");
    expect(within(rows[1]!).getByRole("link", { name: "rel-1" }).getAttribute("href")).toBe("/releases/rel-1");
    expect(seen[0]).toMatchObject({ filter: { environment: "prod", action: "deployment.finish" }, first: 50, after: null });

    fireEvent.click(screen.getByRole("button", { name: "Older →" }));
    await screen.findByRole("table");
    expect(seen.at(-1)).toMatchObject({ filter: { environment: "prod", action: "deployment.finish" }, after: "c1" });
  });

  it("applies typed filters together and starts again from the newest", async () => {
    const seen = renderAudit("", () => ({ auditEntries: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } }));
    expect(await screen.findByText("No audit entries.")).toBeTruthy();
    fireEvent.change(screen.getByRole("textbox", { name: "Identity" }), { target: { value: "token:demo-admin" } });
    fireEvent.change(screen.getByRole("textbox", { name: "Action" }), { target: { value: "deployment.approve" } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("No entry matches these filters.")).toBeTruthy();
    expect(seen.at(-1)).toMatchObject({ filter: { actor: "token:demo-admin", action: "deployment.approve" }, after: null });
  });
});
