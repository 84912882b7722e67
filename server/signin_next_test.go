package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/websession"
)

// nextPath once let a tab through; Go's http.Redirect
// cannot parse the URL (control character), so it writes it unchanged in
// Location, and browsers drop tabs from URLs: "/\t/evil.example" becomes
// "//evil.example", another site (an open redirect after signing in).
func TestNextPathTabIsNotAnOpenRedirect(t *testing.T) {
	for _, next := range []string{"/\t/evil.example/x", "/\t\\evil.example"} {
		got := nextPath(next)
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "http://manent.test/auth/callback", nil)
		http.Redirect(w, r, got, http.StatusSeeOther)
		loc := w.Header().Get("Location")
		// What a browser does with Location: strip ASCII tab and newlines,
		// then resolve against the page's URL.
		stripped := ""
		for _, c := range loc {
			if c != '\t' && c != '\n' && c != '\r' {
				stripped += string(c)
			}
		}
		base, _ := url.Parse("http://manent.test/auth/callback")
		u, err := base.Parse(stripped)
		if err != nil || u.Host != "manent.test" {
			t.Errorf("nextPath(%q) = %q, Location %q: a browser goes to %v", next, got, loc, u)
		}
	}
}

func TestNextPath(t *testing.T) {
	for _, c := range []struct{ next, want string }{
		{"/deployments?state=ERROR", "/deployments?state=ERROR"},
		{"/deployments/a%20b", "/deployments/a%20b"},
		{"/x#frag", "/x"},
		{"", "/activity"},
		{"deployments", "/activity"},
		{"//evil.example", "/activity"},
		{"/\\evil.example", "/activity"},
		{"/\tx", "/activity"},
		{"/x\ny", "/activity"},
		{"/x\x7fy", "/activity"},
		{"/x\x00y", "/activity"},
		{"https://evil.example/", "/activity"},
		{"javascript:alert(1)", "/activity"},
		{"/auth/logout", "/activity"},
		{"/%61uth/logout", "/activity"},
		{"/%zz", "/activity"},
	} {
		if got := nextPath(c.next); got != c.want {
			t.Errorf("nextPath(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}

// GET /auth/login, open to anyone, records a sign-in each time: beyond
// websession.MaxOpenFlows under way, it answers 503 and records nothing.
func TestLoginRefusesBeyondOpenSignIns(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startServer(t, sessionConfig(t, idp.Issuer()))
	db, err := postgres.Open(t.Context(), os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Bun().ExecContext(t.Context(), `INSERT INTO manent.signin_flows (state_hash, binding_hash, nonce, verifier, next_path, expires_at)
		SELECT sha256(i::text::bytea), sha256(i::text::bytea), 'n', 'v', '/activity', now() + interval '10 minutes'
		FROM generate_series(1, ?) AS i`, websession.MaxOpenFlows); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL() + "/auth/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), "too many sign-ins are under way") {
		t.Fatalf("GET /auth/login beyond the bound: %d %q (Retry-After %q)", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	var n int
	if err := db.Bun().NewRaw(`SELECT count(*) FROM manent.signin_flows`).Scan(t.Context(), &n); err != nil {
		t.Fatal(err)
	}
	if n != websession.MaxOpenFlows {
		t.Fatalf("%d sign-ins recorded, want %d", n, websession.MaxOpenFlows)
	}
}
