import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { describe, expect, it } from "vitest";
import { Layout, labelTables } from "./Layout";

const nav = [
  { to: "/activity", label: "Activity" },
  { to: "/deployments", label: "Deployments" },
];

function renderLayout(children = <p>page</p>) {
  return render(
    <MemoryRouter initialEntries={["/activity"]}>
      <Layout nav={nav} onSignOut={() => {}}>
        <Routes>
          <Route path="/activity" element={children} />
          <Route path="/deployments" element={<h1>Deployments page</h1>} />
        </Routes>
      </Layout>
    </MemoryRouter>,
  );
}

describe("Layout's menu (the header on a phone)", () => {
  it("opens and closes the nav it controls, by click and by Escape, giving the focus back", async () => {
    const user = userEvent.setup();
    renderLayout();
    const button = screen.getByRole("button", { name: "Menu" });
    const navEl = screen.getByRole("navigation", { name: "Main" });
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(button).toHaveAttribute("aria-controls", navEl.id);
    expect(navEl).not.toHaveAttribute("data-open");

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "true");
    expect(navEl).toHaveAttribute("data-open", "true");

    await user.click(button);
    expect(button).toHaveAttribute("aria-expanded", "false");

    await user.click(button);
    await user.tab();
    expect(screen.getByRole("link", { name: "Activity" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(button).toHaveAttribute("aria-expanded", "false");
    expect(navEl).not.toHaveAttribute("data-open");
    expect(button).toHaveFocus();
  });

  it("closes once a link is followed", async () => {
    const user = userEvent.setup();
    renderLayout();
    const button = screen.getByRole("button", { name: "Menu" });
    await user.click(button);
    await user.click(screen.getByRole("link", { name: "Deployments" }));
    expect(await screen.findByRole("heading", { name: "Deployments page" })).toBeInTheDocument();
    expect(button).toHaveAttribute("aria-expanded", "false");
  });
});

describe("labelTables (tables stacked as label: value on a phone)", () => {
  it.each([
    {
      name: "one header per column",
      head: "<tr><th>State</th><th>Deploy</th></tr>",
      row: "<tr><td>Success</td><td>hello-1</td></tr>",
      want: ["State", "Deploy"],
    },
    {
      name: "a header spanning two columns names both",
      head: '<tr><th colspan="2">Target</th><th>When</th></tr>',
      row: "<tr><td>a</td><td>b</td><td>now</td></tr>",
      want: ["Target", "Target", "When"],
    },
    {
      name: "a cell spanning two columns takes the first name, the next cell the third",
      head: "<tr><th>A</th><th>B</th><th>C</th></tr>",
      row: '<tr><td colspan="2">ab</td><td>c</td></tr>',
      want: ["A", "C"],
    },
    {
      name: "an icon column named by aria-label",
      head: '<tr><th aria-label="Progress"><span>▮</span></th></tr>',
      row: "<tr><td>3/5</td></tr>",
      want: ["Progress"],
    },
  ])("$name", ({ head, row, want }) => {
    const root = document.createElement("div");
    root.innerHTML = `<table class="m-table"><thead>${head}</thead><tbody>${row}</tbody></table>`;
    labelTables(root);
    expect([...root.querySelectorAll("tbody td")].map((td) => td.getAttribute("data-label"))).toEqual(want);
  });

  it("keeps a label a page set itself, and skips a table marked data-stack=off", () => {
    const root = document.createElement("div");
    root.innerHTML =
      '<table class="m-table"><thead><tr><th>A</th></tr></thead><tbody><tr><td data-label="Mine">x</td></tr></tbody></table>' +
      '<table class="m-table" data-stack="off"><thead><tr><th>B</th></tr></thead><tbody><tr><td>y</td></tr></tbody></table>';
    labelTables(root);
    const cells = root.querySelectorAll("tbody td");
    expect(cells[0]).toHaveAttribute("data-label", "Mine");
    expect(cells[1]).not.toHaveAttribute("data-label");
  });

  it("labels rows a live view adds after the first render", async () => {
    function Table({ rows }: { rows: string[] }) {
      return (
        <table className="m-table">
          <thead>
            <tr>
              <th>Deploy</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r}>
                <td>{r}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    const { rerender } = renderLayout(<Table rows={["one"]} />);
    expect(screen.getByText("one")).toHaveAttribute("data-label", "Deploy");
    rerender(
      <MemoryRouter initialEntries={["/activity"]}>
        <Layout nav={nav} onSignOut={() => {}}>
          <Routes>
            <Route path="/activity" element={<Table rows={["one", "two"]} />} />
          </Routes>
        </Layout>
      </MemoryRouter>,
    );
    await act(async () => {
      await Promise.resolve();
    });
    expect(screen.getByText("two")).toHaveAttribute("data-label", "Deploy");
  });
});
