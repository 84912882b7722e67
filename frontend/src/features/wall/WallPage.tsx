import { useEffect, useMemo, useRef, useState, type CSSProperties } from "react";
import { useLocation } from "react-router";
import { useQuery } from "urql";
import type { WallDeploymentFragment } from "../../gql/graphql";
import { useConnection, useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { describeError } from "../../shared/errors";
import { elapsed, formatDuration } from "../../shared/format";
import { attemptNote, planProgress } from "../../shared/progress";
import { rolloutLine } from "../../shared/rollout";
import { StepProgress } from "../../shared/StepProgress";
import { deploymentStateInfo, failedStates, isFinal } from "../../shared/states";
import { formatClock, formatRelative, useNow } from "../../shared/time";
import { applyEvent, columns, emptyBoard, failedStep, fromSnapshot, waitFigure, windowFromSearch, type Board, type WallItem } from "./board";
import { DoraStrip } from "./DoraStrip";
import { doraStripFromSearch } from "./strip";
import { WallFeedSubscription, WallQuery } from "./queries";
import styles from "./WallPage.module.css";

/** The board reads everything again this often, in case an event was lost in a long run. */
const resyncMs = 5 * 60_000;
/** How far back a deploy that failed within the window may have been created. */
const lookbackMs = 24 * 3_600_000;
const maxCards = 8;

type Kind = "running" | "waiting" | "failed";

function Card({ d, kind, failures = 1, now }: { d: WallDeploymentFragment; kind: Kind; failures?: number; now: number }) {
  const info = deploymentStateInfo(d.state);
  const attempt = attemptNote(planProgress(d.plan.steps, d.steps));
  const wait = waitFigure(d, now);
  return (
    <li className={styles.card} data-kind={kind} data-deployment-id={d.id}>
      <div className={styles.cardTop}>
        <span className={styles.app}>{d.application}</span>
        <span className={styles.arrow} aria-hidden="true">
          →
        </span>
        <span className={styles.env}>{d.environment}</span>
        <span className={styles.version}>{d.artifact.version}</span>
      </div>
      {kind === "running" && (
        <>
          <StepProgress plan={d.plan.steps} steps={d.steps} large />
          <div className={styles.detail}>
            <span>
              {d.currentStep ?? "starting"}
              {attempt && <span className={styles.attempt}> · {attempt}</span>}
            </span>
            <span className={styles.figure}>{formatDuration(elapsed(d.startedAt ?? d.createdAt, null, now))}</span>
          </div>
          {d.rollout && (
            <div className={styles.rollout} data-rollout-state={d.rollout.state}>
              {rolloutLine(d.rollout, now)}
            </div>
          )}
        </>
      )}
      {kind === "waiting" && (
        <div className={styles.detail}>
          <span>
            {info.label}
            {wait.kind === "starts" && d.startAt && <> · starts {formatClock(d.startAt)}</>}
          </span>
          <span className={styles.figure} data-figure={wait.kind}>
            {wait.kind === "starts" ? (wait.ms > 0 ? `in ${formatDuration(wait.ms)}` : "starting") : formatDuration(wait.ms)}
          </span>
        </div>
      )}
      {kind === "failed" && (
        <div className={styles.detail}>
          <span className={styles.reason}>
            {info.label}
            {failedStep(d) ? ` in ${failedStep(d)}` : ""}
            {attempt && <span className={styles.attempt}> · {attempt}</span>}
            {failures > 1 && <span className={styles.repeats}> · failed {failures} times</span>}
          </span>
          <span className={styles.figure}>{formatRelative(d.finishedAt ?? d.updatedAt, now)}</span>
        </div>
      )}
      <div className={styles.meta}>
        {d.tenant} · {d.requester}
      </div>
    </li>
  );
}

/**
 * The number of cards in the fullest column, as --wall-cards: the CSS makes
 * the cards' type larger when few are shown (readable across a room) and
 * smaller as the columns fill, so that maxCards still fit on 1920×1080.
 */
export function cardScale(cards: number): CSSProperties {
  return { "--wall-cards": String(Math.min(Math.max(cards, 1), maxCards)) } as CSSProperties;
}

function Column({ title, kind, items, empty, now }: { title: string; kind: Kind; items: WallItem[]; empty: string; now: number }) {
  const shown = items.slice(0, maxCards);
  return (
    <section className={styles.column} data-kind={kind} aria-labelledby={`wall-${kind}`}>
      <h2 id={`wall-${kind}`} className={styles.columnTitle}>
        {title} <span className={styles.columnCount}>{items.length}</span>
      </h2>
      {items.length === 0 ? (
        <p className={styles.empty}>{empty}</p>
      ) : (
        <ul className={styles.cards}>
          {shown.map(({ deployment: d, failures }) => (
            <Card key={d.id} d={d} kind={kind} failures={failures} now={now} />
          ))}
          {items.length > shown.length && <li className={styles.more}>+ {items.length - shown.length} more</li>}
        </ul>
      )}
    </section>
  );
}

/** Hides the pointer on a wall left alone; it comes back with the mouse. */
function useIdleCursor(ms: number) {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    let t = setTimeout(() => setIdle(true), ms);
    const wake = () => {
      setIdle(false);
      clearTimeout(t);
      t = setTimeout(() => setIdle(true), ms);
    };
    window.addEventListener("pointermove", wake);
    window.addEventListener("keydown", wake);
    return () => {
      clearTimeout(t);
      window.removeEventListener("pointermove", wake);
      window.removeEventListener("keydown", wake);
    };
  }, [ms]);
  return idle;
}

