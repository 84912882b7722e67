import { useEffect, useMemo, useState } from "react";
import { useQuery } from "urql";
import { bandName, figureText, metrics, type Figures } from "../dora/metrics";
import { stripPeriods, trend, trendArrow } from "./strip";
import { WallDoraQuery } from "./queries";
import styles from "./WallPage.module.css";

/** The strip reads the metrics again this often; a deploy that ends asks sooner (see refreshKey). */
const refreshMs = 5 * 60_000;
/** A burst of deploys ending refreshes the strip once. */
const settleMs = 5_000;

/** Short titles: five figures share one line of a wall. */
const shortTitles: Record<string, string> = {
  deploymentFrequency: "Deploys",
  leadTime: "Lead time",
  changeFailRate: "Change fail rate",
  recoveryTime: "Recovery time",
  reworkRate: "Rework rate",
};

function Figure({ index, current, previous }: { index: number; current: Figures; previous: Figures }) {
  const m = metrics[index]!;
  const value = m.value(current);
  const band = value != null ? m.band(current) : null;
  const t = trend(m, current, previous);
  return (
    <li className={styles.doraFigure} data-metric={m.key} data-enough={value != null}>
      <span className={styles.doraTitle}>{shortTitles[m.key] ?? m.title}</span>
      <span className={styles.doraValue}>{figureText(m, current)}</span>
      <span className={styles.doraBand} data-band={band ?? undefined}>
        {band ? bandName(band) : value != null ? "no band" : m.basis(current)}
      </span>
      <span className={styles.doraPrevious} data-trend={t}>
        {trendArrow(m, current, previous) && <span aria-hidden="true">{trendArrow(m, current, previous)} </span>}
        28 days before: {figureText(m, previous)}
      </span>
    </li>
  );
}

/**
 * The wall's DORA strip: the five figures of the last 28 days against the
 * 28 before, of every deploy the wall's token may read. It reads them again
 * every five minutes, and a few seconds after a deploy ends (refreshKey
 * changes), so it follows the wall without a subscription of its own.
 */
export function DoraStrip({ refreshKey }: { refreshKey: number }) {
  const [at, setAt] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setAt(Date.now()), refreshMs);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    if (refreshKey === 0) return;
    const t = setTimeout(() => setAt(Date.now()), settleMs);
    return () => clearTimeout(t);
  }, [refreshKey]);
  const variables = useMemo(() => stripPeriods(at), [at]);
  const [result] = useQuery({ query: WallDoraQuery, variables, requestPolicy: "network-only" });
  // Keep the last figures while new ones load: a wall should not blink.
  const [shown, setShown] = useState<{ current: Figures; previous: Figures } | null>(null);
  useEffect(() => {
    if (result.data) setShown({ current: result.data.current.range, previous: result.data.previous.range });
  }, [result.data]);

  return (
    <section className={styles.dora} aria-label="DORA metrics, last 28 days">
      <h2 className={styles.doraHeading}>DORA · 28 days</h2>
      {shown ? (
        <ul className={styles.doraFigures}>
          {metrics.map((m, i) => (
            <Figure key={m.key} index={i} current={shown.current} previous={shown.previous} />
          ))}
        </ul>
      ) : (
        <p className={styles.doraNote}>{result.error ? "DORA metrics unavailable; retrying" : "Loading…"}</p>
      )}
    </section>
  );
}
