import { useConnection } from "./api/connection";
import { formatClock, useNow } from "./time";

/** Whether the page is live; while not, since when and that it keeps trying. */
export function ConnectionIndicator({ large = false }: { large?: boolean }) {
  const c = useConnection();
  const now = useNow();
  const seconds = Math.max(0, Math.floor((now - c.since) / 1000));
  let text: string;
  if (c.status === "live") text = "Live";
  else if (c.status === "connecting") text = "Connecting…";
  else text = `Reconnecting… (offline since ${formatClock(c.since)}, ${seconds} s)`;
  return (
    <span className="m-connection" data-status={c.status} data-large={large || undefined} role="status" aria-live="polite">
      <span className="m-connection-dot" aria-hidden="true" />
      {text}
    </span>
  );
}
