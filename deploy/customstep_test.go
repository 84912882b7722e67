package deploy_test

import (
	"slices"
	"testing"

	"manent.dev/manent/deploy"
)

// TestOperationSecrets: a run receives the step's secrets, a dry run only
// its own, both the SSH login once; a dry run of a step without dry_run,
// which is skipped, receives none.
func TestOperationSecrets(t *testing.T) {
	login := &deploy.CustomSSH{KeySecret: "ssh-key"}
	tests := []struct {
		name string
		spec deploy.CustomSpec
		dry  bool
		want []string
	}{
		{name: "run", spec: deploy.CustomSpec{Secrets: []string{"db-admin"}, SSH: login}, want: []string{"db-admin", "ssh-key"}},
		{name: "dry run", spec: deploy.CustomSpec{Secrets: []string{"db-admin"}, SSH: login, DryRun: &deploy.CustomRun{Secrets: []string{"db-read"}}},
			dry: true, want: []string{"db-read", "ssh-key"}},
		{name: "the login listed too", spec: deploy.CustomSpec{Secrets: []string{"ssh-key"}, SSH: login}, want: []string{"ssh-key"}},
		{name: "a dry run without dry_run", spec: deploy.CustomSpec{Secrets: []string{"db-admin"}, SSH: login}, dry: true},
		{name: "an HTTP step", spec: deploy.CustomSpec{Secrets: []string{"cdn-token"}}, want: []string{"cdn-token"}},
	}
	for _, tt := range tests {
		if got := tt.spec.OperationSecrets(tt.dry); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCompilePatternKeepsItsAnchors: a pattern whose groups do not
// balance is refused, never wrapped into one that escapes the anchors
// (^(?:a)|(.*)$ matches any value).
func TestCompilePatternKeepsItsAnchors(t *testing.T) {
	for _, tc := range []struct {
		pattern, value string
		ok, match      bool
	}{
		{pattern: "[a-z]+", value: "abc", ok: true, match: true},
		{pattern: "[a-z]+", value: "abc; rm -rf /", ok: true, match: false},
		{pattern: "a|b", value: "ab", ok: true, match: false},
		{pattern: "a)|(.*", value: "anything at all"},
		{pattern: "(a", value: "a"},
	} {
		re, err := deploy.CompilePattern(tc.pattern)
		if (err == nil) != tc.ok {
			t.Errorf("deploy.CompilePattern(%q): %v, want ok %t", tc.pattern, err, tc.ok)
			continue
		}
		if err == nil && re.MatchString(tc.value) != tc.match {
			t.Errorf("%q matches %q: %t, want %t", tc.pattern, tc.value, !tc.match, tc.match)
		}
	}
}
