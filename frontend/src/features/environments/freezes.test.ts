import { describe, expect, it } from "vitest";
import { formatAbsolute } from "../../shared/time";
import { calendarPath, freezeHeadline, freezeNote, freezeState, upcomingWindows, windowLength, windowOrigin, type FreezeWindow } from "./freezes";

function sunday(date: string, over: Partial<FreezeWindow> = {}): FreezeWindow {
  const start = new Date(`${date}T00:00:00Z`);
  return {
    rule: "sunday",
    start: start.toISOString(),
    end: new Date(start.getTime() + 86_400_000).toISOString(),
    recurring: true,
    cron: "0 0 * * SUN",
    timeZone: "UTC",
    ...over,
  };
}

const windows = [sunday("2026-05-17"), sunday("2026-05-24")];
const at = (iso: string) => Date.parse(iso);

describe("freeze calendar", () => {
  it("is frozen in a window, until its end", () => {
    const now = at("2026-05-17T10:00:00Z");
    const state = freezeState(windows, now);
    expect(state).toEqual({ kind: "frozen", window: windows[0] });
    expect(freezeHeadline(state, now)).toBe(`Frozen now until ${formatAbsolute("2026-05-18T00:00:00.000Z")} (in 14 h), by sunday`);
    expect(freezeNote(state, now)).toBe(`Frozen until ${formatAbsolute("2026-05-18T00:00:00.000Z")}`);
  });

  it("says when the next freeze opens when not frozen", () => {
    const now = at("2026-05-13T10:00:00Z");
    const state = freezeState(windows, now);
    expect(state).toEqual({ kind: "next", window: windows[0] });
    expect(freezeHeadline(state, now)).toBe(`Next freeze ${formatAbsolute("2026-05-17T00:00:00.000Z")} (in 3 d), by sunday`);
    expect(freezeNote(state, now)).toBe("Next freeze in 3 d");
  });

  it("treats windows as [start, end)", () => {
    expect(freezeState(windows, at("2026-05-17T00:00:00Z")).kind).toBe("frozen");
    expect(freezeState(windows, at("2026-05-18T00:00:00Z"))).toEqual({ kind: "next", window: windows[1] });
    expect(freezeState(windows, at("2026-05-25T00:00:00Z"))).toEqual({ kind: "clear" });
  });

  it("reports the overlapping window that ends last: the freeze lasts until then", () => {
    const long = { ...sunday("2026-05-16"), rule: "weekend", end: "2026-05-18T06:00:00.000Z", recurring: false, cron: null, timeZone: null };
    const state = freezeState([windows[0]!, long], at("2026-05-17T10:00:00Z"));
    expect(state).toEqual({ kind: "frozen", window: long });
  });

  it("says nothing in a cell when no freeze is near, and the range on the page", () => {
    const now = at("2026-06-01T00:00:00Z");
    const state = freezeState([], now);
    expect(freezeNote(state, now)).toBeUndefined();
    expect(freezeHeadline(state, now, { from: "2026-06-01T00:00:00Z", to: "2026-07-01T00:00:00Z" })).toBe("No freeze in the next 30 days");
    expect(freezeHeadline(state, now)).toBe("No freeze planned");
  });

  it("lists the windows in force or to come, by start, with their length and schedule", () => {
    const once = { rule: "release", start: "2026-05-20T08:00:00Z", end: "2026-05-20T09:30:00Z", recurring: false, cron: null, timeZone: null };
    const list = upcomingWindows([windows[1]!, once, windows[0]!], at("2026-05-18T00:00:00Z"));
    expect(list.map((w) => w.rule + " " + w.start)).toEqual(["release 2026-05-20T08:00:00Z", "sunday 2026-05-24T00:00:00.000Z"]);
    expect(windowLength(windows[0]!)).toBe("24 h");
    expect(windowLength(once)).toBe("1 h 30 min");
    expect(windowOrigin(windows[0]!)).toBe("recurring: 0 0 * * SUN (UTC)");
    expect(windowOrigin(once)).toBe("one-off");
  });

  it("links to the calendar page with each part escaped", () => {
    expect(calendarPath("demo", "hello", "prod")).toBe("/environments/demo/hello/prod");
    expect(calendarPath("a b", "x/y", "z")).toBe("/environments/a%20b/x%2Fy/z");
  });
});
