import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange, type CombinedError } from "@urql/core";
import { createClient as createWsClient, type Client as WsClient, type SubscribePayload } from "graphql-ws";
import { sameOrigin } from "./auth";
import type { ConnectionStore } from "./connection";

export interface ApiOptions {
  connection: ConnectionStore;
  /** The server refused the session (extensions.code UNAUTHENTICATED, or HTTP 401). */
  onUnauthenticated: () => void;
  /** Defaults to /graphql on the page's own host. */
  httpUrl?: string;
  wsUrl?: string;
}

export interface Api {
  client: Client;
  dispose(): void;
}

/** 0.5 s, 1 s, 2 s, ... up to 10 s, with jitter so that a wall of screens does not reconnect in step. */
export function backoffMs(attempt: number): number {
  const base = Math.min(10_000, 500 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.7 + Math.random() * 0.6));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function defaultWsUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === "https:" ? "wss" : "ws"}://${host}/graphql`;
}

/** How long a ping may stay unanswered before the socket is taken for dead (a network loss closes nothing). */
const pongTimeoutMs = 6_000;
const keepAliveMs = 12_000;

/**
 * The GraphQL client of the SPA: queries and mutations over HTTP, and
 * subscriptions over one graphql-transport-ws socket that reconnects with
 * backoff forever and reports its state to the connection store.
 */
export function createApi(options: ApiOptions): Api {
  const { connection, onUnauthenticated } = options;
  let disposed = false;
  let pongTimer: ReturnType<typeof setTimeout> | undefined;

  const ws: WsClient = createWsClient({
    url: options.wsUrl ?? defaultWsUrl(),
    // The browser sends the session cookie with the upgrade (the server
    // checks its Origin); connection_init carries nothing.
    connectionParams: () => ({}),
    // Connected even without a subscription: the header shows whether the
    // page is live, and the first subscription starts at once.
    lazy: false,
    keepAlive: keepAliveMs,
    retryAttempts: Infinity,
    // The default gives up on an error event (a refused connection while the
    // server restarts): a wall must not.
    shouldRetry: () => true,
    retryWait: (retries) => sleep(backoffMs(retries)),
    onNonLazyError: () => {
      // A fatal close code ends graphql-ws's own loop; the subscriptions
      // below keep retrying and reconnect it. The header shows the state.
    },
    on: {
      connecting: (isRetry) => !disposed && connection.connecting(isRetry),
      connected: () => !disposed && connection.connected(),
      closed: (event) => {
        clearTimeout(pongTimer);
        if (disposed) return;
        connection.lost();
        // The server refused the session at connection_init: the wall,
        // which reads through the socket alone, must learn it too.
        if (isSessionRefused(event)) onUnauthenticated();
      },
      ping: (received) => {
        if (received) return; // the server's ping: graphql-ws answers it
        clearTimeout(pongTimer);
        pongTimer = setTimeout(() => ws.terminate(), pongTimeoutMs);
      },
      pong: (received) => {
        if (received) clearTimeout(pongTimer);
      },
    },
  });

  const client = new Client({
    url: options.httpUrl ?? "/graphql",
    requestPolicy: "cache-and-network",
    // The server takes GraphQL over POST only (no state change through a GET, no query in access logs).
    preferGetMethod: false,
    // The session cookie, and the header without which the server refuses a
    // cookie's request (CSRF).
    fetchOptions: () => ({ ...sameOrigin, headers: { ...sameOrigin.headers } }),
    exchanges: [
      mapExchange({
        onError(error: CombinedError) {
          if (!disposed && isUnauthenticated(error)) onUnauthenticated();
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const payload: SubscribePayload = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              const stop = subscribeForever(ws, payload, sink, () => disposed);
              return { unsubscribe: stop };
            },
          };
        },
      }),
    ],
  });

  return {
    client,
    dispose() {
      disposed = true;
      clearTimeout(pongTimer);
      void ws.dispose();
    },
  };
}

/** A close of the socket by the server because the session is not (or no longer) valid. */
export function isSessionRefused(event: unknown): boolean {
  const e = event as { code?: unknown; reason?: unknown } | null;
  return e?.code === 4403 && e.reason === "UNAUTHENTICATED";
}

export function isUnauthenticated(error: CombinedError): boolean {
  if (error.graphQLErrors.some((e) => e.extensions?.code === "UNAUTHENTICATED")) return true;
  const response = error.response as { status?: number } | undefined;
  return response?.status === 401;
}

interface Sink {
  next(value: unknown): void;
  error(error: unknown): void;
  complete(): void;
}

/**
 * graphql-ws retries a subscription through ordinary connection losses, but
 * ends it on a "fatal" close code (4500 while the server restarts, for
 * example). Only GraphQL errors (an array) reach the caller; anything else
 * subscribes again after a backoff, forever.
 */
export function subscribeForever(ws: WsClient, payload: SubscribePayload, sink: Sink, disposed: () => boolean): () => void {
  let stopped = false;
  let unsubscribe: () => void = () => {};
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const start = () => {
    if (stopped || disposed()) return;
    unsubscribe = ws.subscribe(payload, {
      next: (value) => {
        attempt = 0;
        sink.next(value);
      },
      error: (error) => {
        if (stopped) return;
        if (Array.isArray(error) || disposed()) {
          sink.error(error);
          return;
        }
        retryTimer = setTimeout(start, backoffMs(attempt++));
      },
      complete: () => {
        if (!stopped) sink.complete();
      },
    });
  };
  start();
  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    unsubscribe();
  };
}
