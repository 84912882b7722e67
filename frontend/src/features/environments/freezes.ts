import type { FreezeWindowViewFragment } from "../../gql/graphql";
import { formatDuration } from "../../shared/format";
import { formatAbsolute, formatRelative } from "../../shared/time";

export type FreezeWindow = FreezeWindowViewFragment;

/** Where an environment stands: in a freeze (the window that ends last), before the next one, or clear. */
export type FreezeState = { kind: "frozen"; window: FreezeWindow } | { kind: "next"; window: FreezeWindow } | { kind: "clear" };

const ms = (iso: string) => Date.parse(iso);

/**
 * The state at now, from the calendar's windows: computed in the browser with
 * the live clock, so that a page left open turns from "Next freeze" to
 * "Frozen now" when the window opens, without asking the server again.
 */
export function freezeState(windows: readonly FreezeWindow[], now: number): FreezeState {
  let frozen: FreezeWindow | undefined;
  let next: FreezeWindow | undefined;
  for (const w of windows) {
    const start = ms(w.start);
    const end = ms(w.end);
    if (start <= now && now < end) {
      if (!frozen || end > ms(frozen.end)) frozen = w;
    } else if (start > now && (!next || start < ms(next.start))) {
      next = w;
    }
  }
  if (frozen) return { kind: "frozen", window: frozen };
  if (next) return { kind: "next", window: next };
  return { kind: "clear" };
}

/** "in 3 d" style, for the end of a range. */
function days(fromISO: string, toISO: string): number {
  return Math.max(0, Math.round((ms(toISO) - ms(fromISO)) / 86_400_000));
}

/**
 * The headline of an environment's freezes: "Frozen now until …", "Next
 * freeze …", or that none is planned in the range read (from, to).
 */
export function freezeHeadline(state: FreezeState, now: number, range?: { from: string; to: string }): string {
  switch (state.kind) {
    case "frozen":
      return `Frozen now until ${formatAbsolute(state.window.end)} (${formatRelative(state.window.end, now)}), by ${state.window.rule}`;
    case "next":
      return `Next freeze ${formatAbsolute(state.window.start)} (${formatRelative(state.window.start, now)}), by ${state.window.rule}`;
    case "clear":
      return range ? `No freeze in the next ${days(range.from, range.to)} days` : "No freeze planned";
  }
}

/** The short line of a matrix cell: nothing when no freeze is near. */
export function freezeNote(state: FreezeState, now: number): string | undefined {
  switch (state.kind) {
    case "frozen":
      return `Frozen until ${formatAbsolute(state.window.end)}`;
    case "next":
      return `Next freeze ${formatRelative(state.window.start, now)}`;
    case "clear":
      return undefined;
  }
}

/** How long a window lasts: "24 h", "1 h 30 min". */
export function windowLength(w: FreezeWindow): string {
  return formatDuration(ms(w.end) - ms(w.start));
}

/** Where a window comes from: its cron and time zone, or a single range. */
export function windowOrigin(w: FreezeWindow): string {
  if (w.recurring && w.cron) return `recurring: ${w.cron} (${w.timeZone ?? "UTC"})`;
  return "one-off";
}

/** The windows still to come or in force at now, by start. */
export function upcomingWindows(windows: readonly FreezeWindow[], now: number): FreezeWindow[] {
  return windows.filter((w) => ms(w.end) > now).sort((a, b) => ms(a.start) - ms(b.start) || a.rule.localeCompare(b.rule));
}

/** The calendar page of an environment. */
export function calendarPath(tenant: string, application: string, environment: string): string {
  return `/environments/${[tenant, application, environment].map(encodeURIComponent).join("/")}`;
}
