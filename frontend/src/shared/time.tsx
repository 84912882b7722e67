import { useEffect, useState } from "react";

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

// Ticks on the second boundary, so that a clock and the times computed from
// the same instant never disagree by a second.
function schedule() {
  timer = setTimeout(
    () => {
      listeners.forEach((l) => l());
      schedule();
    },
    1000 - (Date.now() % 1000) + 5,
  );
}

/**
 * The current time, refreshed every second by one shared timer for the
 * whole page (a wall shows hundreds of relative times for days).
 */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    listeners.add(tick);
    if (!timer) schedule();
    tick();
    return () => {
      listeners.delete(tick);
      if (listeners.size === 0 && timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    };
  }, []);
  return now;
}

const zoneFormat = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" });
const pad = (n: number) => String(n).padStart(2, "0");

/** "2026-11-30 09:53:16 UTC": one unambiguous order for every locale, in the viewer's time zone. */
function absolute(d: Date): string {
  const zone = zoneFormat.formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "";
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${date} ${time}${zone ? ` ${zone}` : ""}`;
}

const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });

export function formatAbsolute(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : absolute(d);
}

export function formatClock(iso: string | number): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : clockFormat.format(d);
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago"; "in 5 min" for the future. */
export function formatRelative(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = now - t;
  const future = diff < 0;
  const s = Math.abs(diff) / 1000;
  let text: string;
  if (s < 5) return "just now";
  else if (s < 60) text = `${Math.floor(s)} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 86400 * 2) text = `${Math.floor(s / 3600)} h`;
  else text = `${Math.floor(s / 86400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

export interface TimeProps {
  iso: string | null | undefined;
  /** "relative" shows "5 min ago" with the absolute time as tooltip; "both" shows both. */
  mode?: "relative" | "both";
  empty?: string;
}

/** A moment shown relative and absolute: the absolute time is always in the markup. */
export function Time({ iso, mode = "relative", empty = "—" }: TimeProps) {
  const now = useNow();
  if (!iso) return <span className="m-muted">{empty}</span>;
  const abs = formatAbsolute(iso);
  const relative = formatRelative(iso, now);
  if (mode === "both") {
    return (
      <time dateTime={iso} className="m-time-both">
        <span className="m-nowrap">{abs}</span> <span className="m-muted m-nowrap">({relative})</span>
      </time>
    );
  }
  return (
    <time dateTime={iso} title={abs} className="m-time" aria-label={`${relative}, ${abs}`}>
      {relative}
    </time>
  );
}

/**
 * When a deploy that waits for its time starts: "starts 14:30:00 (in 2 h)"
 * (the date too beyond a day, and always in the tooltip); "starting" once
 * the time has come.
 */
export function StartsAt({ iso }: { iso: string }) {
  const now = useNow();
  const abs = formatAbsolute(iso);
  const due = Date.parse(iso) <= now;
  return (
    <time dateTime={iso} title={abs} className="m-time" data-starts-at={iso}>
      {due ? "starting" : `starts ${Date.parse(iso) - now < 86_400_000 ? formatClock(iso) : abs} (${formatRelative(iso, now)})`}
    </time>
  );
}
