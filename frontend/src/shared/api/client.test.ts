import type { Client as WsClient, Sink } from "graphql-ws";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backoffMs, subscribeForever } from "./client";

/** A graphql-ws client whose subscriptions the test drives by hand. */
function fakeWs() {
  const sinks: Sink[] = [];
  const unsubscribed: number[] = [];
  const ws = {
    subscribe: vi.fn((_payload: unknown, sink: Sink) => {
      const i = sinks.push(sink) - 1;
      return () => unsubscribed.push(i);
    }),
  } as unknown as WsClient;
  return { ws, sinks, unsubscribed };
}

const sink = () => ({ next: vi.fn(), error: vi.fn(), complete: vi.fn() });

describe("subscribeForever", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("subscribes again after a connection error, for ever, with a pause", () => {
    const { ws, sinks } = fakeWs();
    const out = sink();
    subscribeForever(ws, { query: "subscription { activity { kind } }" }, out, () => false);
    expect(sinks).toHaveLength(1);

    // graphql-ws gives up on a "fatal" close (a server restarting says 4500): not us.
    for (let attempt = 0; attempt < 20; attempt++) {
      sinks[sinks.length - 1]!.error({ code: 4500, reason: "restarting" });
      expect(sinks).toHaveLength(attempt + 1);
      vi.advanceTimersByTime(13_000);
      expect(sinks).toHaveLength(attempt + 2);
    }
    sinks[sinks.length - 1]!.next({ data: { activity: { kind: "state" } } });
    expect(out.next).toHaveBeenCalledWith({ data: { activity: { kind: "state" } } });
    expect(out.error).not.toHaveBeenCalled();
  });

  it("hands GraphQL errors to the caller instead of retrying", () => {
    const { ws, sinks } = fakeWs();
    const out = sink();
    subscribeForever(ws, { query: "subscription { x }" }, out, () => false);
    const errors = [{ message: "forbidden", extensions: { code: "FORBIDDEN" } }];
    sinks[0]!.error(errors);
    vi.advanceTimersByTime(60_000);
    expect(sinks).toHaveLength(1);
    expect(out.error).toHaveBeenCalledWith(errors);
  });

  it("stops retrying once unsubscribed", () => {
    const { ws, sinks, unsubscribed } = fakeWs();
    const stop = subscribeForever(ws, { query: "subscription { x }" }, sink(), () => false);
    sinks[0]!.error(new Event("error"));
    stop();
    vi.advanceTimersByTime(60_000);
    expect(sinks).toHaveLength(1);
    expect(unsubscribed).toEqual([0]);
  });
});

describe("backoffMs", () => {
  it("grows from half a second to ten seconds, with jitter", () => {
    for (let i = 0; i < 200; i++) {
      expect(backoffMs(0)).toBeGreaterThanOrEqual(350);
      expect(backoffMs(0)).toBeLessThanOrEqual(650);
      expect(backoffMs(50)).toBeLessThanOrEqual(13_000);
      expect(backoffMs(50)).toBeGreaterThanOrEqual(7_000);
    }
  });
});

describe("isSessionRefused", () => {
  it("tells the server's refusal of the session from other closes", async () => {
    const { isSessionRefused } = await import("./client");
    expect(isSessionRefused({ code: 4403, reason: "UNAUTHENTICATED" })).toBe(true);
    expect(isSessionRefused({ code: 4403, reason: "GROUPS_OVERAGE" })).toBe(false);
    expect(isSessionRefused({ code: 4500, reason: "restarting" })).toBe(false);
    expect(isSessionRefused(new Event("close"))).toBe(false);
    expect(isSessionRefused(null)).toBe(false);
  });
});
