package server

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/oidc/login"
)

// TestLoginSettings: manent login asks the server, without a token, how to
// sign in; the answer names the issuer, the CLI's public client (its own
// when auth.oidc.cli_client_id is set, and then an audience too), the
// scopes and whether the provider has the device grant, and nothing
// secret. A server without auth.oidc answers NOT_FOUND.
func TestLoginSettings(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	t.Setenv("MANENT_OIDC_SECRET_FOR_TEST", "s3cr3t-value")
	path := oidcConfig(t, idp.Issuer())
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "client_id: manent}", "client_id: manent, cli_client_id: manent-cli, client_secret_ref: 'env:MANENT_OIDC_SECRET_FOR_TEST'}", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, path)

	rep, body := request(t, http.MethodGet, srv.URL()+login.SettingsPath, "", "")
	if rep.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", login.SettingsPath, rep.StatusCode, body)
	}
	if strings.Contains(string(body), "s3cr3t") {
		t.Fatalf("the settings show the client secret: %s", body)
	}
	var s login.Settings
	if err := json.Unmarshal(body, &s); err != nil {
		t.Fatal(err)
	}
	if s.Issuer != idp.Issuer() || s.ClientID != "manent-cli" || !s.DeviceAuthorization ||
		!slices.Equal(s.Audiences, []string{"manent", "manent-cli"}) || !slices.Contains(s.Scopes, "openid") {
		t.Fatalf("settings = %+v", s)
	}

	plain, _ := demoConfig(t)
	bare := startServer(t, plain)
	rep, body = request(t, http.MethodGet, bare.URL()+login.SettingsPath, "", "")
	if rep.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"NOT_FOUND"`) ||
		!strings.Contains(string(body), "no single sign-on") {
		t.Fatalf("without auth.oidc: %d %s", rep.StatusCode, body)
	}
}
