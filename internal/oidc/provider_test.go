package oidc_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/oidc"
)

// issuer is an OIDC provider on loopback whose keys the test holds, so
// that it can sign what a real provider never would.
type issuer struct {
	srv       *httptest.Server
	key       *rsa.PrivateKey
	kid       string
	down      atomic.Bool
	keysDown  atomic.Bool
	discovery atomic.Int32
	jwks      atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &issuer{key: key, kid: "k1"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		iss.discovery.Add(1)
		if iss.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		u := iss.srv.URL
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"device_authorization_endpoint": u + "/device_authorization", "jwks_uri": u + "/keys",
			"id_token_signing_alg_values_supported": []string{"RS256", "HS256", "none"},
		})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		iss.jwks.Add(1)
		if iss.keysDown.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
			{Key: &iss.key.PublicKey, KeyID: iss.kid, Algorithm: "RS256", Use: "sig"}}})
	})
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	return iss
}

func (i *issuer) claims(user string, groups ...string) map[string]any {
	now := time.Now()
	g := make([]any, len(groups))
	for n, v := range groups {
		g[n] = v
	}
	return map[string]any{"iss": i.srv.URL, "aud": "manent", "sub": "u-" + user, "preferred_username": user,
		"groups": g, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
}

func sign(t *testing.T, key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (i *issuer) sign(t *testing.T, claims map[string]any) string {
	return sign(t, i.key, jose.RS256, i.kid, claims)
}

// unsigned is a JWT with alg none.
func unsigned(claims map[string]any) string {
	h, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT"})
	p, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p) + "."
}

func provider(t *testing.T, iss *issuer, edit func(*config.OIDC)) *oidc.Provider {
	t.Helper()
	c := config.OIDC{Issuer: iss.srv.URL, ClientID: "manent"}
	c.SetDefaults()
	if edit != nil {
		edit(&c)
	}
	return oidc.New(oidc.Options{Config: c})
}

func with(c map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

func TestAuthenticate(t *testing.T) {
	iss := newIssuer(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	alice := iss.claims("alice", "release-managers", "Release Managers")
	valid := iss.sign(t, alice)
	parts := strings.Split(valid, ".")
	forgedGroups, _ := json.Marshal(with(alice, "groups", []any{"admins"}))
	hour := time.Hour
	tests := []struct {
		name   string
		token  string
		edit   func(*config.OIDC)
		code   deploy.Code
		msg    string // in the message when refused
		want   deploy.Identity
		noKeys bool // refused before the keys are fetched
	}{
		{name: "valid", token: valid,
			want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "Release Managers"}}},
		{name: "user from sub", token: valid, edit: func(c *config.OIDC) { c.UserClaim = "sub" },
			want: deploy.Identity{Subject: "oidc:u-alice", Groups: []string{"release-managers", "Release Managers"}}},
		{name: "no groups claim", token: iss.sign(t, with(alice, "groups", nil)), want: deploy.Identity{Subject: "oidc:alice"}},
		{name: "groups under another claim", token: iss.sign(t, with(alice, "roles", []any{"viewers"})),
			edit: func(c *config.OIDC) { c.GroupsClaim = "roles" }, want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"viewers"}}},
		{name: "audience among several", token: iss.sign(t, with(alice, "aud", []any{"other", "manent-cli"}, "azp", "manent-cli")),
			edit: func(c *config.OIDC) { c.Audiences = []string{"manent-cli"} }, want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "Release Managers"}}},
		{name: "several audiences, azp the client ID", token: iss.sign(t, with(alice, "aud", []any{"manent", "account"}, "azp", "manent")),
			want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "Release Managers"}}},
		{name: "several audiences without azp", token: iss.sign(t, with(alice, "aud", []any{"other", "manent-cli"})),
			edit: func(c *config.OIDC) { c.Audiences = []string{"manent-cli"} }, code: deploy.EUNAUTHENTICATED, msg: "azp"},
		{name: "several audiences, azp another client", token: iss.sign(t, with(alice, "aud", []any{"other", "manent"}, "azp", "other")),
			code: deploy.EUNAUTHENTICATED, msg: "azp"},
		{name: "one audience in a list, another azp", token: iss.sign(t, with(alice, "aud", []any{"manent"}, "azp", "other")),
			want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "Release Managers"}}},
		{name: "expired within the leeway", token: iss.sign(t, with(alice, "exp", time.Now().Add(-oidc.Leeway/2).Unix())),
			want: deploy.Identity{Subject: "oidc:alice", Groups: []string{"release-managers", "Release Managers"}}},

		{name: "not a JWT", token: "demo-admin", code: deploy.EUNAUTHENTICATED, msg: "invalid token", noKeys: true},
		{name: "two segments", token: parts[0] + "." + parts[1], code: deploy.EUNAUTHENTICATED, msg: "invalid token", noKeys: true},
		{name: "tampered signature", token: parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])),
			code: deploy.EUNAUTHENTICATED, msg: "signature does not verify"},
		{name: "tampered claims", token: parts[0] + "." + base64.RawURLEncoding.EncodeToString(forgedGroups) + "." + parts[2],
			code: deploy.EUNAUTHENTICATED, msg: "signature does not verify"},
		{name: "another key with the same kid", token: sign(t, other, jose.RS256, iss.kid, alice),
			code: deploy.EUNAUTHENTICATED, msg: "signature does not verify"},
		{name: "alg none", token: unsigned(alice), code: deploy.EUNAUTHENTICATED, msg: "algorithm", noKeys: true},
		{name: "HS256 with the public key as secret", token: sign(t, []byte("a shared secret of 32 bytes long!"), jose.HS256, iss.kid, alice),
			code: deploy.EUNAUTHENTICATED, msg: "algorithm", noKeys: true},
		{name: "algorithm the configuration leaves out", token: valid, edit: func(c *config.OIDC) { c.AllowedAlgorithms = []string{"ES256"} },
			code: deploy.EUNAUTHENTICATED, msg: "algorithm", noKeys: true},
		{name: "expired", token: iss.sign(t, with(alice, "exp", time.Now().Add(-hour).Unix())), code: deploy.EUNAUTHENTICATED, msg: "token expired"},
		{name: "no expiry", token: iss.sign(t, with(alice, "exp", nil)), code: deploy.EUNAUTHENTICATED, msg: "no expiry"},
		{name: "not valid yet", token: iss.sign(t, with(alice, "nbf", time.Now().Add(hour).Unix())), code: deploy.EUNAUTHENTICATED, msg: "not valid yet"},
		{name: "wrong audience", token: iss.sign(t, with(alice, "aud", "another-app")), code: deploy.EUNAUTHENTICATED, msg: "audience"},
		{name: "client ID when audiences are set", token: valid, edit: func(c *config.OIDC) { c.Audiences = []string{"manent-cli"} },
			code: deploy.EUNAUTHENTICATED, msg: "audience"},
		{name: "wrong issuer", token: iss.sign(t, with(alice, "iss", "https://evil.example.com")),
			code: deploy.EUNAUTHENTICATED, msg: "not issued by the identity provider", noKeys: true},
		{name: "overage by _claim_names", token: iss.sign(t, with(alice, "groups", nil,
			"_claim_names", map[string]any{"groups": "src1"},
			"_claim_sources", map[string]any{"src1": map[string]any{"endpoint": "https://graph.example.com/getMemberObjects"}})),
			code: deploy.EGROUPSOVERAGE, msg: "left out the groups claim"},
		{name: "overage without its source", token: iss.sign(t, with(alice, "groups", nil, "_claim_names", map[string]any{"groups": "src1"})),
			code: deploy.EGROUPSOVERAGE, msg: "left out"},
		{name: "overage by hasgroups", token: iss.sign(t, with(alice, "groups", nil, "hasgroups", true)), code: deploy.EGROUPSOVERAGE},
		{name: "overage of a configured claim", token: iss.sign(t, with(alice, "_claim_names", map[string]any{"roles": "src1"},
			"_claim_sources", map[string]any{"src1": map[string]any{"endpoint": "https://graph.example.com/"}})),
			edit: func(c *config.OIDC) { c.GroupsClaim = "roles" }, code: deploy.EGROUPSOVERAGE, msg: "left out the roles claim"},
		{name: "groups as one string", token: iss.sign(t, with(alice, "groups", "release-managers")),
			code: deploy.EUNAUTHENTICATED, msg: "must be a list of group names"},
		{name: "groups with a number", token: iss.sign(t, with(alice, "groups", []any{"a", 7})),
			code: deploy.EUNAUTHENTICATED, msg: "entry 1 is not text"},
		{name: "group with a comma", token: iss.sign(t, with(alice, "groups", []any{"a,admin"})),
			code: deploy.EUNAUTHENTICATED, msg: "RBAC policies cannot name"},
		{name: "no user claim", token: iss.sign(t, with(alice, "preferred_username", nil)),
			code: deploy.EUNAUTHENTICATED, msg: "no preferred_username claim"},
		{name: "user claim not text", token: iss.sign(t, with(alice, "preferred_username", 42)),
			code: deploy.EUNAUTHENTICATED, msg: "no preferred_username claim"},
		{name: "empty user", token: iss.sign(t, with(alice, "preferred_username", "")), code: deploy.EUNAUTHENTICATED, msg: "it is empty"},
		{name: "user with an escape", token: iss.sign(t, with(alice, "preferred_username", "alice\x1b[2J")),
			code: deploy.EUNAUTHENTICATED, msg: "U+001B"},
		{name: "user with a bidi control", token: iss.sign(t, with(alice, "preferred_username", "alice\u202e")),
			code: deploy.EUNAUTHENTICATED, msg: "U+202E"},
		{name: "user with a space", token: iss.sign(t, with(alice, "preferred_username", "alice admin")),
			code: deploy.EUNAUTHENTICATED, msg: "space"},
		{name: "user with a comma", token: iss.sign(t, with(alice, "preferred_username", "alice,admin")),
			code: deploy.EUNAUTHENTICATED, msg: "RBAC policies cannot name"},
		{name: "user too long", token: iss.sign(t, with(alice, "preferred_username", strings.Repeat("a", 257))),
			code: deploy.EUNAUTHENTICATED, msg: "longer than 256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := provider(t, iss, tt.edit)
			keysBefore := iss.jwks.Load()
			id, err := p.Authenticate(context.Background(), tt.token)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if id.Subject != tt.want.Subject || !slices.Equal(id.Groups, tt.want.Groups) {
					t.Fatalf("identity = %+v, want %+v", id, tt.want)
				}
				return
			}
			if deploy.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v (%s), want %s with %q", err, deploy.ErrorCode(err), tt.code, tt.msg)
			}
			if len(tt.token) > 20 && strings.Contains(err.Error(), tt.token[len(tt.token)-20:]) {
				t.Errorf("the message shows the token: %v", err)
			}
			if tt.noKeys && iss.jwks.Load() != keysBefore {
				t.Errorf("the keys were fetched for a token refused before its signature")
			}
		})
	}
}

