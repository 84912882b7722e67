import { useState, type FormEvent } from "react";
import { Client, fetchExchange, type CombinedError } from "@urql/core";
import { useLocation, useNavigate } from "react-router";
import { graphql } from "../../gql";
import { ErrorMessage } from "../../shared/ErrorMessage";
import { errorCode } from "../../shared/errors";
import { useSession, authorization } from "../../shared/api/session";
import { ThemeToggle } from "../../shared/theme";
import styles from "./SignInPage.module.css";

const SignInViewer = graphql(`
  query SignInViewer {
    viewer {
      subject
    }
  }
`);

/** Asks the server who a token belongs to: a wrong token is told here, not on the next page. */
async function checkToken(token: string): Promise<CombinedError | null> {
  const client = new Client({
    url: "/graphql",
    preferGetMethod: false,
    exchanges: [fetchExchange],
    fetchOptions: { headers: { Authorization: authorization({ kind: "token", token }) } },
  });
  const result = await client.query(SignInViewer, {}, { requestPolicy: "network-only" }).toPromise();
  return result.error ?? null;
}

/** Where to go after signing in: the page that sent the person here, never another site. */
function nextPath(search: string): string {
  const next = new URLSearchParams(search).get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/activity";
}

/**
 * The sign-in page. Each way to sign in is a section of its own: a token
 * today; OIDC (a redirect to the identity provider) will be a second section
 * above it when the server offers it.
 */
export function SignInPage() {
  const { signIn, endedBecause } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CombinedError | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = token.trim();
    if (!t) return;
    setBusy(true);
    setError(null);
    const err = await checkToken(t);
    setBusy(false);
    if (err) {
      setError(err);
      return;
    }
    signIn({ kind: "token", token: t });
    navigate(nextPath(location.search), { replace: true });
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
        <section aria-labelledby="signin-token" className={styles.method}>
          <h2 id="signin-token">With an API token</h2>
          <p className="m-muted">
            A token from your administrator, or a demo token (<code>demo-admin</code>, <code>demo-ci</code>, <code>demo-viewer</code>) on a demo server. It is
            kept in this browser until you sign out.
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
                autoFocus
              />
            </label>
            <button type="submit" className="m-button m-button-primary" disabled={busy || !token.trim()}>
              {busy ? "Signing in…" : "Sign in"}
            </button>
          </form>
          {error &&
            (errorCode(error) === "UNAUTHENTICATED" ? (
              <div className="m-error" role="alert" data-code="UNAUTHENTICATED">
                <p className="m-error-title">This token is not valid.</p>
                <p className="m-error-detail">Check it, or ask your administrator for a new one.</p>
              </div>
            ) : (
              <ErrorMessage error={error} context="Signing in" />
            ))}
        </section>
      </main>
    </div>
  );
}
