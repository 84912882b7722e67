package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/tokens"
	"manent.dev/manent/internal/websession"
)

// browser is an HTTP client with a cookie jar, as a browser holds the
// session cookie; it follows no redirect by itself, so that each answer
// of the sign-in can be looked at.
type browser struct {
	t      *testing.T
	client *http.Client
	jar    http.CookieJar
}

func newBrowser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, jar: jar, client: &http.Client{Jar: jar, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// browserReply is what the browser keeps of an answer, its body read and
// closed.
type browserReply struct {
	StatusCode int
	Header     http.Header
	// URL is the request's.
	URL     *url.URL
	cookies []*http.Cookie
}

func (r browserReply) Cookies() []*http.Cookie { return r.cookies }

// Location is the redirect's target, resolved against the request's URL.
func (r browserReply) Location() (*url.URL, error) {
	loc := r.Header.Get("Location")
	if loc == "" {
		return nil, http.ErrNoLocation
	}
	return r.URL.Parse(loc)
}

// do sends a request; header holds name, value pairs.
func (b *browser) do(method, target, body string, header ...string) (browserReply, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	return browserReply{StatusCode: resp.StatusCode, Header: resp.Header, URL: resp.Request.URL, cookies: resp.Cookies()}, string(raw)
}

// follow GETs target and the redirects after it, up to a URL for which
// stop says so (then that request is not sent) or a page that is no
// redirect.
func (b *browser) follow(target string, stop func(*url.URL) bool) (last browserReply, body string, next *url.URL) {
	b.t.Helper()
	for range 10 {
		resp, body := b.do("GET", target, "")
		loc, err := resp.Location()
		if err != nil {
			return resp, body, nil
		}
		if stop(loc) {
			return resp, body, loc
		}
		target = loc.String()
	}
	b.t.Fatalf("more than 10 redirects from %s", target)
	return browserReply{}, "", nil
}

func (b *browser) cookie(base, name string) *http.Cookie {
	u, _ := url.Parse(base)
	for _, c := range b.jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// setCookie is the Set-Cookie of resp named name, nil when none.
func setCookie(resp interface{ Cookies() []*http.Cookie }, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// signInOIDC signs user in at the development provider through its real
// sign-in page: GET /auth/login, the provider's redirects, its form, and
// back to /auth/callback. It returns the callback URL and manent's answer
// to it.
func signInOIDC(t *testing.T, b *browser, srv *Server, idp *devoidc.Provider, user, next string) (string, browserReply) {
	t.Helper()
	return atProvider(t, b, srv, idp, user, startOIDC(t, b, srv, idp, next))
}

// startOIDC is GET /auth/login: it returns the provider's URL manent sends
// the browser to, after checking it and the binding cookie.
func startOIDC(t *testing.T, b *browser, srv *Server, idp *devoidc.Provider, next string) *url.URL {
	t.Helper()
	start, _ := b.do("GET", srv.URL()+"/auth/login?next="+url.QueryEscape(next), "")
	authURL, err := start.Location()
	if start.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(authURL.String(), idp.Issuer()+"/") {
		t.Fatalf("GET /auth/login: %d to %v, want a redirect to the provider", start.StatusCode, authURL)
	}
	if q := authURL.Query(); q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		t.Fatalf("authorization request without PKCE, nonce or state: %s", authURL)
	}
	binding := setCookie(start, websession.BindingName(authURL.Query().Get("state")))
	if binding == nil || !binding.HttpOnly || binding.Path != "/auth/callback" || binding.SameSite != http.SameSiteLaxMode || binding.MaxAge != 600 {
		t.Fatalf("sign-in binding cookie %+v", binding)
	}
	return authURL
}

// atProvider follows authURL to the provider's sign-in page, signs user in
// there, and follows the provider back to /auth/callback. It returns the
// callback URL and manent's answer to it.
func atProvider(t *testing.T, b *browser, srv *Server, idp *devoidc.Provider, user string, authURL *url.URL) (string, browserReply) {
	t.Helper()
	password := ""
	for _, u := range idp.Users() {
		if u.Name == user {
			password = u.Password
		}
	}
	page, body, _ := b.follow(authURL.String(), func(*url.URL) bool { return false })
	if page.StatusCode != http.StatusOK || !strings.Contains(body, `name="password"`) {
		t.Fatalf("the provider's sign-in page: %d %s", page.StatusCode, body)
	}
	form := url.Values{"authRequestID": {page.URL.Query().Get("authRequestID")}, "username": {user}, "password": {password}}
	req, _ := http.NewRequest("POST", page.URL.String(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("sign-in form: %d, no redirect", resp.StatusCode)
	}
	toManent := func(u *url.URL) bool { return strings.HasPrefix(u.String(), srv.URL()+"/auth/callback") }
	callback := loc
	if !toManent(loc) {
		_, _, callback = b.follow(loc.String(), toManent)
	}
	if callback == nil {
		t.Fatal("the provider never sent the browser back to /auth/callback")
	}
	answer, _ := b.do("GET", callback.String(), "")
	return callback.String(), answer
}

func sessionConfig(t *testing.T, issuer string) string {
	t.Helper()
	path := oidcConfig(t, issuer)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "auth:\n", "auth:\n  allow_token_sign_in: true\n", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowserSignIn is the web interface's sign-in on a whole server, at
// the development provider: code + PKCE through its sign-in page, the
// session cookie and what it opens, the callback replayed, CSRF on
// GraphQL and REST, the websocket, signing out, and out everywhere.
func TestBrowserSignIn(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startServer(t, sessionConfig(t, idp.Issuer()))
	base := srv.URL()
	csrf := []string{csrfHeader, "1", "Origin", base}

	alice := newBrowser(t)
	callback, answer := signInOIDC(t, alice, srv, idp, "alice", "/deployments?state=ERROR")

	t.Run("the callback opens a session and goes on to next", func(t *testing.T) {
		if loc, _ := answer.Location(); answer.StatusCode != http.StatusSeeOther || loc == nil || loc.RequestURI() != "/deployments?state=ERROR" {
			t.Fatalf("callback: %d to %v", answer.StatusCode, loc)
		}
		c := setCookie(answer, sessionCookie)
		if c == nil {
			t.Fatal("no session cookie")
		}
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure || c.MaxAge != int(config.DefaultSessionTTL.Seconds()) {
			t.Errorf("session cookie %q: want HttpOnly; SameSite=Lax; Path=/; Max-Age 12 h, not Secure over http", c.Raw)
		}
		if len(c.Value) < 43 {
			t.Errorf("session ID %q shorter than 256 bits", c.Value)
		}
		cb, _ := url.Parse(callback)
		if gone := setCookie(answer, websession.BindingName(cb.Query().Get("state"))); gone == nil || gone.MaxAge >= 0 {
			t.Errorf("the sign-in binding cookie is not removed: %+v", gone)
		}
		resp, body := alice.do("GET", base+"/auth/session", "")
		var s sessionJSON
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &s) != nil || s.Identity == nil ||
			s.Identity.Subject != "oidc:alice" || len(s.Identity.Groups) != 1 || s.Identity.Groups[0] != "release-managers" || s.Method != "oidc" {
			t.Fatalf("GET /auth/session: %d %s", resp.StatusCode, body)
		}
		if s.SignIn.OIDC == nil || *s.SignIn.OIDC != "single sign-on" || !s.SignIn.Token {
			t.Errorf("sign-in methods %+v", s.SignIn)
		}
		if strings.Contains(body, c.Value) || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET /auth/session shows the session ID or may be cached: %s %v", body, resp.Header)
		}
		resp, body = alice.do("POST", base+"/graphql", `{"query":"{ viewer { subject } }"}`, csrf...)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"oidc:alice"`) {
			t.Errorf("GraphQL by the cookie: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("the same callback again signs no one in", func(t *testing.T) {
		eve := newBrowser(t)
		for _, b := range []*browser{alice, eve} {
			resp, _ := b.do("GET", callback, "")
			loc, _ := resp.Location()
			if resp.StatusCode != http.StatusSeeOther || loc == nil || loc.RequestURI() != "/signin?signin_error=expired" || setCookie(resp, sessionCookie) != nil {
				t.Errorf("replayed callback: %d to %v, cookies %v", resp.StatusCode, loc, resp.Cookies())
			}
		}
		resp, _ := eve.do("GET", base+"/auth/callback?state=never-issued&code=x", "")
		if loc, _ := resp.Location(); loc == nil || loc.RequestURI() != "/signin?signin_error=expired" || setCookie(resp, sessionCookie) != nil {
			t.Errorf("a state never issued: %d to %v", resp.StatusCode, loc)
		}
	})

	t.Run("two sign-ins started in two tabs both finish", func(t *testing.T) {
		b := newBrowser(t)
		first := startOIDC(t, b, srv, idp, "/releases")
		second := startOIDC(t, b, srv, idp, "/audit")
		for _, tc := range []struct {
			authURL *url.URL
			next    string
		}{{first, "/releases"}, {second, "/audit"}} {
			_, answer := atProvider(t, b, srv, idp, "carol", tc.authURL)
			if loc, _ := answer.Location(); loc == nil || loc.RequestURI() != tc.next || setCookie(answer, sessionCookie) == nil {
				t.Errorf("sign-in to %s: %d to %v", tc.next, answer.StatusCode, loc)
			}
		}
	})

	t.Run("CSRF", func(t *testing.T) {
		mutation := `{"query":"mutation { cancelDeployment(id: \"nope\") { id } }"}`
		query := `{"query":"{ viewer { subject } }"}`
		for _, tc := range []struct {
			name, method, path, body string
			header                   []string
			forbidden                bool
		}{
			{"a GraphQL mutation without the header", "POST", "/graphql", mutation, []string{"Origin", base}, true},
			{"a GraphQL mutation from another origin", "POST", "/graphql", mutation, []string{csrfHeader, "1", "Origin", "https://evil.example.com"}, true},
			{"a GraphQL query over POST without the header", "POST", "/graphql", query, nil, true},
			{"a GraphQL mutation cross-site (Sec-Fetch-Site)", "POST", "/graphql", mutation, append([]string{"Sec-Fetch-Site", "cross-site"}, csrf...), true},
			{"a GraphQL mutation from the web interface", "POST", "/graphql", mutation, csrf, false},
			{"a REST POST without the header", "POST", "/api/v1/deployments", "{}", []string{"Origin", base}, true},
			{"a REST POST from another origin", "POST", "/api/v1/deployments", "{}", []string{csrfHeader, "1", "Origin", "http://127.0.0.1:1"}, true},
			{"a REST POST from the web interface", "POST", "/api/v1/deployments", "{}", csrf, false},
			{"a REST GET needs no header", "GET", "/api/v1/deployments/nope", "", nil, false},
			{"sign out without the header", "POST", "/auth/logout", "", []string{"Origin", base}, true},
			{"sign out everywhere from another origin", "POST", "/auth/logout-everywhere", "", []string{csrfHeader, "1", "Origin", "https://evil.example.com"}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := alice.do(tc.method, base+tc.path, tc.body, tc.header...)
				refused := resp.StatusCode == http.StatusForbidden && strings.Contains(body, "FORBIDDEN") && strings.Contains(body, "cross-site request refused")
				if refused != tc.forbidden {
					t.Errorf("%d %s; want refused as cross-site: %v", resp.StatusCode, body, tc.forbidden)
				}
				if !tc.forbidden && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
					t.Errorf("the web interface's own request refused: %d %s", resp.StatusCode, body)
				}
			})
		}
		// The session survived all of it.
		if resp, body := alice.do("GET", base+"/auth/session", ""); !strings.Contains(body, "oidc:alice") {
			t.Fatalf("session gone after refused requests: %d %s", resp.StatusCode, body)
		}
		// A bearer token needs neither header nor origin.
		resp, body := alice.do("POST", base+"/graphql", query, "Authorization", "Bearer "+demoTokens["viewer"], "Origin", "https://evil.example.com")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "token:viewer") {
			t.Errorf("bearer token with a foreign origin: %d %s", resp.StatusCode, body)
		}
	})

	t.Run("the websocket", func(t *testing.T) {
		cookie := "manent_session=" + alice.cookie(base, sessionCookie).Value
		_, err := dial(t, srv, http.Header{"Cookie": {cookie}, "Origin": {"https://evil.example.com"}}, map[string]any{})
		if err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("a valid cookie from another origin: %v, want a 403", err)
		}
		conn, err := dial(t, srv, http.Header{"Cookie": {cookie}, "Origin": {base}}, map[string]any{})
		if err != nil {
			t.Fatalf("the cookie from the web interface's origin: %v", err)
		}
		_ = conn.Close()
		if _, err := dial(t, srv, http.Header{"Cookie": {"manent_session=made-up"}, "Origin": {base}}, map[string]any{}); !websocket.IsCloseError(err, closeForbidden) {
			t.Errorf("an unknown session: %v, want close %d", err, closeForbidden)
		}
	})

	t.Run("token sign-in", func(t *testing.T) {
		b := newBrowser(t)
		for _, tc := range []struct {
			name   string
			body   string
			header []string
			status int
		}{
			{"without the header", `{"token":"` + demoTokens["viewer"] + `"}`, []string{"Origin", base}, http.StatusForbidden},
			{"from another origin", `{"token":"` + demoTokens["viewer"] + `"}`, []string{csrfHeader, "1", "Origin", "https://evil.example.com"}, http.StatusForbidden},
			{"a wrong token", `{"token":"nope"}`, csrf, http.StatusUnauthorized},
			{"no token", `{}`, csrf, http.StatusUnprocessableEntity},
			{"a JWT of the provider is not a static token", `{"token":"` + mustSignIn(t, idp, "alice") + `"}`, csrf, http.StatusUnauthorized},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := b.do("POST", base+"/auth/token", tc.body, tc.header...)
				if resp.StatusCode != tc.status || setCookie(resp, sessionCookie) != nil || strings.Contains(body, "nope") {
					t.Errorf("%d %s, cookies %v; want %d and no session", resp.StatusCode, body, resp.Cookies(), tc.status)
				}
			})
		}
		resp, body := b.do("POST", base+"/auth/token", `{"token":"`+demoTokens["viewer"]+`"}`, csrf...)
		c := setCookie(resp, sessionCookie)
		if resp.StatusCode != http.StatusOK || c == nil || !c.HttpOnly || !strings.Contains(body, "token:viewer") || strings.Contains(body, demoTokens["viewer"]) {
			t.Fatalf("token sign-in: %d %s %+v", resp.StatusCode, body, c)
		}
		if _, body := b.do("POST", base+"/graphql", `{"query":"{ viewer { subject } }"}`, csrf...); !strings.Contains(body, "token:viewer") {
			t.Errorf("the token session over GraphQL: %s", body)
		}
	})

	t.Run("sign out, and out everywhere", func(t *testing.T) {
		other := newBrowser(t)
		signInOIDC(t, other, srv, idp, "alice", "/")
		third := newBrowser(t)
		signInOIDC(t, third, srv, idp, "alice", "/")
		carol := newBrowser(t)
		signInOIDC(t, carol, srv, idp, "carol", "/")
		signedIn := func(b *browser) bool {
			_, body := b.do("POST", base+"/graphql", `{"query":"{ viewer { subject } }"}`, csrf...)
			return strings.Contains(body, `"oidc:`)
		}
		resp, _ := third.do("POST", base+"/auth/logout", "", csrf...)
		if resp.StatusCode != http.StatusNoContent || signedIn(third) || !signedIn(other) {
			t.Fatalf("sign out: %d; this browser signed in: %v, the other: %v", resp.StatusCode, signedIn(third), signedIn(other))
		}
		if c := setCookie(resp, sessionCookie); c == nil || c.MaxAge >= 0 {
			t.Errorf("sign out does not remove the cookie: %+v", c)
		}
		resp, body := alice.do("POST", base+"/auth/logout-everywhere", "", csrf...)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"ended": 2`) {
			t.Fatalf("sign out everywhere: %d %s", resp.StatusCode, body)
		}
		if signedIn(alice) || signedIn(other) {
			t.Error("a session of alice outlived signing out everywhere")
		}
		if !signedIn(carol) {
			t.Error("alice signing out everywhere ended carol's session")
		}
		resp, body = alice.do("POST", base+"/graphql", `{"query":"{ viewer { subject } }"}`, csrf...)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "UNAUTHENTICATED") {
			t.Errorf("an ended session: %d %s, want 401 UNAUTHENTICATED", resp.StatusCode, body)
		}
		if _, body := alice.do("GET", base+"/auth/session", ""); !strings.Contains(body, `"identity": null`) {
			t.Errorf("GET /auth/session after signing out: %s", body)
		}
	})

	t.Run("an administrator ends another identity's sessions", func(t *testing.T) {
		bob := newBrowser(t)
		signInOIDC(t, bob, srv, idp, "bob", "/")
		req := func(token, subject string) (reply, []byte) {
			return request(t, "DELETE", base+"/api/v1/sessions?subject="+url.QueryEscape(subject), token, "")
		}
		if r, body := req(demoTokens["viewer"], "oidc:bob"); r.StatusCode != http.StatusForbidden {
			t.Errorf("a viewer ending bob's sessions: %d %s", r.StatusCode, body)
		}
		if r, body := req(demoTokens["admin"], "oidc:bob"); r.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ended": 1`) {
			t.Errorf("an administrator ending bob's sessions: %d %s", r.StatusCode, body)
		}
		if resp, _ := bob.do("POST", base+"/graphql", `{"query":"{ viewer { subject } }"}`, csrf...); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("bob's session after its revocation: %d", resp.StatusCode)
		}
	})
}

