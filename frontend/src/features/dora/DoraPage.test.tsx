import { fireEvent, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { DoraPage } from "./DoraPage";
import { figureText, metrics, parseDoraFilters, toDoraFilter, writeDoraFilters, type Figures } from "./metrics";

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** A week of the fixture: rich enough for a band everywhere, or too thin for any. */
function figures(prefix: string, rich: boolean): Figures {
  const n = rich ? 6 : 2;
  return {
    deploymentFrequency: { deploys: n, perWeek: n, band: rich ? "HIGH" : "MEDIUM", deploymentIds: ids(prefix, n) },
    leadTime: { seconds: rich ? 5400 : 60, samples: n, enoughData: rich, band: rich ? "ELITE" : null, deploymentIds: ids(prefix, n) },
    changeFailRate: { count: 1, of: n, rate: 1 / n, enoughData: rich, band: rich ? "HIGH" : null, deploymentIds: [`${prefix}-fail`] },
    recoveryTime: {
      seconds: 1800,
      samples: 1,
      enoughData: false,
      band: null,
      deploymentIds: [`${prefix}-fail`],
      unrecoveredIds: rich ? [] : [`${prefix}-open`],
    },
    reworkRate: { count: 0, of: n, rate: 0, enoughData: rich, band: null, deploymentIds: [] },
  };
}

const report = {
  doraMetrics: {
    from: "2026-11-16T00:00:00Z",
    to: "2026-11-30T00:00:00Z",
    weeks: [
      { year: 2026, week: 47, start: "2026-11-16T00:00:00Z", figures: figures("w47", true) },
      { year: 2026, week: 48, start: "2026-11-23T00:00:00Z", figures: figures("w48", false) },
    ],
    total: figures("all", true),
  },
};

function renderDora(search: string, answer: (v: Record<string, unknown>) => Record<string, unknown> = () => report) {
  const seen: Record<string, unknown>[] = [];
  const api = fakeApi({
    DoraPage: (v) => {
      seen.push(v);
      return answer(v);
    },
  });
  render(
    <MemoryRouter initialEntries={[`/dora${search}`]}>
      <DoraPage />
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
  return seen;
}

describe("DORA filters", () => {
  it("round-trip through the URL and become the GraphQL filter", () => {
    const f = parseDoraFilters(new URLSearchParams("application=hello&environment=%20&weeks=4&bogus=1"));
    expect(f).toEqual({ application: "hello", environment: "", weeks: 4 });
    expect(writeDoraFilters(f).toString()).toBe("application=hello&weeks=4");
    expect(parseDoraFilters(new URLSearchParams("weeks=7")).weeks).toBe(12);
    const now = Date.parse("2026-12-01T00:00:00Z");
    expect(toDoraFilter(f, now)).toEqual({ application: "hello", from: "2026-11-03T00:00:00.000Z", to: "2026-12-01T00:00:00.000Z" });
  });

  it("tell a week without samples from one with too few", () => {
    const none = figures("x", false);
    none.leadTime = { seconds: null, samples: 0, enoughData: false, band: null, deploymentIds: [] };
    none.recoveryTime = { seconds: null, samples: 0, enoughData: false, band: null, deploymentIds: [], unrecoveredIds: ["x-open"] };
    expect(metrics.map((m) => figureText(m, none))).toEqual(["2 / week", "no data", "not enough data", "not enough data", "not enough data"]);
  });

  it("give no number where a figure has not enough data", () => {
    const cases: [string, Figures, (string | null)[]][] = [
      ["rich", figures("x", true), ["6 / week", "1 h 30 min", "16.7 %", null, "0 %"]],
      ["thin", figures("x", false), ["2 / week", null, null, null, null]],
    ];
    for (const [name, f, want] of cases) {
      expect(
        metrics.map((m) => {
          const v = m.value(f);
          return v == null ? null : m.format(v);
        }),
        name,
      ).toEqual(want);
    }
  });
});

describe("DoraPage", () => {
  it("renders the five metrics with a chart each, sending the URL's filters", async () => {
    const seen = renderDora("?application=hello&environment=prod");
    const lead = await screen.findByRole("region", { name: "Lead time for changes" });
    expect(screen.getAllByRole("region")).toHaveLength(5);
    for (const m of metrics) expect(document.querySelector(`[data-chart="${m.key}"] svg`), m.key).toBeTruthy();
    expect(seen[0]).toMatchObject({ filter: { application: "hello", environment: "prod" } });

    expect(within(lead).getByText("1 h 30 min")).toBeTruthy();
    expect(within(lead).getByText("Elite")).toBeTruthy();
    expect(within(lead).getByRole("button", { name: "2026-W47: 1 h 30 min" })).toBeTruthy();
    // Two samples in W48: a 1-minute median would mislead, so it is not shown.
    expect(within(lead).getByRole("button", { name: "2026-W48: not enough data" })).toBeTruthy();
    expect(within(lead).queryByText(/1 min/)).toBeNull();

    const recovery = screen.getByRole("region", { name: "Failed deployment recovery time" });
    expect(within(recovery).getByText("Not enough data")).toBeTruthy();
    expect(within(recovery).queryByText("30 min")).toBeNull();
  });

  it("opens the deploys behind a week's figure and the whole range, as links to their pages", async () => {
    renderDora("");
    const recovery = await screen.findByRole("region", { name: "Failed deployment recovery time" });
    fireEvent.click(within(recovery).getByRole("button", { name: "2026-W48: not enough data" }));
    let panel = screen.getByRole("region", { name: "Deploys behind the figure" });
    expect(within(panel).getByText("Failed deployment recovery time, 2026-W48")).toBeTruthy();
    expect(within(panel).getAllByRole("link").map((a) => a.getAttribute("href"))).toEqual(["/deployments/w48-fail", "/deployments/w48-open"]);

    const freq = screen.getByRole("region", { name: "Deployment frequency" });
    fireEvent.click(within(freq).getByRole("button", { name: /^Deployment frequency, the whole range: / }));
    panel = screen.getByRole("region", { name: "Deploys behind the figure" });
    expect(within(panel).getAllByRole("link")).toHaveLength(6);
    expect(within(panel).getByRole("link", { name: "all-3" }).getAttribute("href")).toBe("/deployments/all-3");
  });

  it("opens the deploys of a chart point", async () => {
    renderDora("");
    await screen.findByRole("region", { name: "Change fail rate" });
    const point = document.querySelector<SVGElement>('[data-chart="changeFailRate"] [data-week="2026-W47"]');
    expect(point).toBeTruthy();
    fireEvent.click(point!);
    const panel = screen.getByRole("region", { name: "Deploys behind the figure" });
    expect(within(panel).getByText("Change fail rate, 2026-W47")).toBeTruthy();
    expect(within(panel).getByRole("link", { name: "w47-fail" }).getAttribute("href")).toBe("/deployments/w47-fail");
    // A week with not enough data has no point to click.
    expect(document.querySelector('[data-chart="changeFailRate"] [data-week="2026-W48"]')).toBeNull();
  });

  it("says so when no deploy finished in the range", async () => {
    const empty = figures("none", false);
    empty.deploymentFrequency = { deploys: 0, perWeek: 0, band: "LOW", deploymentIds: [] };
    empty.changeFailRate = { count: 0, of: 0, rate: 0, enoughData: false, band: null, deploymentIds: [] };
    renderDora("", () => ({ doraMetrics: { ...report.doraMetrics, weeks: [], total: empty } }));
    expect(await screen.findByText("No deploys finished in this range.")).toBeTruthy();
  });
});
