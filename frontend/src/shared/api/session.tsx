import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import * as auth from "./auth";

/**
 * The browser's session is a cookie the server set (HttpOnly: this page
 * cannot read it); the page only asks the server who is signed in. Older
 * versions kept a pasted token in localStorage: it is removed at start.
 */
export const legacyStorageKey = "manent.session";

/** The tabs of the page tell each other of a sign-in or sign-out, so that all follow. */
const channelName = "manent.session";

export type SessionStatus = "loading" | "signedIn" | "signedOut";

export interface Session {
  status: SessionStatus;
  identity: auth.Identity | null;
  methods: auth.SignInMethods;
  /** Why the last session ended when the server ended it, to tell the person on the sign-in page. */
  endedBecause: string | null;
  /** The server could not be asked (status stays loading): why. */
  loadError: string | null;
  /** Asks the server again (after a sign-in by token, or when another tab says so). */
  refresh(): Promise<void>;
  /** Ends the session at the server; with a reason when the server ended it first. */
  signOut(options?: { reason?: string; everywhere?: boolean }): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

function forgetLegacyToken() {
  try {
    localStorage.removeItem(legacyStorageKey);
  } catch {
    // storage disabled: nothing was kept there either
  }
}

function channel(): BroadcastChannel | null {
  return typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel(channelName);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [info, setInfo] = useState<auth.SessionInfo | null>(null);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setInfo(await auth.fetchSession());
      setLoadError(null);
    } catch (e) {
      setLoadError(e instanceof Error ? e.message : String(e));
    }
  }, []);

  useEffect(() => {
    forgetLegacyToken();
    void refresh();
    const ch = channel();
    if (ch) ch.onmessage = () => void refresh();
    return () => ch?.close();
  }, [refresh]);

  const signOut = useCallback(async (options?: { reason?: string; everywhere?: boolean }) => {
    setEndedBecause(options?.reason ?? null);
    try {
      await auth.signOut(options?.everywhere ?? false);
    } catch {
      // The session may be gone already (that is why the server refused it): signed out all the same.
    }
    setInfo((i) => (i ? { ...i, identity: null } : i));
    const ch = channel();
    ch?.postMessage("signed-out");
    ch?.close();
  }, []);

  const value = useMemo<Session>(() => {
    const status: SessionStatus = info === null ? "loading" : info.identity ? "signedIn" : "signedOut";
    return {
      status,
      identity: info?.identity ?? null,
      methods: info?.signIn ?? { oidc: null, token: false },
      endedBecause,
      loadError,
      refresh: async () => {
        setEndedBecause(null);
        await refresh();
        const ch = channel();
        ch?.postMessage("changed");
        ch?.close();
      },
      signOut,
    };
  }, [info, endedBecause, loadError, refresh, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}
