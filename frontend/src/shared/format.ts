/** A duration as people read it: "850 ms", "12.4 s", "3 min 05 s", "2 h 03 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const totalSeconds = Math.round(s);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  if (minutes < 60) return seconds ? `${minutes} min ${String(seconds).padStart(2, "0")} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest ? `${hours} h ${String(rest).padStart(2, "0")} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** Milliseconds between two instants; to now while the end is unknown. */
export function elapsed(start: string | null | undefined, end: string | null | undefined, now: number): number | null {
  if (!start) return null;
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : now;
  if (Number.isNaN(from) || Number.isNaN(to)) return null;
  return Math.max(0, to - from);
}

/** The first characters of a digest: enough to recognise it, with the full value in a tooltip. */
export function shortSha(sha: string | null | undefined, length = 12): string {
  if (!sha) return "";
  return sha.length > length ? sha.slice(0, length) : sha;
}
