import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionProvider, legacyStorageKey, useSession } from "../../shared/api/session";
import { fakeAuthServer } from "../../test/fakeAuthServer";
import { SignInPage, nextPath } from "./SignInPage";

function Where() {
  const location = useLocation();
  const { identity } = useSession();
  return (
    <p>
      at {location.pathname + location.search} as {identity?.subject ?? "nobody"}
    </p>
  );
}

function renderAt(url: string) {
  return render(
    <SessionProvider>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/signin" element={<SignInPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </SessionProvider>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe("the sign-in page", () => {
  it("offers the identity provider by its name, coming back to the page that sent the person here", async () => {
    fakeAuthServer({ oidc: "Example SSO", token: false });
    renderAt("/signin?next=%2Fdeployments%3Fstate%3DERROR");
    const link = await screen.findByRole("link", { name: "Sign in with Example SSO" });
    expect(link).toHaveAttribute("href", "/auth/login?next=%2Fdeployments%3Fstate%3DERROR");
    expect(screen.queryByLabelText("Token")).not.toBeInTheDocument();
  });

  it("signs in with a token through the server, keeping nothing of it in the browser", async () => {
    const server = fakeAuthServer({ token: true });
    const setItem = vi.spyOn(Storage.prototype, "setItem");
    renderAt("/signin?next=%2Freleases");
    const field = await screen.findByLabelText("Token");
    expect(screen.queryByRole("link", { name: /Sign in with/ })).not.toBeInTheDocument();

    await userEvent.type(field, "not-a-token");
    await userEvent.click(screen.getByRole("button", { name: "Sign in with the token" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("This token is not valid.");
    expect(alert).toHaveAttribute("data-code", "UNAUTHENTICATED");

    await userEvent.clear(field);
    await userEvent.type(field, "demo-admin");
    await userEvent.click(screen.getByRole("button", { name: "Sign in with the token" }));
    expect(await screen.findByText("at /releases as token:demo-admin")).toBeInTheDocument();

    const posts = server.sent.filter((r) => r.path === "/auth/token");
    expect(posts).toHaveLength(2);
    for (const p of posts) {
      expect(p.headers["X-Manent-CSRF"]).toBe("1");
      expect(p.credentials).toBe("same-origin");
    }
    expect(posts[1]!.body).toEqual({ token: "demo-admin" });
    expect(setItem).not.toHaveBeenCalled();
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
  });

  it("tells why a single sign-on failed, by the server's code only", async () => {
    fakeAuthServer({ oidc: "Example SSO" });
    renderAt("/signin?signin_error=overage");
    expect(await screen.findByRole("alert")).toHaveTextContent(/too many groups.*GROUPS_OVERAGE/);
  });

  it("says so when the server offers no sign-in", async () => {
    fakeAuthServer({ oidc: null, token: false });
    renderAt("/signin");
    expect(await screen.findByRole("status")).toHaveTextContent("offers no sign-in");
  });
});

describe("the session", () => {
  it("removes the token older versions kept in localStorage", async () => {
    localStorage.setItem(legacyStorageKey, JSON.stringify({ kind: "token", token: "demo-admin" }));
    fakeAuthServer({ signedIn: "oidc:alice" });
    renderAt("/activity");
    expect(await screen.findByText("at /activity as oidc:alice")).toBeInTheDocument();
    expect(localStorage.getItem(legacyStorageKey)).toBeNull();
  });

  it("signs out at the server, with the CSRF header", async () => {
    const server = fakeAuthServer({ signedIn: "oidc:alice" });
    function SignOut() {
      const { signOut, identity } = useSession();
      return (
        <button type="button" onClick={() => void signOut({ everywhere: true })}>
          sign out {identity?.subject ?? "nobody"}
        </button>
      );
    }
    render(
      <SessionProvider>
        <SignOut />
      </SessionProvider>,
    );
    await userEvent.click(await screen.findByRole("button", { name: "sign out oidc:alice" }));
    await waitFor(() => expect(screen.getByRole("button")).toHaveTextContent("sign out nobody"));
    const out = server.sent.find((r) => r.path === "/auth/logout-everywhere");
    expect(out?.method).toBe("POST");
    expect(out?.headers["X-Manent-CSRF"]).toBe("1");
    expect(server.subject()).toBeNull();
  });
});

describe("nextPath", () => {
  it.each([
    ["?next=%2Fdeployments%3Fstate%3DERROR", "/deployments?state=ERROR"],
    ["?next=https%3A%2F%2Fevil.example.com", "/activity"],
    ["?next=%2F%2Fevil.example.com", "/activity"],
    ["?next=%2F%09%2Fevil.example.com", "/activity"],
    ["?next=%2F%5Cevil.example.com", "/activity"],
    ["?next=%2Fx%0Ay", "/activity"],
    ["?next=%2Fx%7Fy", "/activity"],
    ["?next=%2Fauth%2Flogout", "/activity"],
    ["?next=%2Fdeployments%23top", "/deployments"],
    ["", "/activity"],
  ])("%s goes to %s", (search, want) => {
    expect(nextPath(search)).toBe(want);
  });
});
