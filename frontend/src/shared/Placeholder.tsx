import type { ReactNode } from "react";

/** Shown while the first answer is on its way: a calm line, not a spinner wall. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="m-placeholder" role="status" aria-live="polite">
      <span className="m-spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** Shown when there is nothing to list: says why, and what to do. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="m-empty">
      <p className="m-empty-title">{title}</p>
      {children && <div className="m-muted">{children}</div>}
    </div>
  );
}
