package authz

import (
	"testing"

	"manent.dev/manent/deploy"
)

// A reload that falls between the subjects of a decision does not make it
// mix the two policies: under each of them alice may read (through her
// group under the first, herself under the second), so she may read
// whenever the reload falls.
func TestDecisionReadsOnePolicy(t *testing.T) {
	const (
		byGroup = "p, viewer, demo, *, deployment.read\ng, group:ops, viewer, demo\n"
		bySelf  = "p, viewer, demo, *, deployment.read\ng, token:alice, viewer, demo\n"
	)
	alice := deploy.Identity{Subject: "token:alice", Groups: []string{"ops"}}
	for _, c := range []struct {
		name   string
		decide func(a *Authorizer) (bool, error)
	}{
		{"Allowed", func(a *Authorizer) (bool, error) {
			return a.Allowed(alice, deploy.Resource{Tenant: "demo", Application: "hello", Environment: "prod"}, deploy.PermRead)
		}},
		{"HasRole", func(a *Authorizer) (bool, error) { return a.HasRole(alice, "demo", "viewer") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := New("", byGroup)
			if err != nil {
				t.Fatal(err)
			}
			reloaded := false
			betweenSubjects = func() {
				if !reloaded {
					reloaded = true
					if err := a.Replace("", bySelf); err != nil {
						t.Error(err)
					}
				}
			}
			t.Cleanup(func() { betweenSubjects = nil })
			ok, err := c.decide(a)
			if err != nil || !ok || !reloaded {
				t.Fatalf("decision across a reload: %v, %v (reloaded %v), want allowed", ok, err, reloaded)
			}
			if ok, err := c.decide(a); err != nil || !ok {
				t.Fatalf("after the reload: %v, %v", ok, err)
			}
		})
	}
}
