import { act, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { metrics, type Figures } from "../dora/metrics";
import { fakeApi } from "../../test/fakeApi";
import { doraStripFromSearch, stripPeriods, trend } from "./strip";
import { WallPage } from "./WallPage";

const now = Date.parse("2026-11-30T12:00:30Z");
const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** Figures of a period: n deploys, lead times of leadMin minutes, failed of them failed. */
function figures(n: number, leadMin: number, failed: number, enough = n >= 5): Figures {
  return {
    deploymentFrequency: { deploys: n, perWeek: n / 4, band: n / 4 >= 1 ? "HIGH" : "MEDIUM", deploymentIds: ids("d", n) },
    leadTime: { seconds: n ? leadMin * 60 : null, samples: n, enoughData: enough, band: enough ? "ELITE" : null, deploymentIds: ids("d", n) },
    changeFailRate: { count: failed, of: n, rate: n ? failed / n : 0, enoughData: enough, band: enough ? "MEDIUM" : null, deploymentIds: ids("f", failed) },
    recoveryTime: { seconds: failed ? 1800 : null, samples: failed, enoughData: false, band: null, deploymentIds: ids("f", failed), unrecoveredIds: [] },
    reworkRate: { count: 0, of: n, rate: 0, enoughData: enough, band: null, deploymentIds: [] },
  };
}

const figure = (key: string) => document.querySelector<HTMLElement>(`[data-metric="${key}"]`)!;

function renderWall(search: string, dora: (v: Record<string, unknown>) => Record<string, unknown>) {
  const asked: Record<string, unknown>[] = [];
  const api = fakeApi({
    Wall: () => ({ activity: [], failed: { nodes: [] }, inService: [] }),
    WallDora: (v) => {
      asked.push(v);
      return dora(v);
    },
  });
  render(
    <MemoryRouter initialEntries={[`/wall${search}`]}>
      <WallPage />
    </MemoryRouter>,
    { wrapper: api.wrapper },
  );
  return { api, asked };
}

describe("the wall's DORA strip", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(now);
  });
  afterEach(() => vi.useRealTimers());

  it("is off unless the URL asks for it", async () => {
    const { api } = renderWall("", () => ({}));
    await screen.findByRole("heading", { name: /Running/ });
    expect(screen.queryByRole("region", { name: /DORA/ })).toBeNull();
    expect(api.received).not.toContain("WallDora");
    for (const [search, on] of [["?dora=1", true], ["?dora=on", true], ["?dora=TRUE", true], ["?dora=0", false], ["?dora=", false], ["?window=90", false]] as const) {
      expect(doraStripFromSearch(search), search).toBe(on);
    }
  });

  it("shows the five figures of the last 28 days with their bands against the 28 days before", async () => {
    const { asked } = renderWall("?dora=1", () => ({
      current: { range: figures(12, 90, 1) },
      previous: { range: figures(8, 45, 2) },
    }));
    const strip = await screen.findByRole("region", { name: "DORA metrics, last 28 days" });
    await within(strip).findByText("3 / week");
    // The two rolling periods, back to back, ending now (up to the next minute).
    expect(asked[0]).toEqual({
      current: { from: "2026-11-02T12:01:00.000Z", to: "2026-11-30T12:01:00.000Z" },
      previous: { from: "2026-10-05T12:01:00.000Z", to: "2026-11-02T12:01:00.000Z" },
    });
    expect(within(strip).getAllByRole("listitem")).toHaveLength(5);

    const freq = figure("deploymentFrequency");
    expect(freq).toHaveTextContent("Deploys3 / weekHigh▲ 28 days before: 2 / week");
    expect(within(freq).getByText(/28 days before/)).toHaveAttribute("data-trend", "better");
    // a longer lead time is worse, though its number went up
    const lead = figure("leadTime");
    expect(lead).toHaveTextContent("1 h 30 min");
    expect(lead).toHaveTextContent("Elite");
    expect(within(lead).getByText(/28 days before/)).toHaveAttribute("data-trend", "worse");
    const cfr = figure("changeFailRate");
    expect(cfr).toHaveTextContent("8.3 %");
    expect(cfr).toHaveTextContent("Medium");
    expect(within(cfr).getByText(/28 days before/)).toHaveAttribute("data-trend", "better");
    // below the dashboard's threshold: not enough data, no band, no trend
    const rec = figure("recoveryTime");
    expect(rec).toHaveAttribute("data-enough", "false");
    expect(rec).toHaveTextContent("not enough data");
    expect(rec).toHaveTextContent("1 sample");
    expect(within(rec).getByText(/28 days before/)).toHaveAttribute("data-trend", "none");
    // the rework rate has no published bands
    expect(figure("reworkRate")).toHaveTextContent("0 %no band");
  });

  it("says not enough data on a quiet wall, and no data where there was none", async () => {
    renderWall("?dora=1", () => ({ current: { range: figures(2, 10, 0) }, previous: { range: figures(0, 0, 0) } }));
    const strip = await screen.findByRole("region", { name: /DORA/ });
    await within(strip).findByText("0.5 / week");
    expect(figure("leadTime")).toHaveTextContent("not enough data");
    expect(figure("leadTime")).toHaveTextContent("28 days before: no data");
    expect(figure("changeFailRate")).toHaveTextContent("not enough data");
  });

  it("reads the figures again a few seconds after a deploy ends", async () => {
    let deploys = 5;
    const { api, asked } = renderWall("?dora=1", () => ({ current: { range: figures(deploys, 30, 0) }, previous: { range: figures(5, 30, 0) } }));
    await screen.findByText("1.3 / week");
    const before = asked.length;
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "setInterval", "clearTimeout", "clearInterval"] });
    vi.setSystemTime(now + 90_000);
    deploys = 8;
    const ended = {
      id: "hello-9",
      tenant: "demo",
      application: "hello",
      environment: "prod",
      state: "SUCCESS",
      requester: "token:demo-ci",
      createdAt: "2026-11-30T11:58:00Z",
      startedAt: "2026-11-30T11:58:00Z",
      finishedAt: "2026-11-30T12:01:00Z",
      updatedAt: "2026-11-30T12:01:00Z",
      startAt: null,
      dryRun: false,
      artifact: { version: "1.0.0" },
      currentStep: null,
      error: null,
      plan: { steps: [] },
      steps: [],
      rollout: null,
    };
    act(() => api.push("WallFeed", { activity: { kind: "DEPLOYMENT", deployment: ended } }));
    // not at once: a burst of deploys ending reads the figures once
    expect(asked).toHaveLength(before);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(6_000);
    });
    vi.useRealTimers();
    await screen.findByText("2 / week");
    expect(asked.length).toBeGreaterThan(before);
    // 90 s and the 6 s waited later, up to the next minute
    expect(asked.at(-1)).toMatchObject({ current: { to: "2026-11-30T12:03:00.000Z" } });
  });
});

