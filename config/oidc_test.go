package config_test

import (
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/config"
)

func TestOIDCDefaults(t *testing.T) {
	c, err := config.Parse([]byte("auth:\n  oidc: {issuer: https://login.example.com/realms/main, client_id: manent}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := c.Auth.OIDC
	if o == nil || o.UserClaim != "preferred_username" || o.GroupsClaim != "groups" || o.Name == "" {
		t.Fatalf("auth.oidc = %+v", o)
	}
	if got := o.RequestedScopes(); !slices.Equal(got, []string{"openid", "profile", "email", "groups"}) {
		t.Errorf("scopes = %v", got)
	}
	if got := o.AllowedAudiences(); !slices.Equal(got, []string{"manent"}) {
		t.Errorf("audiences = %v", got)
	}
	if o.CLIClient() != "manent" {
		t.Errorf("CLI client = %q, want the client ID", o.CLIClient())
	}
	o.CLIClientID = "manent-cli"
	if got := o.AllowedAudiences(); !slices.Equal(got, []string{"manent", "manent-cli"}) || o.CLIClient() != "manent-cli" {
		t.Errorf("with cli_client_id: audiences = %v, CLI client %q", got, o.CLIClient())
	}
	o.Audiences = []string{"api://manent"}
	if got := o.AllowedAudiences(); !slices.Equal(got, []string{"api://manent"}) {
		t.Errorf("audiences set = %v", got)
	}
	o.GroupsClaim = "roles"
	if got := o.RequestedScopes(); slices.Contains(got, "groups") {
		t.Errorf("scopes with another groups claim = %v", got)
	}
	if c, err := config.Parse(nil, t.TempDir()); err != nil || c.Auth.OIDC != nil {
		t.Errorf("without auth.oidc: %+v %v", c.Auth.OIDC, err)
	}
}

func TestOIDCErrors(t *testing.T) {
	tests := []struct {
		name string
		oidc string
		want []string
	}{
		{name: "empty section", oidc: "{}", want: []string{
			"auth.oidc.issuer: is required: the issuer URL of the provider, such as https://login.example.com/realms/main",
			"auth.oidc.client_id: is required: the client ID registered for manent at the provider"}},
		{name: "unknown key", oidc: "{issuer: https://a.example.com, client_id: m, user_claims: sub}",
			want: []string{"auth.oidc.user_claims: unknown field (did you mean user_claim?)"}},
		{name: "http issuer off loopback", oidc: "{issuer: http://login.example.com, client_id: m}",
			want: []string{"auth.oidc.issuer: must be https:// (http:// only on a loopback address such as 127.0.0.1)"}},
		{name: "issuer with a query", oidc: "{issuer: 'https://a.example.com/?x=1', client_id: m}",
			want: []string{"auth.oidc.issuer: must have no user, query or fragment"}},
		{name: "not a URL", oidc: "{issuer: login.example.com, client_id: m}",
			want: []string{"auth.oidc.issuer: must be an absolute https:// URL"}},
		{name: "secret ref", oidc: "{issuer: https://a.example.com, client_id: m, client_secret_ref: 'vault:x'}",
			want: []string{"auth.oidc.client_secret_ref: must be env:NAME or file:path"}},
		{name: "secret where env configurations read", oidc: "{issuer: https://a.example.com, client_id: m, client_secret_ref: 'env:MANENT_SECRET_OIDC'}",
			want: []string{"auth.oidc.client_secret_ref: env: a key must not start with MANENT_SECRET_ (secrets.env_prefix): environment configurations may read those variables"}},
		{name: "claims and scopes", oidc: "{issuer: https://a.example.com, client_id: m, user_claim: 'a b', groups_claim: '', scopes: [profile, 'a\"b']}",
			want: []string{
				`auth.oidc.scopes[1]: must be a scope of printable characters without spaces, quotes or backslashes`,
				"auth.oidc.scopes: must hold openid: without it the provider issues no ID token",
				"auth.oidc.user_claim: must be a claim name such as preferred_username or sub",
				"auth.oidc.groups_claim: must be a claim name such as groups"}},
		{name: "symmetric and none algorithms", oidc: "{issuer: https://a.example.com, client_id: m, allowed_algorithms: [RS256, HS256, none]}",
			want: []string{
				"auth.oidc.allowed_algorithms[1]: must be one of " + strings.Join(config.SigningAlgorithms, ", ") + " (never a symmetric algorithm or none)",
				"auth.oidc.allowed_algorithms[2]: must be one of " + strings.Join(config.SigningAlgorithms, ", ") + " (never a symmetric algorithm or none)"}},
		{name: "audience with a space", oidc: "{issuer: https://a.example.com, client_id: m, audiences: ['a b']}",
			want: []string{"auth.oidc.audiences[0]: must be 1 to 256 characters without spaces"}},
		{name: "cli client ID with a space", oidc: "{issuer: https://a.example.com, client_id: m, cli_client_id: 'a b'}",
			want: []string{"auth.oidc.cli_client_id: must be at most 256 characters without spaces"}},
		{name: "hosted domain not a domain", oidc: "{issuer: https://a.example.com, client_id: m, hosted_domain: 'example com'}",
			want: []string{"auth.oidc.hosted_domain: must be a domain name such as example.com"}},
		{name: "hosted domain a URL", oidc: "{issuer: https://a.example.com, client_id: m, hosted_domain: 'https://example.com'}",
			want: []string{"auth.oidc.hosted_domain: must be a domain name such as example.com"}},
		{name: "name with markup", oidc: "{issuer: https://a.example.com, client_id: m, name: '<b>corp</b>'}",
			want: []string{"auth.oidc.name: must be 1 to 64 characters on one line, without < or >"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("auth:\n  oidc: "+tt.oidc+"\n"), t.TempDir())
			if err == nil {
				t.Fatal("accepted")
			}
			if got := problems(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	if c, err := config.Parse([]byte("auth:\n  oidc: {issuer: https://accounts.google.com, client_id: m, hosted_domain: corp.example.com}\n"), t.TempDir()); err != nil ||
		c.Auth.OIDC.HostedDomain != "corp.example.com" {
		t.Errorf("hosted_domain: %v", err)
	}
	for _, ok := range []string{"http://127.0.0.1:5556", "http://localhost:8081/dex", "http://[::1]:9000", "https://login.microsoftonline.com/tenant/v2.0"} {
		if _, err := config.Parse([]byte("auth:\n  oidc: {issuer: '"+ok+"', client_id: m, client_secret_ref: 'env:OIDC_SECRET'}\n"), t.TempDir()); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