// TestNotAJWTStaysLocal: a string that is not a JWT of the provider is
// refused without a call to the provider, not even its discovery.
func TestNotAJWTStaysLocal(t *testing.T) {
	iss := newIssuer(t)
	p := provider(t, iss, nil)
	for _, tok := range []string{"demo-admin", "a.b.c", strings.Repeat("x", 70000), unsigned(iss.claims("alice"))} {
		if _, err := p.Authenticate(context.Background(), tok); deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED {
			t.Errorf("%.20q: err = %v", tok, err)
		}
	}
	if n := iss.discovery.Load() + iss.jwks.Load(); n != 0 {
		t.Errorf("%d calls to the provider", n)
	}
}

// TestDiscoveryAfterAnOutage: a provider down at start does not stop
// manent; its tokens fail as internal errors (not as bad tokens, which
// would send users to sign in again) until it answers.
func TestDiscoveryAfterAnOutage(t *testing.T) {
	iss := newIssuer(t)
	iss.down.Store(true)
	p := provider(t, iss, nil)
	ctx := context.Background()
	if err := p.Discover(ctx); err == nil || !strings.Contains(err.Error(), iss.srv.URL) {
		t.Fatalf("Discover of a provider that is down: %v", err)
	}
	token := iss.sign(t, iss.claims("alice"))
	if _, err := p.Authenticate(ctx, token); err == nil || deploy.ErrorCode(err) != deploy.EINTERNAL {
		t.Fatalf("while down: err = %v, want an internal error", err)
	}
	iss.down.Store(false)
	if err := p.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if id, err := p.Authenticate(ctx, token); err != nil || id.Subject != "oidc:alice" {
		t.Fatalf("after the outage: %+v %v", id, err)
	}
	ep, err := p.Endpoint(ctx)
	if err != nil || ep.DeviceAuthURL != iss.srv.URL+"/device_authorization" || ep.TokenURL != iss.srv.URL+"/token" {
		t.Errorf("endpoint = %+v, %v", ep, err)
	}
}

