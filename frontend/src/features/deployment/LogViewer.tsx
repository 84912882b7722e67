import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { formatAbsolute, formatClock } from "../../shared/time";
import styles from "./LogViewer.module.css";

export interface LogLineLike {
  seq: number;
  time: string;
  step: string | null;
  level: string;
  message: string;
}

export interface LogViewerProps {
  lines: LogLineLike[];
  /** More lines may come (the deploy is not final). */
  live: boolean;
  /** Shown instead of the lines while the first ones load. */
  loading?: boolean;
}

/** How close to the end (px) still counts as "at the end": a fraction of a line. */
const tailSlack = 8;

export function formatLine(l: LogLineLike): string {
  return `${l.time} ${l.level.toUpperCase().padEnd(5)} ${l.step ? `[${l.step}] ` : ""}${l.message}`;
}

function matches(l: LogLineLike, needle: string): boolean {
  return l.message.toLowerCase().includes(needle) || (l.step ?? "").toLowerCase().includes(needle) || l.level.toLowerCase() === needle;
}

function highlight(text: string, needle: string): ReactNode {
  if (!needle) return text;
  const lower = text.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, from)) {
    if (i > from) parts.push(text.slice(from, i));
    parts.push(<mark key={i}>{text.slice(i, i + needle.length)}</mark>);
    from = i + needle.length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (insecure origin, denied permission): the old way.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * The log of a deploy. It follows the tail while the reader is at the end
 * (scrolling up stops following, the Follow button or scrolling back down
 * resumes it), filters the lines on a search with the matches marked, and
 * copies what it shows.
 */
export function LogViewer({ lines, live, loading = false }: LogViewerProps) {
  const [query, setQuery] = useState("");
  const [following, setFollowing] = useState(true);
  const [copied, setCopied] = useState<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const needle = query.trim().toLowerCase();

  const visible = useMemo(() => (needle ? lines.filter((l) => matches(l, needle)) : lines), [lines, needle]);

  // After every change of what is shown, stay at the end when following.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [visible, following]);

  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(null), 2500);
    return () => clearTimeout(t);
  }, [copied]);

  function onScroll() {
    const el = scroller.current;
    if (!el) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight <= tailSlack;
    if (atEnd !== following) setFollowing(atEnd);
  }

  async function copy() {
    const ok = await copyText(visible.map(formatLine).join("\n") + "\n");
    setCopied(ok ? `Copied ${visible.length} ${visible.length === 1 ? "line" : "lines"}.` : "Copying failed: select the lines and copy them.");
  }

  return (
    <div className={styles.viewer}>
      <div className={styles.toolbar}>
        <label className={styles.search}>
          <span className="m-visually-hidden">Search the log</span>
          <input
            className="m-input"
            type="search"
            placeholder="Search the log"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setQuery("");
            }}
          />
        </label>
        <span className="m-muted" aria-live="polite">
          {needle ? `${visible.length} of ${lines.length} lines match` : `${lines.length} ${lines.length === 1 ? "line" : "lines"}`}
        </span>
        <span className={styles.actions}>
          {copied && (
            <span className="m-muted" role="status">
              {copied}
            </span>
          )}
          <button type="button" className="m-button" onClick={copy} disabled={visible.length === 0}>
            Copy
          </button>
          <button type="button" className="m-button" aria-pressed={following} onClick={() => setFollowing(!following)} title="Keep the newest line in view">
            Follow
          </button>
        </span>
      </div>
      <div ref={scroller} className={styles.lines} role="log" aria-label="Deploy log" tabIndex={0} onScroll={onScroll}>
        {loading && lines.length === 0 ? (
          <p className={styles.note}>Loading the log…</p>
        ) : lines.length === 0 ? (
          <p className={styles.note}>{live ? "No log lines yet: they appear here as the deploy writes them." : "This deploy wrote no log lines."}</p>
        ) : visible.length === 0 ? (
          <p className={styles.note}>No line matches “{query.trim()}”.</p>
        ) : (
          visible.map((l) => (
            <div key={l.seq} className={styles.line} data-level={l.level.toLowerCase()}>
              <time dateTime={l.time} title={formatAbsolute(l.time)} className={styles.time}>
                {formatClock(l.time)}
              </time>
              <span className={styles.step}>{l.step ?? ""}</span>
              <span className={styles.message}>{highlight(l.message, needle)}</span>
            </div>
          ))
        )}
      </div>
      {live && !following && lines.length > 0 && (
        <button type="button" className={`m-button ${styles.jump}`} onClick={() => setFollowing(true)}>
          ↓ Jump to the newest line
        </button>
      )}
    </div>
  );
}
