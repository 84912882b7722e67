import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { SchedulesPage } from "./SchedulesPage";

const schedule = (name: string, patch: Record<string, unknown> = {}) => ({
  name,
  tenant: "demo",
  application: "hello",
  environment: "qa",
  cron: "0 2 * * *",
  timezone: "UTC",
  requester: "token:demo-ci",
  state: "SCHEDULED",
  nextTick: "2026-12-02T02:00:00Z",
  lastTick: "2026-12-01T02:00:00Z",
  lastDeployment: `${name}@2026-12-01T02:00:00Z`,
  lastError: null,
  canDelete: true,
  ...patch,
});

describe("SchedulesPage", () => {
  it("lists the schedules with their last run and error, and offers Delete only where the server allows", async () => {
    const api = fakeApi({
      SchedulesPage: () => ({ schedules: [schedule("nightly"), schedule("weekly", { canDelete: false, lastError: "deploy ID weekly@… is taken", lastDeployment: null })] }),
    });
    render(
      <MemoryRouter>
        <SchedulesPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const table = await screen.findByRole("table", { name: "Schedules" });
    const nightly = within(table).getByText("nightly").closest("tr")!;
    const weekly = within(table).getByText("weekly").closest("tr")!;
    expect(within(nightly).getByRole("link", { name: "nightly@2026-12-01T02:00:00Z" })).toHaveAttribute("href", "/deployments/nightly%402026-12-01T02%3A00%3A00Z");
    expect(within(nightly).getByRole("button", { name: "Delete…" })).toBeInTheDocument();
    expect(within(weekly).queryByRole("button", { name: "Delete…" })).toBeNull();
    expect(within(weekly).getByTestId("schedule-error")).toHaveTextContent("Last error: deploy ID weekly@… is taken");
  });

  it("deletes after the confirmation and shows the list as it is now", async () => {
    let deleted = false;
    const asked: Record<string, unknown>[] = [];
    const api = fakeApi({
      SchedulesPage: () => ({ schedules: [schedule("nightly", deleted ? { state: "DELETED", canDelete: false, nextTick: null } : {})] }),
      DeleteSchedule: (v) => {
        asked.push(v);
        deleted = true;
        return { deleteSchedule: true };
      },
    });
    render(
      <MemoryRouter>
        <SchedulesPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Delete…" }));
    const dialog = screen.getByRole("dialog", { name: "Delete schedule nightly?" });
    expect(dialog).toHaveTextContent("no further tick starts a deploy; the deploys already started go on");
    await user.click(within(dialog).getByRole("button", { name: "Delete schedule" }));
    await waitFor(() => expect(screen.getByText("deleted")).toBeInTheDocument());
    expect(asked).toEqual([{ name: "nightly" }]);
    expect(screen.queryByRole("button", { name: "Delete…" })).toBeNull();
  });
});