// TestKeyFetches: the provider's keys are fetched once and kept; a key ID
// manent does not know makes it fetch them again (the provider rotated its
// keys), but at most every 30 s, so that made-up key IDs cannot make it
// hammer the provider; keys that cannot be fetched are an internal error,
// not a bad token.
func TestKeyFetches(t *testing.T) {
	iss := newIssuer(t)
	var clock atomic.Int64
	clock.Store(time.Now().Unix())
	c := config.OIDC{Issuer: iss.srv.URL, ClientID: "manent"}
	c.SetDefaults()
	p := oidc.New(oidc.Options{Config: c, Now: func() time.Time { return time.Unix(clock.Load(), 0) }})
	ctx := context.Background()
	alice := iss.claims("alice")
	for range 3 {
		if _, err := p.Authenticate(ctx, iss.sign(t, alice)); err != nil {
			t.Fatal(err)
		}
	}
	if n := iss.jwks.Load(); n != 1 {
		t.Fatalf("%d key fetches for three tokens, want 1", n)
	}
	rotated, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		_, err := p.Authenticate(ctx, sign(t, rotated, jose.RS256, fmt.Sprintf("made-up-%d", i), alice))
		if deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED || !strings.Contains(err.Error(), "signature") {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if n := iss.jwks.Load(); n != 1 {
		t.Errorf("%d key fetches after a burst of unknown key IDs right after a fetch, want 1", n)
	}
	// The provider rotates: its new key is fetched once 30 s have passed.
	iss.key, iss.kid = rotated, "k2"
	clock.Add(31)
	for range 3 {
		if _, err := p.Authenticate(ctx, iss.sign(t, alice)); err != nil {
			t.Fatalf("a token under the new key: %v", err)
		}
	}
	if n := iss.jwks.Load(); n != 2 {
		t.Errorf("%d key fetches after a rotation, want 2", n)
	}

	down := newIssuer(t)
	down.keysDown.Store(true)
	_, err = provider(t, down, nil).Authenticate(ctx, down.sign(t, down.claims("alice")))
	if err == nil || deploy.ErrorCode(err) != deploy.EINTERNAL {
		t.Errorf("keys unavailable: %v, want an internal error", err)
	}
}

// TestVerifyIDToken: the ID token of manent's own sign-in must carry the
// nonce the flow sent and the client ID itself among its audiences.
func TestVerifyIDToken(t *testing.T) {
	iss := newIssuer(t)
	p := provider(t, iss, func(c *config.OIDC) { c.Audiences = []string{"api://manent"} })
	ctx := context.Background()
	idToken := iss.sign(t, with(iss.claims("alice"), "nonce", "n-1"))
	if tok, err := p.VerifyIDToken(ctx, idToken, "n-1"); err != nil || tok.Identity.Subject != "oidc:alice" || tok.Nonce != "n-1" {
		t.Fatalf("the sign-in's own ID token: %+v %v", tok, err)
	}
	tests := []struct {
		name, token, nonce, msg string
	}{
		{"replayed into another sign-in", idToken, "n-2", "nonce"},
		{"no nonce expected", idToken, "", "nonce"},
		{"no nonce in the token", iss.sign(t, iss.claims("alice")), "n-1", "nonce"},
		{"issued for the API, not the client", iss.sign(t, with(iss.claims("alice"), "nonce", "n-1", "aud", "api://manent")), "n-1", "audience"},
		{"expired", iss.sign(t, with(iss.claims("alice"), "nonce", "n-1", "exp", time.Now().Add(-time.Hour).Unix())), "n-1", "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := p.VerifyIDToken(ctx, tt.token, tt.nonce); deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want UNAUTHENTICATED with %q", err, tt.msg)
			}
		})
	}
	// As a bearer token, the API's audience is the one allowed.
	if _, err := p.Authenticate(ctx, idToken); deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED {
		t.Errorf("an ID token for the client as a bearer token when audiences name the API only: %v", err)
	}
}
