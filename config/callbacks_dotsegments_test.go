package config

import (
	"strings"
	"testing"
)

// A path prefix of callbacks.allowed is compared with the parsed, escaped
// path, and dot segments (plain or percent-encoded) and encoded separators
// are refused: the receiver, or any proxy before it, would resolve
// /hooks/manent/../../admin to /admin on the same host. Before, the raw
// strings were compared and these were allowed.
func TestCallbackPrefixDotSegments(t *testing.T) {
	c := Callbacks{Allowed: []string{"https://hooks.example.com/hooks/manent/", "https://ci.example.com/hooks"}}
	for _, tt := range []struct {
		url, want string
	}{
		{"https://hooks.example.com/hooks/manent/../../admin/delete", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent/%2e%2e/%2e%2e/admin/delete", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent/%2E%2E/admin", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent/%252e%252e/admin", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent/./x", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent/..;x=1/admin", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent%2f..%2fadmin", "must not hold . or .. path segments"},
		{"https://hooks.example.com/hooks/manent%2Fadmin", "must not hold an encoded /"},
		{"https://hooks.example.com/hooks/manent/a%5cb", "must not hold an encoded /"},
		{"https://HOOKS.example.com/hooks/manent/deploys", ""},
		{"https://hooks.example.com/hooks/manent/deploys?token=x", ""},
		{"https://hooks.example.com:8443/hooks/manent/x", "is not allowed"},
		{"http://hooks.example.com/hooks/manent/x", "must be an https:// URL"},
		{"https://ci.example.com/hooks", ""},
		{"https://ci.example.com/hooks?x=1", ""},
		{"https://ci.example.com/hooks/a", ""},
		{"https://ci.example.com/hooksx", "is not allowed"},
		{"https://ci.example.com/hooks/../x", "must not hold . or .. path segments"},
	} {
		got := c.CallbackProblem(tt.url)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("CallbackProblem(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// A prefix of callbacks.allowed with dot segments is refused when manent.yml
// is read.
func TestCallbackPrefixWithDotSegmentsRefused(t *testing.T) {
	for _, p := range []string{"https://hooks.example.com/a/../b/", "https://hooks.example.com/a/%2e%2e/b/", "https://hooks.example.com/a%2fb/"} {
		_, err := Parse([]byte("callbacks:\n  allowed: [\""+p+"\"]\n  signing_key_refs: [env:HOME]\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "callbacks.allowed[0]: must not hold") {
			t.Errorf("prefix %s: %v", p, err)
		}
	}
}
