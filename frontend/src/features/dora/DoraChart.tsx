import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { weekLabel, type Figures, type Metric } from "./metrics";

export interface ChartWeek {
  year: number;
  week: number;
  figures: Figures;
}

interface Point {
  label: string;
  value: number | null;
  index: number;
}

interface DotProps {
  cx?: number;
  cy?: number;
  payload?: Point;
}

/**
 * The weekly trend of one metric. A week with not enough data is a gap in
 * the line, not a zero; each point opens the deploys behind it.
 */
export function DoraChart({ metric, weeks, onPick }: { metric: Metric; weeks: ChartWeek[]; onPick(index: number): void }) {
  const data: Point[] = weeks.map((w, index) => ({ label: weekLabel(w), value: metric.value(w.figures), index }));
  const dot = ({ cx, cy, payload }: DotProps) => {
    if (cx == null || cy == null || !payload || payload.value == null) return <g key={`none-${payload?.index ?? 0}`} />;
    const p = payload;
    return (
      <circle
        key={p.label}
        cx={cx}
        cy={cy}
        r={5}
        className="dora-point"
        data-week={p.label}
        role="button"
        aria-label={`${metric.title}, ${p.label}: ${metric.format(p.value ?? 0)}`}
        tabIndex={0}
        style={{ cursor: "pointer", fill: "var(--m-accent, #3b6fd8)" }}
        onClick={() => onPick(p.index)}
        onKeyDown={(e) => {
          if (e.key === "Enter" || e.key === " ") onPick(p.index);
        }}
      />
    );
  };
  return (
    <div data-chart={metric.key} style={{ overflowX: "auto" }}>
      <LineChart width={360} height={170} data={data} margin={{ top: 10, right: 16, bottom: 0, left: 0 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="label" tick={{ fontSize: 11 }} />
        <YAxis tickFormatter={(v: number) => metric.format(v)} tick={{ fontSize: 11 }} width={80} />
        <Tooltip formatter={(v) => (typeof v === "number" ? metric.format(v) : "not enough data")} />
        <Line type="monotone" dataKey="value" stroke="var(--m-accent, #3b6fd8)" isAnimationActive={false} connectNulls={false} dot={dot} />
      </LineChart>
    </div>
  );
}
