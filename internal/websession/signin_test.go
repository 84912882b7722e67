package websession_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/oidc"
	"manent.dev/manent/internal/websession"
)

// testProvider is an OpenID Connect provider on loopback whose token
// endpoint answers what the test tells it for a code, signed with its own
// key: ID tokens a real provider would never issue (another audience,
// another nonce, expired). It checks PKCE as a provider does.
type testProvider struct {
	srv *httptest.Server
	key *rsa.PrivateKey
	mu  sync.Mutex
	// codes maps a code to the challenge it was issued for and the ID
	// token to answer ("" for none).
	codes map[string]issued
}

type issued struct {
	challenge, idToken string
}

func newTestProvider(t *testing.T) *testProvider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &testProvider{key: key, codes: map[string]issued{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		u := p.srv.URL
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize",
			"token_endpoint": u + "/token", "jwks_uri": u + "/keys", "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		c, ok := p.codes[r.PostFormValue("code")]
		delete(p.codes, r.PostFormValue("code"))
		p.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		w.Header().Set("Content-Type", "application/json")
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		body := map[string]any{"access_token": "opaque", "token_type": "Bearer", "expires_in": 900}
		if c.idToken != "" {
			body["id_token"] = c.idToken
		}
		_ = json.NewEncoder(w).Encode(body)
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *testProvider) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := signer.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *testProvider) issue(code, challenge, idToken string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codes[code] = issued{challenge: challenge, idToken: idToken}
}

const redirect = "http://127.0.0.1:8080/auth/callback"

