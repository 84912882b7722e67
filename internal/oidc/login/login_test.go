package login_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/oidc/login"
)

// clock is the time of a test: the CLI's waits advance it instead of
// passing, and the development provider paces its device polls by it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func startIDP(t *testing.T, o devoidc.Options) *devoidc.Provider {
	t.Helper()
	idp, err := devoidc.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	return idp
}

func settings(issuer string) login.Settings {
	return login.Settings{Issuer: issuer, ClientID: devoidc.ClientID, Scopes: []string{"openid", "profile", "groups"},
		Audiences: []string{devoidc.ClientID}}
}

func discover(t *testing.T, idp *devoidc.Provider, now func() time.Time) *login.Provider {
	t.Helper()
	p, err := login.Discover(context.Background(), settings(idp.Issuer()), nil, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func password(t *testing.T, idp *devoidc.Provider, name string) string {
	t.Helper()
	for _, u := range idp.Users() {
		if u.Name == name {
			return u.Password
		}
	}
	t.Fatalf("no user %s", name)
	return ""
}

// TestDevice runs the device grant against the development provider, with
// the waits recorded rather than slept: the user approves after a few
// polls (authorization_pending until then), the provider slows a client
// down that polls early (slow_down: 5 s more for every later poll),
// the user denies (access_denied), the code expires at the provider
// (expired_token) or on the CLI's clock before anyone approved.
func TestDevice(t *testing.T) {
	tests := []struct {
		name     string
		lifetime time.Duration
		// step is what happens during the n-th wait (from 0), after the
		// clock advanced: the test plays the user.
		step func(n int, approve func(allow bool), c *clock, d time.Duration)
		// early makes the n-th wait end 1 s before the interval.
		early     int
		wantWaits []time.Duration
		wantErr   error
	}{
		{name: "pending, then approved", early: -1,
			step: func(n int, approve func(bool), _ *clock, _ time.Duration) {
				if n == 2 {
					approve(true)
				}
			},
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second}},
		{name: "slow_down adds 5 s to this and every later wait", early: 1,
			step: func(n int, approve func(bool), _ *clock, _ time.Duration) {
				if n == 3 {
					approve(true)
				}
			},
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second, 10 * time.Second}},
		{name: "denied", early: -1,
			step: func(n int, approve func(bool), _ *clock, _ time.Duration) {
				if n == 1 {
					approve(false)
				}
			},
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second}, wantErr: login.ErrDenied},
		{name: "expired at the provider", early: -1, lifetime: time.Nanosecond,
			step:      func(int, func(bool), *clock, time.Duration) {},
			wantWaits: []time.Duration{5 * time.Second}, wantErr: login.ErrExpired},
		{name: "expired on the CLI's clock", early: -1,
			step: func(n int, _ func(bool), c *clock, _ time.Duration) {
				if n == 1 {
					c.Advance(10 * time.Minute)
				}
			},
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second}, wantErr: login.ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			idp := startIDP(t, devoidc.Options{Now: c.Now, DeviceLifetime: tt.lifetime})
			p := discover(t, idp, c.Now)
			var prompt login.Prompt
			var waits []time.Duration
			ctx := context.Background()
			approve := func(allow bool) {
				dc := devoidc.DeviceCode{UserCode: prompt.UserCode, VerificationURI: prompt.URL}
				if err := idp.Verify(ctx, dc, "alice", password(t, idp, "alice"), allow); err != nil {
					t.Errorf("verify: %v", err)
				}
			}
			tok, err := p.Device(ctx, login.Flow{
				Prompt: func(pr login.Prompt) error { prompt = pr; return nil },
				Sleep: func(_ context.Context, d time.Duration) error {
					n := len(waits)
					waits = append(waits, d)
					if n == tt.early {
						d -= time.Second
					}
					c.Advance(d)
					tt.step(n, approve, c, d)
					return nil
				},
			})
			if !strings.HasPrefix(prompt.URL, idp.Issuer()+"/") || prompt.UserCode == "" {
				t.Errorf("prompt = %+v", prompt)
			}
			if !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || tok != nil {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tok.Bearer() != tok.AccessToken || tok.IDToken == "" || tok.RefreshToken == "" || tok.Issuer != idp.Issuer() ||
				!tok.AccessTokenExpiry.After(c.Now()) {
				t.Fatalf("tokens = %+v", tok)
			}
		})
	}
}

