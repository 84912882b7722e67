package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/pgtest"
)

// oidcConfig is demoConfig with auth.oidc pointing at issuer and the
// groups of the development provider's users in the policy.
func oidcConfig(t *testing.T, issuer string) string {
	t.Helper()
	path, _ := demoConfig(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "auth:\n", fmt.Sprintf("auth:\n  oidc: {issuer: %q, client_id: manent}\n", issuer), 1)
	text = strings.Replace(text, "    p, token:admin, *, *, admin\n", `    p, token:admin, *, *, admin
    p, group:release-managers, demo, *, deployment.submit
    p, group:release-managers, demo, *, deployment.read
    p, group:viewers, demo, *, deployment.read
`, 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOIDCBearerTokens signs users in at the development provider through
// its device grant and sends their tokens to a whole server: the groups of
// the token decide what Casbin allows, over REST and GraphQL alike; an
// overage is GROUPS_OVERAGE; a forged or foreign token is refused; static
// tokens keep working beside OIDC.
func TestOIDCBearerTokens(t *testing.T) {
	ctx := context.Background()
	users := append(devoidc.DemoUsers(), devoidc.User{Name: "dave", Subject: "u-1004", Password: "dave-pw", Groups: []string{"release-managers"}})
	idp, err := devoidc.Start(devoidc.Options{Users: users, ExtraClaims: map[string]map[string]any{
		"dave": {"groups": nil, "_claim_names": map[string]any{"groups": "src1"},
			"_claim_sources": map[string]any{"src1": map[string]any{"endpoint": "https://graph.example.com/"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	foreign, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = foreign.Close() })
	srv := startServer(t, oidcConfig(t, idp.Issuer()))

	token := func(p *devoidc.Provider, user string) string {
		t.Helper()
		tok, err := p.SignIn(ctx, user)
		if err != nil {
			t.Fatalf("sign in %s: %v", user, err)
		}
		return tok.AccessToken
	}
	alice, carol, dave := token(idp, "alice"), token(idp, "carol"), token(idp, "dave")
	bobID, err := idp.SignIn(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	tampered := alice[:len(alice)-8] + "AAAAAAAA"
	if tampered == alice {
		tampered = alice[:len(alice)-8] + "BBBBBBBB"
	}

	plan := fmt.Sprintf(helloDescriptor, "o-1")
	tests := []struct {
		name, token string
		status      int
		code        deploy.Code
		subject     string // of the viewer query, when allowed
	}{
		{"release manager plans", alice, http.StatusOK, "", "oidc:alice"},
		{"ID token", bobID.IDToken, http.StatusForbidden, deploy.EFORBIDDEN, "oidc:bob"},
		{"viewer plans", carol, http.StatusForbidden, deploy.EFORBIDDEN, "oidc:carol"},
		{"groups overage", dave, http.StatusForbidden, deploy.EGROUPSOVERAGE, ""},
		{"tampered signature", tampered, http.StatusUnauthorized, deploy.EUNAUTHENTICATED, ""},
		{"another provider's token", token(foreign, "alice"), http.StatusUnauthorized, deploy.EUNAUTHENTICATED, ""},
		{"static token", demoTokens["ci"], http.StatusOK, "", "token:ci"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments/plan", tt.token, plan)
			var e restError
			if resp.StatusCode != tt.status || (tt.code != "" && (json.Unmarshal(body, &e) != nil || e.Error.Code != tt.code)) {
				t.Fatalf("plan: %d %s, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
			if strings.Contains(string(body), tt.token) {
				t.Errorf("the answer shows the token: %s", body)
			}
			status, out := rawGraphQL(t, srv.URL(), tt.token, `{ viewer { subject } }`)
			switch {
			case tt.subject != "":
				if want := fmt.Sprintf(`{"data":{"viewer":{"subject":%q}}}`, tt.subject); status != http.StatusOK || out != want {
					t.Errorf("viewer: %d %s, want %s", status, out, want)
				}
			case status != tt.status || !strings.Contains(out, fmt.Sprintf(`"code":%q`, tt.code)):
				t.Errorf("viewer: %d %s, want %d %s", status, out, tt.status, tt.code)
			}
		})
	}
}

// TestOIDCWebsocket: a subscription's connection_init takes OIDC tokens
// too, and closes with the overage's own reason.
func TestOIDCWebsocket(t *testing.T) {
	users := append(devoidc.DemoUsers(), devoidc.User{Name: "dave", Subject: "u-1004", Password: "dave-pw", Groups: []string{"viewers"}})
	idp, err := devoidc.Start(devoidc.Options{Users: users, ExtraClaims: map[string]map[string]any{"dave": {"groups": nil, "hasgroups": true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startServer(t, oidcConfig(t, idp.Issuer()))
	alice, err := idp.SignIn(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	dave, err := idp.SignIn(context.Background(), "dave")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial(t, srv, nil, map[string]any{"token": alice.AccessToken}); err != nil {
		t.Errorf("alice: %v", err)
	}
	_, err = dial(t, srv, nil, map[string]any{"Authorization": "Bearer " + dave.AccessToken})
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != closeForbidden || ce.Text != string(deploy.EGROUPSOVERAGE) {
		t.Errorf("overage in connection_init: %v, want close %d %s", err, closeForbidden, deploy.EGROUPSOVERAGE)
	}
	if _, err := dial(t, srv, http.Header{"Authorization": {"Bearer " + dave.AccessToken}}, nil); err == nil || !strings.Contains(err.Error(), "status 403") {
		t.Errorf("overage in the upgrade's header: %v, want a 403", err)
	}
}

// TestOIDCProviderDown: a provider that does not answer at start-up does
// not stop manent: static tokens work, and its tokens are an internal
// error (not UNAUTHENTICATED, which would send users to sign in again). A
// client secret that cannot be read stops the start, naming its
// reference.
func TestOIDCProviderDown(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	alice, err := idp.SignIn(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := idp.Close(); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, oidcConfig(t, idp.Issuer()))
	if status, out := rawGraphQL(t, srv.URL(), demoTokens["viewer"], `{ viewer { subject } }`); status != http.StatusOK ||
		!strings.Contains(out, "token:viewer") {
		t.Errorf("static token while the provider is down: %d %s", status, out)
	}
	resp, body := request(t, "GET", srv.URL()+"/api/v1/deployments/none", alice.AccessToken, "")
	var e restError
	if resp.StatusCode != http.StatusInternalServerError || json.Unmarshal(body, &e) != nil || e.Error.Code != deploy.EINTERNAL || e.Error.ErrorID == "" {
		t.Errorf("oidc token while the provider is down: %d %s", resp.StatusCode, body)
	}

	path := oidcConfig(t, idp.Issuer())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "client_id: manent}", "client_id: manent, client_secret_ref: env:MANENT_TEST_NO_SUCH_VARIABLE}", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", "postgres://nowhere.invalid/x") // refused before the database is opened
	_, err = Main(context.Background(), Config{ConfigPath: path, Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err == nil || !strings.Contains(err.Error(), "auth.oidc.client_secret_ref: secret reference env:MANENT_TEST_NO_SUCH_VARIABLE: variable not set") {
		t.Errorf("unreadable client secret: %v", err)
	}
}

func rawGraphQL(t *testing.T, base, token, query string) (int, string) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query})
	req, err := http.NewRequest("POST", base+"/graphql", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// TestDevOIDC: manent-server dev's provider is off unless asked for, and
// refused outside dev; when it is on, auth.oidc points to it and its
// users' tokens work, unless manent.yml names its own provider.
func TestDevOIDC(t *testing.T) {
	configPath, _ := demoConfig(t)
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	if _, err := Main(context.Background(), Config{ConfigPath: configPath, Listen: "127.0.0.1:0", DevOIDC: "127.0.0.1:0"}); err == nil ||
		!strings.Contains(err.Error(), "manent-server dev") {
		t.Fatalf("outside dev: %v", err)
	}
	start := func(path string) *Server {
		t.Helper()
		srv, err := Main(context.Background(), Config{ConfigPath: path, Listen: "127.0.0.1:0", Dev: true, DevOIDC: "127.0.0.1:0",
			Logger: slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := srv.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return srv
	}
	srv := start(configPath)
	idp := srv.DevOIDC()
	if idp == nil || !strings.HasPrefix(idp.Issuer(), "http://127.0.0.1:") {
		t.Fatalf("dev provider = %v", idp)
	}
	tok, err := idp.SignIn(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if status, out := rawGraphQL(t, srv.URL(), tok.AccessToken, `{ viewer { subject groups } }`); status != http.StatusOK ||
		out != `{"data":{"viewer":{"subject":"oidc:alice","groups":["release-managers"]}}}` {
		t.Errorf("alice: %d %s", status, out)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}

	other, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	if srv := start(oidcConfig(t, other.Issuer())); srv.DevOIDC() != nil {
		t.Errorf("the dev provider started although manent.yml sets auth.oidc")
	}
}
