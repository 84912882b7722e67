package config

import "testing"

// TestCallbackPrefixDotSegments (rev13, FAILS on a33e1c1): a path prefix of
// callbacks.allowed is matched on the raw string, so dot segments (plain or
// percent-encoded) leave it: the receiver, or any proxy before it, resolves
// /hooks/manent/../../admin to /admin on the same host.
func TestCallbackPrefixDotSegments(t *testing.T) {
	c := Callbacks{Allowed: []string{"https://hooks.example.com/hooks/manent/"}}
	for _, u := range []string{
		"https://hooks.example.com/hooks/manent/../../admin/delete",
		"https://hooks.example.com/hooks/manent/%2e%2e/%2e%2e/admin/delete",
	} {
		if msg := c.CallbackProblem(u); msg == "" {
			t.Errorf("CallbackProblem(%q) allows it, though it leaves the allowed path", u)
		}
	}
}
