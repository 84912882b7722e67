import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { LogViewer, type LogLineLike } from "./LogViewer";

function lines(from: number, to: number, message = (i: number) => `line ${i}`): LogLineLike[] {
  const out: LogLineLike[] = [];
  for (let i = from; i <= to; i++) {
    out.push({ seq: i, time: `2026-11-30T10:00:${String(i % 60).padStart(2, "0")}Z`, step: i % 2 ? "deploy" : "artifacts", level: "info", message: message(i) });
  }
  return out;
}

/** happy-dom lays nothing out: give the log box a size that grows with its lines. */
function withLayout(log: HTMLElement, lineHeight = 20, height = 100) {
  Object.defineProperty(log, "clientHeight", { configurable: true, get: () => height });
  Object.defineProperty(log, "scrollHeight", { configurable: true, get: () => log.querySelectorAll("[data-level]").length * lineHeight });
}

describe("LogViewer", () => {
  it("follows the tail as lines arrive, stops when the reader scrolls up, and resumes on demand", async () => {
    const user = userEvent.setup();
    const { rerender } = render(<LogViewer lines={lines(1, 10)} live />);
    const log = screen.getByRole("log", { name: "Deploy log" });
    withLayout(log);
    const follow = screen.getByRole("button", { name: "Follow" });
    expect(follow).toHaveAttribute("aria-pressed", "true");

    rerender(<LogViewer lines={lines(1, 20)} live />);
    expect(log.scrollTop).toBe(400); // 20 lines of 20 px: at the end

    // The reader scrolls up to read: following stops, new lines do not move the view.
    log.scrollTop = 40;
    fireEvent.scroll(log);
    expect(follow).toHaveAttribute("aria-pressed", "false");
    rerender(<LogViewer lines={lines(1, 30)} live />);
    expect(log.scrollTop).toBe(40);
    expect(within(log).getByText("line 30")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: /jump to the newest line/i }));
    expect(follow).toHaveAttribute("aria-pressed", "true");
    expect(log.scrollTop).toBe(600);

    // Scrolling back to the end by hand also resumes following.
    await user.click(follow);
    expect(follow).toHaveAttribute("aria-pressed", "false");
    log.scrollTop = 600 - 100;
    fireEvent.scroll(log);
    expect(follow).toHaveAttribute("aria-pressed", "true");
  });

  it("filters the lines on a search, marks the matches, and clears with Escape", async () => {
    const user = userEvent.setup();
    const data = lines(1, 6, (i) => (i % 3 === 0 ? `health check failed on target ${i}` : `copied file ${i}`));
    render(<LogViewer lines={data} live={false} />);
    const log = screen.getByRole("log");
    expect(screen.getByText("6 lines")).toBeInTheDocument();

    const search = screen.getByRole("searchbox", { name: "Search the log" });
    await user.type(search, "FAILED");
    expect(screen.getByText("2 of 6 lines match")).toBeInTheDocument();
    expect(within(log).queryByText(/copied file/)).not.toBeInTheDocument();
    const marks = log.querySelectorAll("mark");
    expect([...marks].map((m) => m.textContent)).toEqual(["failed", "failed"]);

    await user.clear(search);
    await user.type(search, "no such thing");
    expect(within(log).getByText(/No line matches/)).toBeInTheDocument();

    await user.keyboard("{Escape}");
    expect(search).toHaveValue("");
    expect(screen.getByText("6 lines")).toBeInTheDocument();
  });

  it("copies the lines it shows", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    render(<LogViewer lines={lines(1, 3)} live={false} />);
    await user.type(screen.getByRole("searchbox", { name: "Search the log" }), "line 2");
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(writeText).toHaveBeenCalledWith("2026-11-30T10:00:02Z INFO  [artifacts] line 2\n");
    expect(await screen.findByText("Copied 1 line.")).toBeInTheDocument();
  });

  it("tells an empty log from one still to come", () => {
    const { rerender } = render(<LogViewer lines={[]} live />);
    expect(screen.getByText(/No log lines yet/)).toBeInTheDocument();
    rerender(<LogViewer lines={[]} live={false} />);
    expect(screen.getByText("This deploy wrote no log lines.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Copy" })).toBeDisabled();
  });
});
