import { useEffect, useState } from "react";

const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * The current time, refreshed every second by one shared timer for the
 * whole page (a wall shows hundreds of relative times for days).
 */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = () => setNow(Date.now());
    listeners.add(tick);
    if (!timer) timer = setInterval(() => listeners.forEach((l) => l()), 1000);
    return () => {
      listeners.delete(tick);
      if (listeners.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, []);
  return now;
}

const absoluteFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
  timeZoneName: "short",
});

const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });

export function formatAbsolute(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : absoluteFormat.format(d);
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
  const absolute = formatAbsolute(iso);
  const relative = formatRelative(iso, now);
  if (mode === "both") {
    return (
      <time dateTime={iso} className="m-time">
        {absolute} <span className="m-muted">({relative})</span>
      </time>
    );
  }
  return (
    <time dateTime={iso} title={absolute} className="m-time" aria-label={`${relative}, ${absolute}`}>
      {relative}
    </time>
  );
}
