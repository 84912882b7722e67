package deploy_test

import (
	"testing"

	"manent.dev/manent/deploy"
)

// A target's name tells apart all that makes two targets: a login and a
// port are part of it when given, and a target without them keeps the
// name it always had.
func TestTargetName(t *testing.T) {
	tests := []struct {
		target deploy.Target
		want   string
	}{
		{deploy.Target{Path: "/srv/hello"}, "/srv/hello"},
		{deploy.Target{Host: "web1"}, "web1"},
		{deploy.Target{Host: "web1", Path: "/srv/hello"}, "web1:/srv/hello"},
		{deploy.Target{Host: "2001:db8::1"}, "2001:db8::1"},
		{deploy.Target{Host: "bastion", Port: 2201}, "bastion:2201"},
		{deploy.Target{Host: "bastion", User: "ops"}, "ops@bastion"},
		{deploy.Target{Host: "bastion", Port: 2201, User: "ops", Path: "/srv/hello"}, "ops@bastion:2201:/srv/hello"},
		{deploy.Target{Host: "2001:db8::1", Port: 22}, "[2001:db8::1]:22"},
		{deploy.Target{Host: "[2001:db8::1]", Port: 22, User: "deploy"}, "deploy@[2001:db8::1]:22"},
		// Without a host, a login and a port address nothing.
		{deploy.Target{Path: "/srv/hello", Port: 22, User: "ops"}, "/srv/hello"},
	}
	for _, tt := range tests {
		if got := tt.target.Name(); got != tt.want {
			t.Errorf("Name(%+v) = %q, want %q", tt.target, got, tt.want)
		}
	}
}
