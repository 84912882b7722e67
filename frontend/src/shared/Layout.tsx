import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";
import { NavLink, useLocation } from "react-router";
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
  // On a phone the nav folds behind a menu button (the CSS shows the button
  // and hides the closed nav under 760 px); wider, the nav is always shown
  // and the open state changes nothing.
  const [menuOpen, setMenuOpen] = useState(false);
  const navId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const mainRef = useRef<HTMLElement>(null);
  useStackedTableLabels(mainRef);
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
        <button
          ref={menuButton}
          type="button"
          className="m-button m-button-quiet m-menu-button"
          aria-expanded={menuOpen}
          aria-controls={navId}
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <nav
          id={navId}
          aria-label="Main"
          className="m-nav"
          data-open={menuOpen || undefined}
          onKeyDown={(e) => {
            if (e.key === "Escape" && menuOpen) {
              setMenuOpen(false);
              menuButton.current?.focus();
            }
          }}
        >
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
      <main id="main" className="m-main" tabIndex={-1} ref={mainRef}>
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

/**
 * Copies each table's column headers onto its cells as data-label, so that
 * under the phone breakpoint, where the CSS stacks a row into "label: value"
 * lines, each value keeps its name. It watches the page because the tables
 * of live views gain rows while open. A cell that already has a data-label,
 * or a table marked data-stack="off", is left alone.
 */
export function useStackedTableLabels(root: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let queued = false;
    const label = () => {
      queued = false;
      labelTables(el);
    };
    label();
    const observer = new MutationObserver(() => {
      if (queued) return;
      queued = true;
      queueMicrotask(label);
    });
    observer.observe(el, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [root]);
}

/** Sets data-label on the body cells of every .m-table under root from its header row. */
export function labelTables(root: ParentNode) {
  for (const table of root.querySelectorAll<HTMLTableElement>("table.m-table")) {
    if (table.dataset.stack === "off") continue;
    // Query selectors rather than tHead.rows and tBodies: the same in every DOM.
    const headRows = table.querySelectorAll(":scope > thead > tr");
    const headRow = headRows[headRows.length - 1];
    if (!headRow) continue;
    const names: string[] = [];
    for (const th of headRow.querySelectorAll<HTMLTableCellElement>(":scope > th, :scope > td")) {
      const name = (th.getAttribute("aria-label") ?? th.textContent ?? "").trim();
      for (let i = 0; i < span(th); i++) names.push(name);
    }
    for (const row of table.querySelectorAll(":scope > tbody > tr")) {
      let col = 0;
      for (const cell of row.querySelectorAll<HTMLTableCellElement>(":scope > td, :scope > th")) {
        const name = names[col] ?? "";
        if (cell.dataset.label === undefined || cell.dataset.autoLabel !== undefined) {
          if (cell.dataset.label !== name) {
            cell.dataset.label = name;
            cell.dataset.autoLabel = "";
          }
        }
        col += span(cell);
      }
    }
  }
}

function span(cell: Element): number {
  const n = Number(cell.getAttribute("colspan") ?? "1");
  return Number.isInteger(n) && n > 0 ? n : 1;
}
