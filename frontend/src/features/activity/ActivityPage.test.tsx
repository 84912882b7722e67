import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ActivityDeploymentFragment } from "../../gql/graphql";
import { fakeApi } from "../../test/fakeApi";
import { ActivityPage } from "./ActivityPage";

function deploy(patch: Partial<ActivityDeploymentFragment>): ActivityDeploymentFragment {
  return {
    id: "hello-1",
    tenant: "demo",
    application: "hello",
    environment: "prod",
    state: "PENDING",
    requester: "token:demo-ci",
    createdAt: "2026-11-30T09:50:00Z",
    startedAt: "2026-11-30T09:50:01Z",
    finishedAt: null,
    updatedAt: "2026-11-30T09:59:00Z",
    startAt: null,
    dryRun: false,
    artifact: { name: "hello", version: "1.2.0" },
    currentStep: "deploy",
    error: null,
    plan: { steps: ["config", "secrets", "artifacts", "deploy"].map((name) => ({ name, maxRetries: 7 })) },
    steps: [
      { name: "config", state: "SUCCESS", kind: "RUN", position: 0, attempts: 1 },
      { name: "secrets", state: "SUCCESS", kind: "RUN", position: 1, attempts: 1 },
      { name: "artifacts", state: "SUCCESS", kind: "RUN", position: 2, attempts: 1 },
      { name: "deploy", state: "RUNNING", kind: "RUN", position: 3, attempts: 3 },
    ],
    ...patch,
  };
}

const row = (id: string) => document.querySelector<HTMLElement>(`tr[data-deployment-id="${id}"]`)!;

describe("ActivityPage", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-30T10:00:00Z"));
  });
  afterEach(() => vi.useRealTimers());

  it("shows the attempt of a retried step, when a delayed deploy starts, and errors in words", async () => {
    const raw = 'download artifact: Get "https://repo.example.com/hello.tgz": dial tcp: lookup repo.example.com on 127.0.0.53:53: no such host';
    const failed = deploy({
      id: "hello-0",
      state: "ERROR",
      finishedAt: "2026-11-30T09:40:00Z",
      updatedAt: "2026-11-30T09:40:00Z",
      error: raw,
      steps: [
        { name: "config", state: "SUCCESS", kind: "RUN", position: 0, attempts: 1 },
        { name: "secrets", state: "SUCCESS", kind: "RUN", position: 1, attempts: 1 },
        { name: "artifacts", state: "ERROR", kind: "RUN", position: 2, attempts: 8 },
        { name: "deploy", state: "SKIPPED", kind: "RUN", position: 3, attempts: 0 },
      ],
    });
    const api = fakeApi({
      ActivityPage: () => ({
        activity: [deploy({}), deploy({ id: "hello-later", state: "DELAYED", startedAt: null, currentStep: null, steps: [], startAt: "2026-11-30T13:15:00Z" })],
        recent: { nodes: [failed] },
      }),
    });
    render(
      <MemoryRouter>
        <ActivityPage />
      </MemoryRouter>,
      { wrapper: api.wrapper },
    );
    await screen.findByRole("table", { name: "Deploys running or waiting" });

    expect(row("hello-1")).toHaveTextContent("deploy · attempt 3 of 8");
    expect(within(row("hello-1")).getByRole("img")).toHaveAccessibleName("3 of 4 steps succeeded, deploy running");

    expect(row("hello-later")).toHaveTextContent(/starts \d\d:15:00 \(in 3 h\)/);

    const failedRow = row("hello-0");
    expect(failedRow).toHaveTextContent("The artifact's download: the host name repo.example.com could not be resolved (DNS)");
    expect(failedRow).not.toHaveTextContent("dial tcp");
    expect(failedRow.innerHTML).not.toContain("127.0.0.53");
    expect(within(failedRow).getByRole("img")).toHaveAccessibleName("2 of 4 steps succeeded, 1 failed, 1 skipped");
  });
});
