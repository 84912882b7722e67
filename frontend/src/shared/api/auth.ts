/**
 * The server's sign-in routes (/auth/...). The browser holds an HttpOnly
 * session cookie the page cannot read: no token is ever kept by the page,
 * in memory or in storage.
 */

/** The header every request of the page carries: the server refuses a cookie's state-changing request without it (CSRF). */
export const csrfHeaders: Record<string, string> = { "X-Manent-CSRF": "1" };

/** What fetch is given for every request to the server: the cookie, and the CSRF header. */
export const sameOrigin = { credentials: "same-origin", headers: csrfHeaders } as const satisfies RequestInit;

export interface Identity {
  subject: string;
  groups: string[];
}

/** How the sign-in page may sign someone in. */
export interface SignInMethods {
  /** The identity provider's name (auth.oidc.name), null without single sign-on. */
  oidc: string | null;
  /** Whether a static token may be typed in (auth.allow_token_sign_in). */
  token: boolean;
}

export interface SessionInfo {
  identity: Identity | null;
  method?: "oidc" | "token";
  expiresAt?: string;
  signIn: SignInMethods;
}

/** An answer of the server that is an error: its code and message, or NETWORK when it was not reached. */
export class AuthError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  let r: Response;
  try {
    r = await fetch(path, { ...sameOrigin, ...init, headers: { ...csrfHeaders, ...(init.headers as Record<string, string> | undefined) } });
  } catch {
    throw new AuthError("NETWORK", "The server cannot be reached.");
  }
  if (r.ok) return r;
  let code = "UNKNOWN";
  let message = `The server answered HTTP ${r.status}.`;
  try {
    const body = (await r.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON: keep the status
  }
  throw new AuthError(code, message, r.status);
}

/** Who is signed in (by the cookie), and how one may sign in. */
export async function fetchSession(): Promise<SessionInfo> {
  const r = await call("/auth/session", { method: "GET" });
  return (await r.json()) as SessionInfo;
}

/** Checks a static token at the server, which opens a session (its cookie); the page keeps nothing. */
export async function signInWithToken(token: string): Promise<SessionInfo> {
  const r = await call("/auth/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
  });
  return (await r.json()) as SessionInfo;
}

/** Ends this browser's session, or, everywhere, every session of the identity. */
export async function signOut(everywhere = false): Promise<void> {
  await call(everywhere ? "/auth/logout-everywhere" : "/auth/logout", { method: "POST" });
}

/** Where the browser goes to sign in at the identity provider; it comes back to next. */
export function oidcSignInURL(next: string): string {
  return `/auth/login?next=${encodeURIComponent(next)}`;
}

/** What a failed single sign-on tells the person, by the code /auth/callback sent back (/signin?signin_error=...). */
export function signInErrorText(code: string | null): string | null {
  switch (code) {
    case null:
    case "":
      return null;
    case "expired":
      return "That sign-in was too old, already used, or started in another browser: sign in again.";
    case "denied":
      return "The identity provider did not sign you in (you declined, or it refused manent's request).";
    case "refused":
      return "manent could not verify the identity provider's answer. Try again; if it keeps failing, tell your administrator.";
    case "overage":
      return "You are in too many groups for the identity provider to send them: manent cannot tell your rights. Ask your administrator (GROUPS_OVERAGE).";
    case "unavailable":
      return "The identity provider cannot be reached just now: try again in a moment.";
    default:
      return "Signing in failed: try again.";
  }
}
