package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// rev14: nextPath once let a tab through; Go's http.Redirect
// cannot parse the URL (control character), so it writes it unchanged in
// Location, and browsers drop tabs from URLs: "/\t/evil.example" becomes
// "//evil.example", another site (an open redirect after signing in).
func TestRev14NextPathTabIsNotAnOpenRedirect(t *testing.T) {
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
		{"/%zz", "/activity"},
	} {
		if got := nextPath(c.next); got != c.want {
			t.Errorf("nextPath(%q) = %q, want %q", c.next, got, c.want)
		}
	}
}
