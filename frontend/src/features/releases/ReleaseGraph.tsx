import { useMemo } from "react";
import { useNavigate } from "react-router";
import { layoutRelease, nodeLook, type GraphDeploy, type GraphEdgeInput, type PlacedEdge } from "./graph";
import styles from "./Releases.module.css";

export interface ReleaseGraphDeploy extends GraphDeploy {
  /** Beside the name: the version. */
  version?: string | undefined;
  /** After the state: the step running. */
  step?: string | undefined;
  /** Under the name: where it deploys. */
  application?: string | undefined;
  environment?: string | undefined;
  /** On a failed node: the step that failed. */
  failedStep?: string | null | undefined;
}

export interface ReleaseGraphProps {
  releaseId: string;
  deploys: ReleaseGraphDeploy[];
  edges: GraphEdgeInput[];
}

function path(points: PlacedEdge["points"]): string {
  return points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
}

/**
 * The release's deploys and the order between them, laid out by dagre, left
 * to right: each node coloured by its deploy's state, with its rollback
 * state; each edge labelled with the exports the later deploy imports from
 * the earlier one. A node opens its deploy.
 */
export function ReleaseGraph({ releaseId, deploys, edges }: ReleaseGraphProps) {
  const navigate = useNavigate();
  // The layout depends only on the shape of the release: a state change
  // recolours the nodes without moving them.
  const shape = JSON.stringify([deploys.map((d) => [d.name, d.deploymentId, d.deployment?.imports ?? null]), edges]);
  const layout = useMemo(() => layoutRelease(deploys, edges), [shape]);
  const byName = new Map(deploys.map((d) => [d.name, d]));
  const markerId = `arrow-${releaseId.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
  return (
    <figure className={styles.graphFigure}>
      <svg
        className={styles.graph}
        viewBox={`0 0 ${Math.max(layout.width, 1)} ${Math.max(layout.height, 1)}`}
        width={layout.width}
        height={layout.height}
        role="group"
        aria-label={`Dependency graph of ${releaseId}`}
      >
        <defs>
          <marker id={markerId} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" className={styles.arrow} />
          </marker>
        </defs>
        {layout.edges.map((e) => {
          const from = byName.get(e.from);
          const done = from?.state === "SUCCESS";
          return (
            <g key={`${e.from}→${e.to}`} data-edge={`${e.from}→${e.to}`} data-exports={e.exports.join(",")} data-flowing={done || undefined}>
              <path d={path(e.points)} className={styles.edge} markerEnd={`url(#${markerId})`} />
              {e.labelAt && (
                <text x={e.labelAt.x} y={e.labelAt.y} className={styles.edgeLabel} textAnchor="middle" dominantBaseline="middle">
                  {e.exports.join(", ")}
                </text>
              )}
            </g>
          );
        })}
        {layout.nodes.map((n) => {
          const d = byName.get(n.name)!;
          const look = nodeLook(d.state, d.rollbackState);
          const left = n.x - n.width / 2;
          const top = n.y - n.height / 2;
          const href = `/deployments/${encodeURIComponent(d.deploymentId)}`;
          return (
            <a
              key={n.name}
              href={href}
              onClick={(ev) => {
                ev.preventDefault();
                navigate(href);
              }}
              // The name holds the visible text in its order (WCAG 2.5.3, label in name).
              aria-label={`${n.name}${d.version ? ` ${d.version}` : ""}${d.application ? ` ${d.application} → ${d.environment ?? ""}` : ""}: ${look.label}${d.step ? ` · ${d.step}` : ""}${d.failedStep ? ` in ${d.failedStep}` : ""}${look.rollback ? `, ${look.rollback.label}` : ""}`}
              data-node={n.name}
              data-state={d.state ?? "NONE"}
              data-tone={look.tone}
              data-rank={n.rank}
              data-rollback-state={d.rollbackState ?? undefined}
              className={styles.node}
            >
              <title>{`${d.deploymentId}: ${d.state ?? "not queued"} (${look.description})`}</title>
              <rect x={left} y={top} width={n.width} height={n.height} rx={8} className={styles.nodeBox} data-live={d.state === "PENDING" || undefined} />
              <text x={left + 12} y={top + 22} className={styles.nodeName}>
                {n.name}
              </text>
              {/* Spaces between the texts (not drawn in SVG): read as words, the visible text matches the name. */}
              {" "}
              {d.version && (
                <text x={left + n.width - 12} y={top + 22} className={styles.nodeVersion} textAnchor="end">
                  {d.version}
                </text>
              )}
              {d.application && (
                <>
                  {" "}
                  <text x={left + 12} y={top + 41} className={styles.nodeWhere} data-testid="node-where">
                    {d.application} → {d.environment}
                  </text>
                </>
              )}
              {" "}
              <text x={left + 12} y={top + 60} className={styles.nodeState}>
                {look.label}
                {d.step ? ` · ${d.step}` : ""}
                {d.failedStep ? ` in ${d.failedStep}` : ""}
              </text>
              {" "}
              {look.rollback && (
                <text x={left + 12} y={top + 79} className={styles.nodeRollback} data-tone={look.rollback.tone}>
                  {look.rollback.label}
                </text>
              )}
            </a>
          );
        })}
      </svg>
    </figure>
  );
}