func mustSignIn(t *testing.T, idp *devoidc.Provider, user string) string {
	t.Helper()
	tok, err := idp.SignIn(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

// TestSessionCookieSecure: behind https, as server.public_url says or as
// the request came, the session cookie is Secure; the origin checked is
// the public one.
func TestSessionCookieSecure(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	newAPI := func(publicURL string) *api {
		return &api{
			log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
			spa:       fstest.MapFS{"index.html": {Data: []byte("<p>spa</p>")}},
			publicURL: publicURL,
			web: webAuth{sessions: websession.NewStore(db.Bun(), websession.Options{TTL: time.Hour, IdleTimeout: time.Hour}),
				tokens: tokens.New([]config.Token{{Name: "ci", SHA256: hash("ci-token")}}), allowTokenSignIn: true},
		}
	}
	behindProxy := httptest.NewServer(newAPI("https://manent.example.com").routes())
	t.Cleanup(behindProxy.Close)
	overTLS := httptest.NewTLSServer(newAPI("").routes())
	t.Cleanup(overTLS.Close)
	plain := httptest.NewServer(newAPI("").routes())
	t.Cleanup(plain.Close)
	for _, tc := range []struct {
		name, url, origin string
		client            *http.Client
		status            int
		secure            bool
	}{
		{"public_url https, from its origin", behindProxy.URL, "https://manent.example.com", http.DefaultClient, http.StatusOK, true},
		{"public_url https, from the http origin", behindProxy.URL, "http://manent.example.com", http.DefaultClient, http.StatusForbidden, false},
		{"over TLS", overTLS.URL, overTLS.URL, overTLS.Client(), http.StatusOK, true},
		{"plain http", plain.URL, plain.URL, http.DefaultClient, http.StatusOK, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", tc.url+"/auth/token", strings.NewReader(`{"token":"ci-token"}`))
			req.Header.Set(csrfHeader, "1")
			req.Header.Set("Origin", tc.origin)
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			c := setCookie(resp, sessionCookie)
			if tc.status != http.StatusOK {
				if c != nil {
					t.Errorf("a refused sign-in set %q", c.Raw)
				}
				return
			}
			if c == nil || c.Secure != tc.secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
				t.Errorf("session cookie %+v, want Secure %v, HttpOnly, SameSite=Lax", c, tc.secure)
			}
		})
	}
	t.Run("token sign-in off", func(t *testing.T) {
		a := newAPI("")
		a.web.allowTokenSignIn = false
		srv := httptest.NewServer(a.routes())
		t.Cleanup(srv.Close)
		req, _ := http.NewRequest("POST", srv.URL+"/auth/token", strings.NewReader(`{"token":"ci-token"}`))
		req.Header.Set(csrfHeader, "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || setCookie(resp, sessionCookie) != nil {
			t.Errorf("token sign-in while auth.allow_token_sign_in is off: %d %v", resp.StatusCode, resp.Cookies())
		}
	})
	t.Run("no single sign-on configured", func(t *testing.T) {
		srv := httptest.NewServer(newAPI("").routes())
		t.Cleanup(srv.Close)
		resp, err := http.Get(srv.URL + "/auth/login")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /auth/login without auth.oidc: %d", resp.StatusCode)
		}
	})
}

