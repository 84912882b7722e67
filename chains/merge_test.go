package chains_test

import (
	"errors"
	"strings"
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

// Imported targets carry labels another deploy's export wrote: a
// descriptor importing them may not steer its environment's rollout with
// them, as it may not with its own targets' labels.
func TestImportedTargetLabelsCannotSteerTheRollout(t *testing.T) {
	d := &deploy.Descriptor{Tenant: "shop", Application: "web", Environment: "prod"}
	env := config.EnvConfig{Plugin: "ssh", Rollout: &deploy.RolloutSpec{Waves: []deploy.WaveSpec{
		{Name: "canary", Select: &deploy.Selector{Labels: map[string]string{"ring": "canary"}}},
		{Name: "rest", Approval: true},
	}}}
	policy := config.DescriptorPolicy{Targets: true}
	tests := []struct {
		name   string
		labels map[string]string
		err    string
	}{
		{name: "a label the waves read", labels: map[string]string{"ring": "canary"},
			err: "deploy.targets[0].labels.ring: 10.20.0.1: forbidden: rollout.waves[0].select of the environment configuration reads this label"},
		{name: "a label no selector reads", labels: map[string]string{"team": "web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := chains.Resolved{Targets: []deploy.Target{{Host: "10.20.0.1", Labels: tt.labels}}}
			_, err := config.Merge(chains.Apply(d, r), &env, policy, "default")
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Merge: %v", err)
				}
				return
			}
			var de *deploy.Error
			if !errors.As(err, &de) || len(de.Fields) != 1 || !strings.HasPrefix(de.Fields[0].String(), tt.err) {
				t.Fatalf("Merge: %v, want %s", err, tt.err)
			}
		})
	}
}
