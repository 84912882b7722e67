import { createContext, useContext, useEffect, useRef, useSyncExternalStore } from "react";

export type ConnectionStatus = "connecting" | "live" | "reconnecting";

export interface ConnectionState {
  status: ConnectionStatus;
  /** When the current status began (ms since the epoch). */
  since: number;
  /** Increases at every successful (re)connection: what was missed while away must be read again. */
  epoch: number;
  /** Failed attempts since the connection was lost. */
  attempts: number;
}

/** The state of the live connection (graphql-ws), observable from React. */
export class ConnectionStore {
  private state: ConnectionState = { status: "connecting", since: Date.now(), epoch: 0, attempts: 0 };
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = () => this.state;

  connecting(isRetry: boolean) {
    if (this.state.status === "live") return; // a lazy reconnect while still live is not news
    this.set({
      status: this.state.epoch === 0 && !isRetry ? "connecting" : "reconnecting",
      attempts: isRetry ? this.state.attempts + 1 : this.state.attempts,
    });
  }

  connected() {
    this.set({ status: "live", epoch: this.state.epoch + 1, attempts: 0, since: Date.now() });
  }

  lost() {
    if (this.state.status !== "live") return;
    this.set({ status: "reconnecting", since: Date.now(), attempts: 0 });
  }

  private set(patch: Partial<ConnectionState>) {
    const next = { ...this.state, ...patch };
    if (patch.status && patch.status !== this.state.status && patch.since === undefined) next.since = Date.now();
    this.state = next;
    this.listeners.forEach((l) => l());
  }
}

export const ConnectionContext = createContext<ConnectionStore | null>(null);

const offline = new ConnectionStore();

export function useConnection(): ConnectionState {
  const store = useContext(ConnectionContext) ?? offline;
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

/**
 * Calls refresh after every (re)connection that happens while the view is
 * shown: the events sent while the page was away (or before its first
 * subscription started) are lost, so a live view reads its data again.
 */
export function useOnReconnect(refresh: () => void) {
  const { epoch } = useConnection();
  const first = useRef(epoch);
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    if (epoch > first.current) latest.current();
  }, [epoch]);
}
