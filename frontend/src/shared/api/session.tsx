import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";

/**
 * How the browser proves who it is. A token for now; OIDC (a session cookie
 * set by the server) arrives later as a second kind, so the rest of the app
 * only asks for "the credentials", never for "the token".
 */
export type Credentials = { kind: "token"; token: string };

const storageKey = "manent.session";

interface Session {
  credentials: Credentials | null;
  /** Why the last session ended when the server ended it, to tell the person on the sign-in page. */
  endedBecause: string | null;
  signIn(credentials: Credentials): void;
  signOut(reason?: string): void;
}

const SessionContext = createContext<Session | null>(null);

function load(): Credentials | null {
  try {
    const raw = localStorage.getItem(storageKey);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Credentials>;
    return parsed.kind === "token" && typeof parsed.token === "string" && parsed.token ? { kind: "token", token: parsed.token } : null;
  } catch {
    return null; // storage disabled or a value from another version: start signed out
  }
}

function store(credentials: Credentials | null) {
  try {
    if (credentials) localStorage.setItem(storageKey, JSON.stringify(credentials));
    else localStorage.removeItem(storageKey);
  } catch {
    // Private mode without storage: the session then lasts as long as the page.
  }
}

/** Keeps the session in localStorage so it survives a reload, and in step across tabs. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [credentials, setCredentials] = useState<Credentials | null>(load);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);

  useEffect(() => {
    const onStorage = (e: StorageEvent) => {
      if (e.key === storageKey || e.key === null) setCredentials(load());
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, []);

  const signIn = useCallback((c: Credentials) => {
    store(c);
    setEndedBecause(null);
    setCredentials(c);
  }, []);

  const signOut = useCallback((reason?: string) => {
    store(null);
    setEndedBecause(reason ?? null);
    setCredentials(null);
  }, []);

  const value = useMemo(() => ({ credentials, endedBecause, signIn, signOut }), [credentials, endedBecause, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}

/** The HTTP header and websocket payload that carry the credentials. */
export function authorization(c: Credentials): string {
  return `Bearer ${c.token}`;
}
