package deploy_test

import (
	"testing"

	"manent.dev/manent/deploy"
)

// A target's key names all that makes it one target: two logins of one
// host, or one login on two ports, do not share journal lines. A local
// target keeps its key.
func TestTargetKey(t *testing.T) {
	req := deploy.PluginRequest{IdempotencyKey: "deploy/run/p0/b0/d1"}
	tests := []struct {
		target deploy.Target
		want   string
	}{
		{target: deploy.Target{Path: "/srv/hello"}, want: "deploy/run/p0/b0/d1:/srv/hello"},
		{target: deploy.Target{Host: "web1", Path: "/srv/hello"}, want: "deploy/run/p0/b0/d1:web1:/srv/hello"},
		{target: deploy.Target{Host: "10.0.0.5", Port: 22, User: "deploy"}, want: "deploy/run/p0/b0/d1:deploy@10.0.0.5:22"},
		{target: deploy.Target{Host: "10.0.0.5", Port: 22, User: "ops"}, want: "deploy/run/p0/b0/d1:ops@10.0.0.5:22"},
		{target: deploy.Target{Host: "10.0.0.5", Port: 2222, User: "deploy"}, want: "deploy/run/p0/b0/d1:deploy@10.0.0.5:2222"},
		{target: deploy.Target{Host: "10.0.0.5", User: "deploy"}, want: "deploy/run/p0/b0/d1:deploy@10.0.0.5"},
		{target: deploy.Target{Host: "[2001:db8::1]", Port: 22, User: "deploy"}, want: "deploy/run/p0/b0/d1:deploy@[2001:db8::1]:22"},
		{target: deploy.Target{Host: "2001:db8::1", Port: 22, User: "deploy"}, want: "deploy/run/p0/b0/d1:deploy@[2001:db8::1]:22"},
	}
	for _, tt := range tests {
		if got := req.TargetKey(tt.target); got != tt.want {
			t.Errorf("TargetKey(%+v) = %q, want %q", tt.target, got, tt.want)
		}
	}
}
