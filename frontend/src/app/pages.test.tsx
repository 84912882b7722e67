import { render, screen } from "@testing-library/react";
import { lazy } from "react";
import { describe, expect, it, vi } from "vitest";
import { ViewSlot } from "./pages";

describe("ViewSlot", () => {
  it("shows a view once its chunk has arrived", async () => {
    const View = lazy(async () => ({ default: () => <h1>Releases</h1> }));
    render(
      <ViewSlot>
        <View />
      </ViewSlot>,
    );
    expect(await screen.findByRole("heading", { name: "Releases" })).toBeInTheDocument();
  });

  it("says so, with a reload, when a chunk cannot be fetched (a server updated since the page was opened)", async () => {
    // React reports the error it caught: expected here.
    vi.spyOn(console, "error").mockImplementation(() => {});
    const View = lazy(() => Promise.reject(new TypeError("Failed to fetch dynamically imported module: /assets/ReleasePage-Old.js")));
    render(
      <ViewSlot>
        <View />
      </ViewSlot>,
    );
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("This view could not be loaded.");
    expect(alert).not.toHaveTextContent("Failed to fetch");
    expect(screen.getByRole("button", { name: "Reload" })).toBeInTheDocument();
  });
});