// TestDeviceVerificationHost: a verification address that is not on the
// issuer's host is never shown (it could be a look-alike page that phishes
// the password). The development provider always answers its own
// address, so a provider of the test answers another one.
func TestDeviceVerificationHost(t *testing.T) {
	tests := []struct {
		name, uri, complete string
	}{
		{name: "another host", uri: "https://login.example.net/device"},
		{name: "the issuer's name in the user part", uri: "http://127.0.0.1@login.example.net/device"},
		{name: "a complete URI on another host", uri: "{issuer}/device", complete: "https://login.example.net/device?user_code=ABCD"},
		{name: "not a URL", uri: "javascript:alert(1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var issuer string
			polled := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/.well-known/openid-configuration":
					_ = json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize",
						"token_endpoint": issuer + "/token", "jwks_uri": issuer + "/keys", "device_authorization_endpoint": issuer + "/device_authorization"})
				case "/device_authorization":
					_ = json.NewEncoder(w).Encode(map[string]any{"device_code": "dc", "user_code": "ABCD",
						"verification_uri": strings.ReplaceAll(tt.uri, "{issuer}", issuer), "verification_uri_complete": tt.complete,
						"expires_in": 600, "interval": 5})
				default:
					polled = true
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			issuer = srv.URL
			p, err := login.Discover(context.Background(), settings(issuer), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			shown := false
			_, err = p.Device(context.Background(), login.Flow{
				Prompt: func(login.Prompt) error { shown = true; return nil },
				Sleep:  func(context.Context, time.Duration) error { return nil },
			})
			var vh *login.VerificationHostError
			if !errors.As(err, &vh) || shown || polled {
				t.Fatalf("err = %v (shown %v, polled %v), want a VerificationHostError before anything is shown", err, shown, polled)
			}
			if !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("the message names no issuer host: %v", err)
			}
		})
	}
}

// TestDiscoverIssuerMismatch: a discovery document that names another
// issuer than the server's settings is refused.
func TestDiscoverIssuerMismatch(t *testing.T) {
	idp := startIDP(t, devoidc.Options{})
	u, _ := url.Parse(idp.Issuer())
	other := "http://localhost:" + u.Port() // the same provider, under another name
	if _, err := login.Discover(context.Background(), settings(other), nil, nil); err == nil ||
		!strings.Contains(err.Error(), "issuer") {
		t.Fatalf("err = %v, want the issuer mismatch", err)
	}
}

