package config_test

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
)

func TestSessionSettings(t *testing.T) {
	tests := []struct {
		name, yaml  string
		ttl, idle   time.Duration
		tokenSignIn bool
		wantErr     string
	}{
		{"defaults", "", 12 * time.Hour, 2 * time.Hour, false, ""},
		{"set", "auth:\n  allow_token_sign_in: true\n  session: {ttl: 8h, idle_timeout: 30m}\n", 8 * time.Hour, 30 * time.Minute, true, ""},
		{"a ttl too short", "auth:\n  session: {ttl: 30s}\n", 0, 0, false, "auth.session.ttl: must be between 1m and 720h"},
		{"a ttl too long", "auth:\n  session: {ttl: 1000h}\n", 0, 0, false, "auth.session.ttl: must be between 1m and 720h"},
		{"idle longer than the ttl", "auth:\n  session: {ttl: 1h, idle_timeout: 2h}\n", 0, 0, false,
			"auth.session.idle_timeout: must be at least 1m and at most auth.session.ttl"},
		{"an unknown key", "auth:\n  session: {lifetime: 1h}\n", 0, 0, false, "auth.session.lifetime"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.yaml), t.TempDir())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := c.Auth.Session; s.TTL != tc.ttl || s.IdleTimeout != tc.idle || c.Auth.AllowTokenSignIn != tc.tokenSignIn {
				t.Errorf("auth = %+v, allow_token_sign_in %v", s, c.Auth.AllowTokenSignIn)
			}
		})
	}
}

// TestExampleAllowsTokenSignIn: the demo's sign-in page takes its tokens.
func TestExampleAllowsTokenSignIn(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Auth.AllowTokenSignIn {
		t.Error("examples/manent.yml: auth.allow_token_sign_in is off")
	}
}