func TestSignIn(t *testing.T) {
	ctx := context.Background()
	db := database(t)
	clk := &clock{t: time.Now()}
	store := websession.NewStore(db, websession.Options{TTL: time.Hour, IdleTimeout: time.Hour, Now: clk.now})
	idp := newTestProvider(t)
	cfg := config.OIDC{Issuer: idp.srv.URL, ClientID: "manent"}
	cfg.SetDefaults()
	signin := websession.NewSignIn(store, oidc.New(oidc.Options{Config: cfg}))

	// start begins a sign-in and checks what the browser is sent to the
	// provider with.
	start := func(t *testing.T) (state, nonce, challenge, binding string) {
		t.Helper()
		started, err := signin.Start(ctx, redirect, "/deployments?state=ERROR")
		if err != nil {
			t.Fatal(err)
		}
		authURL, binding := started.URL, started.Binding
		u, err := url.Parse(authURL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if !strings.HasPrefix(authURL, idp.srv.URL+"/authorize?") || q.Get("client_id") != "manent" ||
			q.Get("redirect_uri") != redirect || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" {
			t.Fatalf("authorization URL %s", authURL)
		}
		state, nonce, challenge = q.Get("state"), q.Get("nonce"), q.Get("code_challenge")
		if started.State != state {
			t.Fatalf("Start's state %q is not the URL's %q", started.State, state)
		}
		if len(state) < 43 || len(nonce) < 43 || len(challenge) != 43 || state == nonce || binding == "" {
			t.Fatalf("state %q, nonce %q, challenge %q, binding %q: want distinct random values", state, nonce, challenge, binding)
		}
		if strings.Contains(authURL, binding) {
			t.Fatal("the binding of the browser went to the provider")
		}
		return state, nonce, challenge, binding
	}
	claims := func(nonce string) map[string]any {
		return map[string]any{"iss": idp.srv.URL, "aud": "manent", "sub": "u-1", "preferred_username": "alice",
			"groups": []string{"release-managers"}, "nonce": nonce, "iat": time.Now().Unix(), "exp": time.Now().Add(15 * time.Minute).Unix()}
	}
	with := func(c map[string]any, kv ...any) map[string]any {
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(c, kv[i].(string))
			} else {
				c[kv[i].(string)] = kv[i+1]
			}
		}
		return c
	}

	for _, tc := range []struct {
		name string
		// token is the ID token the provider answers for the sign-in's
		// nonce; "" for none.
		token func(t *testing.T, nonce string) string
		// query edits the callback's query.
		query func(q url.Values)
		want  string // a Failure reason, "" for signed in
	}{
		{"a good ID token", func(t *testing.T, n string) string { return idp.sign(t, claims(n)) }, nil, ""},
		{"a tampered ID token", func(t *testing.T, n string) string {
			tok := idp.sign(t, claims(n))
			parts := strings.Split(tok, ".")
			forged, _ := json.Marshal(with(claims(n), "preferred_username", "mallory"))
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(forged) + "." + parts[2]
		}, nil, websession.ReasonRefused},
		{"an expired ID token", func(t *testing.T, n string) string {
			return idp.sign(t, with(claims(n), "exp", time.Now().Add(-time.Hour).Unix(), "iat", time.Now().Add(-2*time.Hour).Unix()))
		}, nil, websession.ReasonRefused},
		{"another audience", func(t *testing.T, n string) string { return idp.sign(t, with(claims(n), "aud", "another-app")) }, nil, websession.ReasonRefused},
		{"another issuer", func(t *testing.T, n string) string {
			return idp.sign(t, with(claims(n), "iss", "https://login.example.com"))
		}, nil, websession.ReasonRefused},
		{"the nonce of another sign-in", func(t *testing.T, _ string) string { return idp.sign(t, claims("another-sign-in")) }, nil, websession.ReasonRefused},
		{"no nonce", func(t *testing.T, _ string) string { return idp.sign(t, with(claims(""), "nonce", nil)) }, nil, websession.ReasonRefused},
		{"a groups overage", func(t *testing.T, n string) string {
			return idp.sign(t, with(claims(n), "groups", nil, "_claim_names", map[string]any{"groups": "src1"}))
		}, nil, websession.ReasonOverage},
		{"no ID token", func(*testing.T, string) string { return "" }, nil, websession.ReasonRefused},
		{"a code the provider did not issue", func(t *testing.T, n string) string { return idp.sign(t, claims(n)) },
			func(q url.Values) { q.Set("code", "made-up") }, websession.ReasonRefused},
		{"the user declined", nil, func(q url.Values) { q.Del("code"); q.Set("error", "access_denied") }, websession.ReasonDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, nonce, challenge, binding := start(t)
			code := "code-" + strings.ReplaceAll(tc.name, " ", "-")
			if tc.token != nil {
				idp.issue(code, challenge, tc.token(t, nonce))
			}
			q := url.Values{"state": {state}, "code": {code}}
			if tc.query != nil {
				tc.query(q)
			}
			id, next, err := signin.Finish(ctx, redirect, q, binding)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Finish: %v", err)
				}
				if id.Subject != "oidc:alice" || len(id.Groups) != 1 || id.Groups[0] != "release-managers" || next != "/deployments?state=ERROR" {
					t.Errorf("signed in %+v, next %q", id, next)
				}
				return
			}
			var f *websession.Failure
			if !errors.As(err, &f) || f.Reason != tc.want {
				t.Fatalf("Finish = %+v, %v; want a %s failure", id, err, tc.want)
			}
			if id.Subject != "" {
				t.Errorf("a refused sign-in returned %+v", id)
			}
		})
	}

	t.Run("a callback used twice", func(t *testing.T) {
		state, nonce, challenge, binding := start(t)
		idp.issue("once", challenge, idp.sign(t, claims(nonce)))
		q := url.Values{"state": {state}, "code": {"once"}}
		if _, _, err := signin.Finish(ctx, redirect, q, binding); err != nil {
			t.Fatal(err)
		}
		// The same URL again, even with a code the provider would take:
		// the state was taken back at the first.
		idp.issue("once", challenge, idp.sign(t, claims(nonce)))
		_, _, err := signin.Finish(ctx, redirect, q, binding)
		var f *websession.Failure
		if !errors.As(err, &f) || f.Reason != websession.ReasonExpired {
			t.Fatalf("second use: %v, want an expired failure", err)
		}
	})

	for _, tc := range []struct {
		name string
		edit func(q url.Values, binding *string)
	}{
		{"a state manent did not issue", func(q url.Values, _ *string) { q.Set("state", "made-up-state") }},
		{"no state", func(q url.Values, _ *string) { q.Del("state") }},
		{"another browser (no binding cookie)", func(_ url.Values, b *string) { *b = "" }},
		{"another browser (its own binding)", func(_ url.Values, b *string) { *b = "another-browser" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state, nonce, challenge, binding := start(t)
			idp.issue("c-"+tc.name, challenge, idp.sign(t, claims(nonce)))
			q := url.Values{"state": {state}, "code": {"c-" + tc.name}}
			tc.edit(q, &binding)
			_, _, err := signin.Finish(ctx, redirect, q, binding)
			var f *websession.Failure
			if !errors.As(err, &f) || f.Reason != websession.ReasonExpired {
				t.Fatalf("Finish: %v, want an expired failure", err)
			}
		})
	}

	// Someone who learnt the victim's state opens the callback in their
	// own browser: refused, and the victim's sign-in still finishes.
	t.Run("a foreign callback leaves the sign-in to its browser", func(t *testing.T) {
		state, nonce, challenge, binding := start(t)
		idp.issue("victim", challenge, idp.sign(t, claims(nonce)))
		for _, foreign := range []string{"", "attacker-binding"} {
			_, _, err := signin.Finish(ctx, redirect, url.Values{"state": {state}, "error": {"access_denied"}}, foreign)
			var f *websession.Failure
			if !errors.As(err, &f) || f.Reason != websession.ReasonExpired {
				t.Fatalf("foreign Finish (binding %q): %v, want an expired failure", foreign, err)
			}
		}
		id, _, err := signin.Finish(ctx, redirect, url.Values{"state": {state}, "code": {"victim"}}, binding)
		if err != nil || id.Subject != "oidc:alice" {
			t.Fatalf("the victim's Finish after a foreign one: %+v, %v", id, err)
		}
	})

	t.Run("a sign-in older than ten minutes", func(t *testing.T) {
		state, nonce, challenge, binding := start(t)
		idp.issue("late", challenge, idp.sign(t, claims(nonce)))
		clk.add(11 * time.Minute)
		defer clk.add(-11 * time.Minute)
		_, _, err := signin.Finish(ctx, redirect, url.Values{"state": {state}, "code": {"late"}}, binding)
		var f *websession.Failure
		if !errors.As(err, &f) || f.Reason != websession.ReasonExpired {
			t.Fatalf("Finish: %v, want an expired failure", err)
		}
	})
}
