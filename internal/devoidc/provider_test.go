package devoidc_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/oidc"
)

func start(t *testing.T, o devoidc.Options) *devoidc.Provider {
	t.Helper()
	p, err := devoidc.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// verifier is manent's side: auth.oidc pointing at the provider.
func verifier(t *testing.T, p *devoidc.Provider) *oidc.Provider {
	t.Helper()
	c := config.OIDC{Issuer: p.Issuer(), ClientID: devoidc.ClientID}
	c.SetDefaults()
	v := oidc.New(oidc.Options{Config: c})
	if err := v.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	return v
}

func password(t *testing.T, p *devoidc.Provider, name string) string {
	t.Helper()
	for _, u := range p.Users() {
		if u.Name == name {
			return u.Password
		}
	}
	t.Fatalf("no user %s", name)
	return ""
}

func tokenError(err error) string {
	var te *devoidc.TokenError
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

// TestDeviceGrant runs the device authorization grant through the
// provider's endpoints: pending until the user answers, slow_down (and 5 s
// more) for a client that polls too soon, then tokens that manent's
// verifier maps to the user's identity and groups, once; a refresh gives
// new ones and uses up the old refresh token; a denial is access_denied,
// an old code expired_token.
func TestDeviceGrant(t *testing.T) {
	ctx := context.Background()
	base := time.Now()
	var elapsed atomic.Int64
	wait := func(d time.Duration) { elapsed.Add(int64(d)) }
	p := start(t, devoidc.Options{Now: func() time.Time { return base.Add(time.Duration(elapsed.Load())) }})
	v := verifier(t, p)

	dc, err := p.StartDevice(ctx, "openid profile email groups offline_access")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := url.Parse(dc.VerificationURI); err != nil || "http://"+u.Host != p.Issuer() || dc.Interval != 5 || dc.UserCode == "" {
		t.Fatalf("device code = %+v", dc)
	}
	poll := func(want string) devoidc.Tokens {
		t.Helper()
		tok, err := p.PollDevice(ctx, dc)
		if tokenError(err) != want || (want == "" && err != nil) {
			t.Fatalf("poll: %v, want %q", err, want)
		}
		return tok
	}
	poll("authorization_pending")
	poll("slow_down") // at once: too soon
	wait(5 * time.Second)
	poll("slow_down") // the interval was 10 s; it is 15 s now
	wait(15 * time.Second)
	poll("authorization_pending")
	if err := p.Verify(ctx, dc, "alice", "wrong", true); err == nil {
		t.Fatal("a wrong password was taken")
	}
	wait(15 * time.Second)
	poll("authorization_pending")
	if err := p.Verify(ctx, dc, "alice", password(t, p, "alice"), true); err != nil {
		t.Fatal(err)
	}
	wait(15 * time.Second)
	tok := poll("")
	for name, raw := range map[string]string{"access token": tok.AccessToken, "ID token": tok.IDToken} {
		id, err := v.Authenticate(ctx, raw)
		if err != nil || id.Subject != "oidc:alice" || !slices.Equal(id.Groups, []string{"release-managers"}) {
			t.Errorf("%s: %+v, %v", name, id, err)
		}
	}
	wait(15 * time.Second)
	if again, err := p.PollDevice(ctx, dc); err == nil || again.AccessToken != "" {
		t.Errorf("a device code gave tokens twice: %v", err)
	}
	if tok.RefreshToken == "" {
		t.Fatal("no refresh token for offline_access")
	}
	next, err := p.Refresh(ctx, tok.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := v.Authenticate(ctx, next.AccessToken); err != nil || id.Subject != "oidc:alice" {
		t.Errorf("refreshed access token: %+v, %v", id, err)
	}
	if _, err := p.Refresh(ctx, tok.RefreshToken); tokenError(err) != "invalid_grant" {
		t.Errorf("a used refresh token: %v", err)
	}

	denied, err := p.StartDevice(ctx, "openid")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(ctx, denied, "bob", password(t, p, "bob"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PollDevice(ctx, denied); tokenError(err) != "access_denied" {
		t.Errorf("denied: %v", err)
	}

	short := start(t, devoidc.Options{DeviceLifetime: time.Nanosecond})
	old, err := short.StartDevice(ctx, "openid")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := short.PollDevice(ctx, old); tokenError(err) != "expired_token" {
		t.Errorf("expired: %v", err)
	}
	if err := short.Verify(ctx, old, "carol", password(t, short, "carol"), true); err == nil {
		t.Error("an expired code was signed in")
	}
}

// TestCodeFlowWithPKCE runs the authorization code flow as a browser
// would, redirect by redirect: the code is exchanged only with the PKCE
// verifier, once, and the ID token carries the nonce sent.
func TestCodeFlowWithPKCE(t *testing.T) {
	ctx := context.Background()
	p := start(t, devoidc.Options{})
	v := verifier(t, p)
	cfg, err := v.OAuth2Config(ctx, "http://127.0.0.1:45678/auth/callback")
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := func(method, target string, form url.Values) *url.URL {
		t.Helper()
		var resp *http.Response
		var err error
		if method == http.MethodPost {
			resp, err = browser.PostForm(target, form)
		} else {
			resp, err = browser.Get(target)
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		loc, err := resp.Location()
		if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther || err != nil {
			t.Fatalf("%s %s: %s, want a redirect", method, target, resp.Status)
		}
		return loc
	}
	signIn := func(user, pass string) *url.URL {
		t.Helper()
		verifierText := oauth2.GenerateVerifier()
		login := next(http.MethodGet, cfg.AuthCodeURL("state-1", oauth2.S256ChallengeOption(verifierText),
			oauth2.SetAuthURLParam("nonce", "nonce-1")), nil)
		if login.Path != "/login" {
			t.Fatalf("authorize sent to %s, want the login page", login)
		}
		resp, err := browser.PostForm(p.Issuer()+"/login", url.Values{"authRequestID": {login.Query().Get("authRequestID")},
			"username": {user}, "password": {pass}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			return nil
		}
		loc, _ := resp.Location()
		back := next(http.MethodGet, loc.String(), nil)
		q := back.Query()
		if back.Host != "127.0.0.1:45678" || q.Get("state") != "state-1" || q.Get("code") == "" {
			t.Fatalf("redirected to %s", back)
		}
		back.Fragment = verifierText // carried to the exchange below
		return back
	}
	if signIn("carol", "wrong") != nil {
		t.Fatal("a wrong password signed in")
	}
	back := signIn("carol", password(t, p, "carol"))
	code := back.Query().Get("code")
	if _, err := cfg.Exchange(ctx, code); err == nil {
		t.Fatal("the code was exchanged without the PKCE verifier")
	}
	back = signIn("carol", password(t, p, "carol"))
	code = back.Query().Get("code")
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(back.Fragment))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	vt, err := v.VerifyIDToken(ctx, raw, "nonce-1")
	if err != nil || vt.Identity.Subject != "oidc:carol" || !slices.Equal(vt.Identity.Groups, []string{"viewers"}) || vt.Nonce != "nonce-1" {
		t.Fatalf("ID token: %+v, %v", vt, err)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(back.Fragment)); err == nil {
		t.Error("a code was exchanged twice")
	}
}

// TestExtraClaims: a test can make the provider send an overage.
func TestExtraClaims(t *testing.T) {
	ctx := context.Background()
	p := start(t, devoidc.Options{ExtraClaims: map[string]map[string]any{
		"alice": {"groups": nil, "_claim_names": map[string]any{"groups": "src1"},
			"_claim_sources": map[string]any{"src1": map[string]any{"endpoint": "https://graph.example.com/"}}}}})
	tok, err := p.SignIn(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifier(t, p).Authenticate(ctx, tok.AccessToken); err == nil || !strings.Contains(err.Error(), "left out") {
		t.Errorf("overage: %v", err)
	}
}

func TestStartOnLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "localhost"} {
		if p, err := devoidc.Start(devoidc.Options{Listen: addr}); err == nil {
			_ = p.Close()
			t.Errorf("%s: started", addr)
		}
	}
}
