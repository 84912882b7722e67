import { vi } from "vitest";

/** A request the page sent to the server's /auth routes. */
export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  credentials: RequestCredentials | undefined;
  body: unknown;
}

/**
 * Plays manent-server's /auth routes for fetch: a session that the token
 * sign-in opens and sign-out ends, as the server keeps it (the page only
 * ever gets the cookie's effects). Every request is recorded.
 */
export function fakeAuthServer(options: { oidc?: string | null; token?: boolean; tokens?: Record<string, string>; signedIn?: string | null } = {}) {
  const sent: SentRequest[] = [];
  let subject: string | null = options.signedIn ?? null;
  const tokens = options.tokens ?? { "demo-admin": "token:demo-admin" };
  const signIn = { oidc: options.oidc ?? null, token: options.token ?? true };
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  const session = () => ({ identity: subject ? { subject, groups: [] } : null, signIn });
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const headers = { ...(init?.headers as Record<string, string> | undefined) };
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as unknown) : undefined;
    const method = init?.method ?? "GET";
    sent.push({ method, path, headers, credentials: init?.credentials, body });
    // The server's CSRF rule: a cookie's state-changing request needs the header.
    if (method !== "GET" && headers["X-Manent-CSRF"] !== "1") return json(403, { error: { code: "FORBIDDEN", message: "cross-site request refused" } });
    switch (`${method} ${path}`) {
      case "GET /auth/session":
        return json(200, session());
      case "POST /auth/token": {
        const t = (body as { token?: string } | undefined)?.token ?? "";
        const id = tokens[t];
        if (!id) return json(401, { error: { code: "UNAUTHENTICATED", message: "invalid token" } });
        subject = id;
        return json(200, session());
      }
      case "POST /auth/logout":
        subject = null;
        return new Response(null, { status: 204 });
      case "POST /auth/logout-everywhere":
        subject = null;
        return json(200, { ended: 2 });
    }
    return json(404, { error: { code: "NOT_FOUND", message: `no such endpoint: ${method} ${path}` } });
  });
  vi.stubGlobal("fetch", fetch);
  return { sent, fetch, subject: () => subject };
}
