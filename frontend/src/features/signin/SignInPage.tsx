import { useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router";
import { AuthError, oidcSignInURL, signInErrorText, signInWithToken } from "../../shared/api/auth";
import { useSession } from "../../shared/api/session";
import { ThemeToggle } from "../../shared/theme";
import styles from "./SignInPage.module.css";

/**
 * Where to go after signing in: the page that sent the person here, never
 * another site. The same rules as the server's: control characters and
 * backslashes are refused (browsers drop tabs and read \ as /, so
 * "/<tab>/evil.example" would be "//evil.example"), and what is kept is the
 * parsed path and query of this origin.
 */
export function nextPath(search: string): string {
  const fallback = "/activity";
  const next = new URLSearchParams(search).get("next");
  if (!next || next.length > 2048 || /[\x00-\x1f\x7f\\]/.test(next) || !next.startsWith("/") || next.startsWith("//")) {
    return fallback;
  }
  const base = "http://next.invalid";
  let u: URL;
  try {
    u = new URL(next, base);
  } catch {
    return fallback;
  }
  const out = u.pathname + u.search;
  if (u.origin !== base || out.startsWith("//") || out.startsWith("/auth/")) {
    return fallback;
  }
  return out;
}

/**
 * The sign-in page: single sign-on at the identity provider when the
 * server has one, and a token field when the server allows it (the demo).
 * Either way the server sets an HttpOnly session cookie: the page keeps
 * no token, anywhere.
 */
export function SignInPage() {
  const { endedBecause, methods, refresh } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AuthError | null>(null);
  const next = nextPath(location.search);
  const ssoError = signInErrorText(new URLSearchParams(location.search).get("signin_error"));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = token.trim();
    if (!t) return;
    setBusy(true);
    setError(null);
    try {
      await signInWithToken(t);
    } catch (err) {
      setBusy(false);
      setError(err instanceof AuthError ? err : new AuthError("UNKNOWN", String(err)));
      return;
    }
    // Nothing of the token stays in the page.
    setToken("");
    await refresh();
    setBusy(false);
    navigate(next, { replace: true });
  }

  return (
    <div className={styles.page}>
      <div className={styles.theme}>
        <ThemeToggle />
      </div>
      <main className={styles.panel}>
        <h1 className={styles.title}>Sign in to manent</h1>
        {endedBecause && (
          <p className={styles.notice} role="status">
            {endedBecause}
          </p>
        )}
        {ssoError && (
          <div className="m-error" role="alert" data-code="SIGNIN">
            <p className="m-error-title">{ssoError}</p>
          </div>
        )}
        {methods.oidc !== null && (
          <section aria-label="Single sign-on" className={styles.method}>
            <a className="m-button m-button-primary" href={oidcSignInURL(next)}>
              Sign in with {methods.oidc}
            </a>
          </section>
        )}
        {methods.token && (
          <section aria-labelledby="signin-token" className={styles.method}>
            <h2 id="signin-token">With an API token</h2>
            <p className="m-muted">
              A token from your administrator, or a demo token (<code>demo-admin</code>, <code>demo-ci</code>, <code>demo-viewer</code>) on a demo server.
              The server checks it and opens a session; this browser does not keep the token.
            </p>
            <form onSubmit={submit} className={styles.form}>
              {/* For password managers, which file a secret under a user name. */}
              <input type="text" name="username" autoComplete="username" value="manent token" readOnly hidden />
              <label className="m-field">
                <span>Token</span>
                <input
                  className="m-input"
                  type="password"
                  name="token"
                  autoComplete="current-password"
                  value={token}
                  onChange={(e) => setToken(e.target.value)}
                  required
                  autoFocus={methods.oidc === null}
                />
              </label>
              <button type="submit" className="m-button" disabled={busy || !token.trim()}>
                {busy ? "Signing in…" : "Sign in with the token"}
              </button>
            </form>
            {error &&
              (error.code === "UNAUTHENTICATED" ? (
                <div className="m-error" role="alert" data-code="UNAUTHENTICATED">
                  <p className="m-error-title">This token is not valid.</p>
                  <p className="m-error-detail">Check it, or ask your administrator for a new one.</p>
                </div>
              ) : (
                <div className="m-error" role="alert" data-code={error.code}>
                  <p className="m-error-title">Signing in failed.</p>
                  <p className="m-error-detail">{error.message}</p>
                </div>
              ))}
          </section>
        )}
        {methods.oidc === null && !methods.token && (
          <p className="m-muted" role="status">
            This server offers no sign-in to the web interface: its administrator sets <code>auth.oidc</code> in <code>manent.yml</code>. The API and the
            CLI take tokens.
          </p>
        )}
      </main>
    </div>
  );
}