// browser plays a person at the development provider's sign-in page: it
// follows the redirects of the authorization URL to the page, signs in,
// and follows the provider's redirect to the loopback callback.
func browser(t *testing.T, idp *devoidc.Provider, authURL, user string) (status int, at *url.URL, page string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := hc.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	id := resp.Request.URL.Query().Get("authRequestID")
	if id == "" {
		t.Fatalf("the authorization URL led to %s", resp.Request.URL)
	}
	resp, err = hc.PostForm(resp.Request.URL.String(), url.Values{"authRequestID": {id}, "username": {user}, "password": {password(t, idp, user)}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, resp.Request.URL, b.String()
}

// TestAuthCode runs the authorization code flow with PKCE through the
// development provider's sign-in page and the CLI's loopback callback; a
// callback without the flow's state is ignored, and an error of the
// provider ends the flow.
func TestAuthCode(t *testing.T) {
	idp := startIDP(t, devoidc.Options{})
	p := discover(t, idp, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var page string
	tok, err := p.AuthCode(ctx, login.Flow{Prompt: func(pr login.Prompt) error {
		u, err := url.Parse(pr.URL)
		if err != nil || !strings.HasPrefix(pr.URL, idp.Issuer()+"/") || u.Query().Get("code_challenge_method") != "S256" ||
			u.Query().Get("state") == "" || u.Query().Get("nonce") == "" {
			t.Errorf("authorization URL %s", pr.URL)
		}
		redirect, _ := url.Parse(u.Query().Get("redirect_uri"))
		// Another page of the machine calling the port is not the answer.
		forged := redirect.String() + "?state=forged&code=made-up"
		resp, err := http.Get(forged)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("a callback with another state: %s", resp.Status)
		}
		var status int
		var at *url.URL
		status, at, page = browser(t, idp, pr.URL, "bob")
		if status != http.StatusOK || at.Host != redirect.Host {
			t.Errorf("the browser ended at %s: %d", at, status)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "Signed in") {
		t.Errorf("callback page: %s", page)
	}
	if tok.IDToken == "" || tok.RefreshToken == "" || tok.Bearer() == "" {
		t.Fatalf("tokens = %+v", tok)
	}

	_, err = p.AuthCode(ctx, login.Flow{Prompt: func(pr login.Prompt) error {
		u, _ := url.Parse(pr.URL)
		q := u.Query()
		resp, err := http.Get(q.Get("redirect_uri") + "?error=access_denied&state=" + url.QueryEscape(q.Get("state")))
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}})
	if !errors.Is(err, login.ErrDenied) {
		t.Fatalf("denied: err = %v", err)
	}
}

// TestStoreFile: the token file is 0600 in a directory made 0700 (or made
// private if it was not), one per server; a file others may read is
// refused; Remove deletes it.
func TestStoreFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "manent")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := login.Store{Dir: dir}
	a := &login.Tokens{Server: "http://a.example.com:8080", AccessToken: "a"}
	b := &login.Tokens{Server: "https://b.example.com", AccessToken: "b"}
	for _, tok := range []*login.Tokens{a, b} {
		if err := s.Save(tok); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("directory: %v %v", st.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	files := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			files++
			info, _ := e.Info()
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v", e.Name(), info.Mode())
			}
		} else {
			t.Errorf("left in the directory: %s", e.Name())
		}
	}
	if files != 2 {
		t.Fatalf("%d files for two servers", files)
	}
	got, err := s.Load("http://a.example.com:8080/")
	if err != nil || got.AccessToken != "a" {
		t.Fatalf("load a: %+v %v", got, err)
	}
	if err := os.Chmod(s.Path(b.Server), 0o644); err != nil {
		t.Fatal(err)
	}
	var insecure *login.InsecureFileError
	if _, err := s.Load(b.Server); !errors.As(err, &insecure) || !strings.Contains(err.Error(), "0644") {
		t.Fatalf("a file others may read: %v", err)
	}
	for _, srv := range []string{a.Server, b.Server} {
		if removed, err := s.Remove(srv); err != nil || !removed {
			t.Fatalf("remove %s: %v %v", srv, removed, err)
		}
		if _, err := s.Load(srv); !errors.Is(err, login.ErrNotSignedIn) {
			t.Fatalf("after remove: %v", err)
		}
	}
	if removed, err := s.Remove(a.Server); err != nil || removed {
		t.Fatalf("remove again: %v %v", removed, err)
	}
}

// TestRefresh: an expired access token is refreshed through the provider
// and the new tokens, with the new refresh token, are stored at once; the
// provider's refresh tokens are single-use, so two runs of the CLI that
// refresh together must not both spend the same one: the lock makes the
// second use the first one's result. A revoked login must sign in again.
func TestRefresh(t *testing.T) {
	idp := startIDP(t, devoidc.Options{})
	ctx := context.Background()
	c := newClock()
	p := discover(t, idp, c.Now)
	tok, err := p.Device(ctx, login.Flow{Prompt: func(pr login.Prompt) error {
		return idp.Verify(ctx, devoidc.DeviceCode{UserCode: pr.UserCode, VerificationURI: pr.URL}, "carol", password(t, idp, "carol"), true)
	}, Sleep: func(_ context.Context, d time.Duration) error { c.Advance(d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	tok.Server = "http://manent.example.com"
	s := login.Store{Dir: filepath.Join(t.TempDir(), "manent")}
	if err := s.Save(tok); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Current(ctx, tok.Server, nil, nil); err != nil || got.AccessToken != tok.AccessToken {
		t.Fatalf("a fresh login is not refreshed: %v", err)
	}
	expired := *tok
	expired.AccessTokenExpiry = time.Now().Add(-time.Minute)
	if err := s.Save(&expired); err != nil {
		t.Fatal(err)
	}

	const runs = 4
	got := make([]*login.Tokens, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { got[i], errs[i] = s.Current(ctx, tok.Server, nil, nil) })
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if got[i].AccessToken == tok.AccessToken || got[i].RefreshToken == tok.RefreshToken ||
			got[i].RefreshToken != got[0].RefreshToken || !got[i].AccessTokenExpiry.After(time.Now()) {
			t.Fatalf("run %d: not the one refresh: %+v", i, got[i])
		}
	}
	stored, err := s.Load(tok.Server)
	if err != nil || stored.RefreshToken != got[0].RefreshToken {
		t.Fatalf("stored: %+v %v", stored, err)
	}
	// The old refresh token was spent.
	if _, err := p.Refresh(ctx, tok); !errors.Is(err, login.ErrSignInAgain) {
		t.Fatalf("the spent refresh token: %v", err)
	}
	if revoked, err := p.Revoke(ctx, stored); err != nil || !revoked {
		t.Fatalf("revoke: %v %v", revoked, err)
	}
	if _, err := p.Refresh(ctx, stored); !errors.Is(err, login.ErrSignInAgain) {
		t.Fatalf("the revoked refresh token: %v", err)
	}
}
