import { act, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ConnectionIndicator } from "../ConnectionIndicator";
import { ConnectionContext, ConnectionStore, useOnReconnect } from "./connection";

function Refresher({ onRefresh }: { onRefresh: () => void }) {
  useOnReconnect(onRefresh);
  return <ConnectionIndicator />;
}

describe("the live connection", () => {
  it("tells connecting, live and reconnecting apart, and asks views to read again after a reconnection", () => {
    const store = new ConnectionStore();
    const refresh = vi.fn();
    render(
      <ConnectionContext.Provider value={store}>
        <Refresher onRefresh={refresh} />
      </ConnectionContext.Provider>,
    );
    const status = screen.getByRole("status");
    expect(status).toHaveTextContent("Connecting…");

    act(() => store.connected());
    expect(status).toHaveTextContent("Live");
    // The first connection may come after the view's first read: read again.
    expect(refresh).toHaveBeenCalledTimes(1);

    act(() => store.lost());
    expect(status).toHaveAttribute("data-status", "reconnecting");
    expect(status).toHaveTextContent(/Reconnecting… \(offline since/);
    act(() => store.connecting(true));
    act(() => store.connecting(true));
    expect(store.getSnapshot().attempts).toBe(2);
    expect(refresh).toHaveBeenCalledTimes(1);

    act(() => store.connected());
    expect(status).toHaveTextContent("Live");
    expect(refresh).toHaveBeenCalledTimes(2);
    expect(store.getSnapshot()).toMatchObject({ epoch: 2, attempts: 0 });
  });
});