describe("strip periods and trends", () => {
  it("are two 28-day periods back to back", () => {
    const p = stripPeriods(Date.parse("2026-03-29T10:15:01Z"));
    expect(p.current).toEqual({ from: "2026-03-01T10:16:00.000Z", to: "2026-03-29T10:16:00.000Z" });
    expect(p.previous).toEqual({ from: "2026-02-01T10:16:00.000Z", to: "2026-03-01T10:16:00.000Z" });
    // on the minute, up to it
    expect(stripPeriods(Date.parse("2026-03-29T10:15:00Z")).current.to).toBe("2026-03-29T10:15:00.000Z");
  });

  it("tell better from worse by the metric's direction", () => {
    const freq = metrics.find((m) => m.key === "deploymentFrequency")!;
    const cfr = metrics.find((m) => m.key === "changeFailRate")!;
    const cases: [string, ReturnType<typeof trend>, ReturnType<typeof trend>][] = [
      ["more deploys, fewer failures", trend(freq, figures(10, 1, 1), figures(5, 1, 1)), trend(cfr, figures(10, 1, 1), figures(5, 1, 1))],
      ["fewer deploys, more failures", trend(freq, figures(5, 1, 2), figures(10, 1, 1)), trend(cfr, figures(5, 1, 2), figures(10, 1, 1))],
    ];
    expect(cases.map((c) => [c[0], c[1], c[2]])).toEqual([
      ["more deploys, fewer failures", "better", "better"],
      ["fewer deploys, more failures", "worse", "worse"],
    ]);
    expect(trend(freq, figures(8, 1, 0), figures(8, 1, 0))).toBe("same");
    expect(trend(cfr, figures(8, 1, 0), figures(2, 1, 0))).toBe("none");
  });
});