/** F toggles the browser's full screen (a wall is usually started once, by hand). */
function useFullscreenKey() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "f" && e.key !== "F") return;
      if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey) return;
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
      else void document.documentElement.requestFullscreen?.().catch(() => {});
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/**
 * The wall display: full screen, read only, large and high contrast, what
 * runs, what waits and what just failed. It reconnects by itself, says so
 * while it does, and reads everything again once back.
 */
export function WallPage() {
  const location = useLocation();
  const windowMs = windowFromSearch(location.search);
  const light = new URLSearchParams(location.search).get("theme") === "light";
  const withDora = doraStripFromSearch(location.search);
  // Counts the deploys that ended: the DORA strip reads its figures again.
  const [ended, setEnded] = useState(0);
  const now = useNow();
  const connection = useConnection();
  const [syncAt, setSyncAt] = useState(() => Date.now());
  // Rounded to the hour: the variables (and so urql's cache key) change
  // once an hour, not at every resync, on a page that runs for days.
  const sinceMs = Math.floor((syncAt - windowMs - lookbackMs) / 3_600_000) * 3_600_000;
  const variables = useMemo(() => ({ failedStates, since: new Date(sinceMs).toISOString() }), [sinceMs]);
  const [result, refetch] = useQuery({ query: WallQuery, variables, requestPolicy: "network-only" });
  const [board, setBoard] = useState<Board>(emptyBoard);
  const [loaded, setLoaded] = useState(false);
  const windowRef = useRef(windowMs);
  windowRef.current = windowMs;
  const idle = useIdleCursor(4000);
  useFullscreenKey();

  useEffect(() => {
    if (!result.data) return;
    setBoard(fromSnapshot(result.data.activity, result.data.failed.nodes, result.data.inService, Date.now(), windowRef.current));
    setLoaded(true);
  }, [result.data]);

  useEffect(() => {
    const t = setInterval(() => {
      setSyncAt(Date.now());
      refetch({ requestPolicy: "network-only" });
    }, resyncMs);
    return () => clearInterval(t);
  }, [refetch]);

  useSubscriptionEvents(WallFeedSubscription, {}, (data) => {
    setBoard((b) => applyEvent(b, data.activity.deployment, Date.now(), windowRef.current));
    if (isFinal(data.activity.deployment.state)) setEnded((n) => n + 1);
  });
  useOnReconnect(() => {
    setSyncAt(Date.now());
    refetch({ requestPolicy: "network-only" });
  });

  const { running, waiting, failed } = columns(board, now, windowMs);
  const cards = (ds: WallDeploymentFragment[]): WallItem[] => ds.map((deployment) => ({ deployment, failures: 1 }));
  const offline = connection.status !== "live";
  const since = Math.max(0, Math.floor((now - connection.since) / 1000));
  const windowLabel = windowMs % 3_600_000 === 0 ? `${windowMs / 3_600_000} h` : `${Math.round(windowMs / 60_000)} min`;

  return (
    <div className={styles.wall} data-theme-wall={light ? "light" : "dark"} data-idle={idle || undefined}>
      <header className={styles.top}>
        <span className={styles.brand}>manent</span>
        <span className={styles.summary}>
          {running.length} running · {waiting.length} waiting · {failed.length} failed in the last {windowLabel}
        </span>
        <span className={styles.status} data-status={connection.status} role="status" aria-live="polite">
          {connection.status === "live" ? "● LIVE" : connection.status === "connecting" ? "Connecting…" : `Reconnecting… ${since} s`}
        </span>
        <span className={styles.clock}>{formatClock(now)}</span>
      </header>
      {offline && connection.status === "reconnecting" && (
        <div className={styles.banner} role="alert">
          Connection lost at {formatClock(connection.since)}. Reconnecting by itself{connection.attempts > 0 ? ` (attempt ${connection.attempts + 1})` : ""}; what is shown may be
          out of date.
        </div>
      )}
      {result.error && !loaded && <div className={styles.banner}>{describeError(result.error).title} Retrying…</div>}
      {!loaded && !result.error ? (
        <p className={styles.loading}>Loading…</p>
      ) : (
        <main className={styles.columns} style={cardScale(Math.max(running.length, waiting.length, failed.length))}>
          <Column title="Running" kind="running" items={cards(running)} empty="Nothing running" now={now} />
          <Column title="Waiting" kind="waiting" items={cards(waiting)} empty="Nothing waiting" now={now} />
          <Column title="Just failed" kind="failed" items={failed} empty={`No failure in the last ${windowLabel}`} now={now} />
        </main>
      )}
      {withDora && <DoraStrip refreshKey={ended} />}
    </div>
  );
}