// TestSessionWebsocketEnds: a websocket the session cookie opened closes
// once the session ends (here signed out everywhere from another tab), and
// the cookie opens none after.
func TestSessionWebsocketEnds(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	a := &api{
		service: &fakeService{}, events: &fakeEvents{},
		log:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		spa:            fstest.MapFS{"index.html": {Data: []byte("<p>spa</p>")}},
		heartbeat:      time.Hour,
		sessionRecheck: 20 * time.Millisecond,
		web: webAuth{sessions: websession.NewStore(db.Bun(), websession.Options{TTL: time.Hour, IdleTimeout: time.Hour}),
			tokens: tokens.New([]config.Token{{Name: "ci", SHA256: hash("ci-token")}}), allowTokenSignIn: true},
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(srv.Close)
	b := newBrowser(t)
	csrf := []string{csrfHeader, "1", "Origin", srv.URL}
	if resp, body := b.do("POST", srv.URL+"/auth/token", `{"token":"ci-token"}`, csrf...); resp.StatusCode != http.StatusOK {
		t.Fatalf("token sign-in: %d %s", resp.StatusCode, body)
	}
	header := http.Header{"Cookie": {sessionCookie + "=" + b.cookie(srv.URL, sessionCookie).Value}, "Origin": {srv.URL}}
	open := func() (*websocket.Conn, wsMessage, error) {
		d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}, HandshakeTimeout: time.Minute}
		conn, resp, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", header)
		if resp != nil {
			_ = resp.Body.Close()
		}
		if err != nil {
			return nil, wsMessage{}, err
		}
		t.Cleanup(func() { _ = conn.Close() })
		if err := conn.WriteJSON(wsMessage{Type: "connection_init", Payload: json.RawMessage(`{}`)}); err != nil {
			return nil, wsMessage{}, err
		}
		var m wsMessage
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		err = conn.ReadJSON(&m)
		return conn, m, err
	}
	conn, ack, err := open()
	if err != nil || ack.Type != "connection_ack" {
		t.Fatalf("the cookie's websocket: %+v %v", ack, err)
	}
	if resp, body := b.do("POST", srv.URL+"/auth/logout-everywhere", "", csrf...); resp.StatusCode != http.StatusOK {
		t.Fatalf("sign out everywhere: %d %s", resp.StatusCode, body)
	}
	// The socket closes by itself; the deadline only bounds a failure.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		var m wsMessage
		if err := conn.ReadJSON(&m); err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("the websocket of an ended session stayed open")
			}
			break
		}
	}
	if _, _, err := open(); !websocket.IsCloseError(err, closeForbidden) {
		t.Errorf("the ended session's cookie opened a websocket: %v, want close %d", err, closeForbidden)
	}
}
