import type { ReleaseState } from "../../gql/graphql";
import type { Tone } from "../../shared/states";

const releaseStates: Record<ReleaseState, { label: string; tone: Tone; description: string }> = {
  PENDING: { label: "In progress", tone: "running", description: "at least one deploy has not finished" },
  SUCCESS: { label: "Success", tone: "success", description: "every deploy succeeded" },
  ERROR: { label: "Error", tone: "danger", description: "at least one deploy did not succeed" },
  CANCELLED: { label: "Cancelled", tone: "neutral", description: "the release was cancelled" },
};

/** A release's state, drawn like a deploy's (the shared badge styles), in the release's own words. */
export function ReleaseStateBadge({ state, size = "normal" }: { state: ReleaseState; size?: "small" | "normal" | "large" }) {
  const info = releaseStates[state] ?? { label: state, tone: "neutral", description: state };
  return (
    <span
      className="m-badge"
      data-tone={info.tone}
      data-size={size}
      data-state={state}
      data-live={info.tone === "running" || undefined}
      title={`${state}: ${info.description}`}
    >
      <span className="m-badge-dot" aria-hidden="true" />
      {info.label}
    </span>
  );
}
