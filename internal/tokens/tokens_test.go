package tokens_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/tokens"
)

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestAuthenticate(t *testing.T) {
	a := tokens.New([]config.Token{
		{Name: "demo-admin", SHA256: hash("demo-admin")},
		{Name: "demo-ci", SHA256: hash("demo-ci"), Groups: []string{"ci"}},
		{Name: "broken", SHA256: "not-hex"},
	})
	tests := []struct {
		name  string
		token string
		want  deploy.Identity
		ok    bool
	}{
		{"admin", "demo-admin", deploy.Identity{Subject: "token:demo-admin"}, true},
		{"with groups", "demo-ci", deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}}, true},
		{"unknown", "demo-root", deploy.Identity{}, false},
		{"empty", "", deploy.Identity{}, false},
		{"the hash is not the token", hash("demo-admin"), deploy.Identity{}, false},
		{"a prefix is not the token", "demo-", deploy.Identity{}, false},
		{"a broken entry never matches", "not-hex", deploy.Identity{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := a.Authenticate(context.Background(), tt.token)
			if tt.ok {
				if err != nil || !reflect.DeepEqual(id, tt.want) {
					t.Fatalf("got %+v, %v; want %+v", id, err, tt.want)
				}
				return
			}
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNAUTHENTICATED || e.Message != "invalid token" {
				t.Fatalf("err = %v, want EUNAUTHENTICATED invalid token", err)
			}
			if tt.token != "" && strings.Contains(err.Error(), tt.token) {
				t.Errorf("the error echoes the token: %v", err)
			}
			if !id.Anonymous() {
				t.Errorf("identity %+v on failure", id)
			}
		})
	}
}

func TestIdentityIsACopy(t *testing.T) {
	a := tokens.New([]config.Token{{Name: "ci", SHA256: hash("t"), Groups: []string{"ci"}}})
	id, err := a.Authenticate(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	id.Groups[0] = "admins"
	again, _ := a.Authenticate(context.Background(), "t")
	if again.Groups[0] != "ci" {
		t.Errorf("a caller changed the configured groups: %v", again.Groups)
	}
}

func TestBySum(t *testing.T) {
	a := tokens.New([]config.Token{{Name: "ci", SHA256: hash("t"), Groups: []string{"ci"}}})
	for _, tc := range []struct {
		name, sum string
		want      string
	}{
		{"the token's sum", tokens.Sum("t"), "token:ci"},
		{"another token's", tokens.Sum("u"), ""},
		{"not hex", "zz", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, ok := a.BySum(tc.sum)
			if id.Subject != tc.want || ok != (tc.want != "") {
				t.Errorf("BySum(%q) = %v, %v; want %q", tc.sum, id, ok, tc.want)
			}
		})
	}
	if tokens.Sum("t") != hash("t") {
		t.Errorf("Sum is not the hex SHA-256 auth.tokens stores")
	}
}
