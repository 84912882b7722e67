package chains_test

import (
	"testing"

	"manent.dev/manent/chains"
	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Imported targets and parameters are descriptor additions: the descriptor
// policy and the merge's conflict rules apply to them as to the descriptor's own.
func TestAppliedImportsGoThroughTheMerge(t *testing.T) {
	d := &deploy.Descriptor{Tenant: "shop", Application: "os-config", Environment: "prod"}
	r := chains.Resolved{Targets: []deploy.Target{{Host: "10.20.0.1"}}, Params: map[string]string{"db_host": "db.internal"}}
	open := config.DescriptorPolicy{Targets: true, Params: []string{"*"}}
	tests := []struct {
		name   string
		env    config.EnvConfig
		policy config.DescriptorPolicy
		ok     bool
	}{
		{name: "allowed", env: config.EnvConfig{Plugin: "ssh"}, policy: open, ok: true},
		{name: "targets also in the environment", env: config.EnvConfig{Plugin: "ssh", Targets: []deploy.Target{{Host: "x"}}}, policy: open},
		{name: "targets forbidden by the policy", env: config.EnvConfig{Plugin: "ssh"}, policy: config.DescriptorPolicy{Params: []string{"*"}}},
		{name: "param forbidden by the policy", env: config.EnvConfig{Plugin: "ssh"}, policy: config.DescriptorPolicy{Targets: true}},
		{name: "param set otherwise by the environment",
			env: config.EnvConfig{Plugin: "ssh", Params: map[string]string{"db_host": "other"}}, policy: open},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eff, err := config.Merge(chains.Apply(d, r), &tt.env, tt.policy, "default")
			if tt.ok {
				if err != nil || len(eff.Targets) != 1 || eff.Params["db_host"] != "db.internal" {
					t.Fatalf("Merge = %+v, %v", eff, err)
				}
				return
			}
			if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
				t.Fatalf("Merge: %v, want EUNPROCESSABLE", err)
			}
		})
	}
}
