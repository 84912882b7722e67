import type { ReactNode } from "react";
import { NavLink } from "react-router";
import { ConnectionIndicator } from "./ConnectionIndicator";
import { ThemeToggle } from "./theme";

export interface NavItem {
  to: string;
  label: string;
  /** A count shown after the label (the approvals waiting), absent at zero. */
  badge?: string | undefined;
  /** What the badge counts, for screen readers: "3 awaiting your approval". */
  badgeLabel?: string | undefined;
}

export interface LayoutProps {
  nav: NavItem[];
  /** The signed-in identity, token:<name> or oidc:<user>, once known. */
  subject?: string | undefined;
  onSignOut(): void;
  /** Ends every session of the identity, in every browser. */
  onSignOutEverywhere?: (() => void) | undefined;
  children: ReactNode;
}

/** The frame of every signed-in view but the wall: a quiet header and the page. */
export function Layout({ nav, subject, onSignOut, onSignOutEverywhere, children }: LayoutProps) {
  return (
    <div className="m-app">
      <a className="m-skip" href="#main">
        Skip to content
      </a>
      <header className="m-header">
        <span className="m-brand" aria-label="manent">
          <svg viewBox="0 0 16 16" width="18" height="18" aria-hidden="true">
            <rect width="16" height="16" rx="3" fill="var(--accent)" />
            <path d="M4 12V4l4 5 4-5v8" stroke="var(--accent-contrast)" strokeWidth="1.6" fill="none" />
          </svg>
          manent
        </span>
        <nav aria-label="Main" className="m-nav">
          {nav.map((item) => (
            <NavLink key={item.to} to={item.to} className="m-nav-link">
              {item.label}
              {item.badge && (
                <span className="m-nav-badge" aria-label={item.badgeLabel ?? item.badge} data-testid={`nav-badge-${item.to.replace(/^\//, "")}`}>
                  {item.badge}
                </span>
              )}
            </NavLink>
          ))}
        </nav>
        <div className="m-header-end">
          <ConnectionIndicator />
          {subject && (
            <span className="m-subject" title="Signed in as">
              {subject}
            </span>
          )}
          <ThemeToggle />
          <button type="button" className="m-button m-button-quiet" onClick={onSignOut}>
            Sign out
          </button>
          {onSignOutEverywhere && (
            <button type="button" className="m-button m-button-quiet m-wide-only" onClick={onSignOutEverywhere} title="End your sessions in every browser">
              Sign out everywhere
            </button>
          )}
        </div>
      </header>
      <main id="main" className="m-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** The heading line of a view: title, a short subtitle and actions on the right. */
export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="m-page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="m-muted m-page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="m-page-actions">{actions}</div>}
    </div>
  );
}
