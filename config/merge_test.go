package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func TestMerge(t *testing.T) {
	envTargets := []deploy.Target{{Path: "/srv/hello"}}
	descTargets := []deploy.Target{{Host: "web1", Path: "/srv/hello"}}
	all := config.DescriptorPolicy{Targets: true, Params: []string{"*"}, StepParams: map[string][]string{"deploy": {"*"}}}
	type input struct {
		targets    []deploy.Target
		params     map[string]string
		stepParams map[string]map[string]string
	}
	tests := []struct {
		name   string
		desc   input
		env    input
		policy config.DescriptorPolicy
		// want is checked when wantErr is nil.
		want    deploy.Effective
		wantErr []string
	}{
		{
			name:   "targets from the environment configuration",
			env:    input{targets: envTargets},
			policy: config.DescriptorPolicy{},
			want:   deploy.Effective{Targets: envTargets},
		},
		{
			name:   "targets from the descriptor when the policy allows",
			desc:   input{targets: descTargets},
			policy: config.DescriptorPolicy{Targets: true},
			want:   deploy.Effective{Targets: descTargets},
		},
		{
			name:    "targets in both are a conflict",
			desc:    input{targets: descTargets},
			env:     input{targets: envTargets},
			policy:  config.DescriptorPolicy{Targets: true},
			wantErr: []string{"deploy.targets: conflict: the environment configuration already gives the targets"},
		},
		{
			name:    "descriptor targets are forbidden by the policy",
			desc:    input{targets: descTargets},
			policy:  config.DescriptorPolicy{},
			wantErr: []string{"deploy.targets: forbidden: the descriptor policy does not let descriptors give targets"},
		},
		{
			name:    "no target at all",
			policy:  all,
			wantErr: []string{"deploy.targets: no target: neither the descriptor nor the environment configuration gives one"},
		},
		{
			name:   "params: allowed by name, added to the environment's",
			desc:   input{params: map[string]string{"log_level": "debug"}},
			env:    input{targets: envTargets, params: map[string]string{"region": "eu"}},
			policy: config.DescriptorPolicy{Params: []string{"log_level"}},
			want:   deploy.Effective{Targets: envTargets, Params: map[string]string{"log_level": "debug", "region": "eu"}},
		},
		{
			name:   "params: the same value in both is no conflict",
			desc:   input{params: map[string]string{"region": "eu"}},
			env:    input{targets: envTargets, params: map[string]string{"region": "eu"}},
			policy: all,
			want:   deploy.Effective{Targets: envTargets, Params: map[string]string{"region": "eu"}},
		},
		{
			name:   "params: forbidden and conflicting, all reported",
			desc:   input{params: map[string]string{"region": "us", "debug": "true", "log_level": "x"}},
			env:    input{targets: envTargets, params: map[string]string{"region": "eu"}},
			policy: config.DescriptorPolicy{Params: []string{"region", "log_level"}},
			wantErr: []string{
				"deploy.params.debug: forbidden parameter: the descriptor policy does not let descriptors set it",
				"deploy.params.region: conflict: the environment configuration sets it to another value",
			},
		},
		{
			name:   "stepParams: allowed per step, merged with step_params",
			desc:   input{stepParams: map[string]map[string]string{"deploy": {"keep": "3"}}},
			env:    input{targets: envTargets, stepParams: map[string]map[string]string{"deploy": {"mode": "fast"}, "qa": {"level": "high"}}},
			policy: config.DescriptorPolicy{StepParams: map[string][]string{"deploy": {"keep"}}},
			want: deploy.Effective{Targets: envTargets, StepParams: map[string]map[string]string{
				"deploy": {"keep": "3", "mode": "fast"}, "qa": {"level": "high"},
			}},
		},
		{
			name: "stepParams: forbidden and conflicting, with the other refusals",
			desc: input{
				targets:    descTargets,
				stepParams: map[string]map[string]string{"deploy": {"mode": "slow", "keep": "3"}, "qa": {"level": "low"}},
			},
			env:    input{targets: envTargets, stepParams: map[string]map[string]string{"deploy": {"mode": "fast"}}},
			policy: config.DescriptorPolicy{Targets: true, StepParams: map[string][]string{"deploy": {"mode"}}},
			wantErr: []string{
				"deploy.targets: conflict: the environment configuration already gives the targets",
				"stepParams.deploy.keep: forbidden parameter: the descriptor policy does not let descriptors set it",
				"stepParams.deploy.mode: conflict: the environment configuration sets it to another value",
				"stepParams.qa.level: forbidden parameter: the descriptor policy does not let descriptors set it",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deploy.Descriptor{
				APIVersion: "manent/v1", Kind: "Deployment", Application: "hello", Environment: "prod",
				Labels: map[string]string{"team": "web"}, DryRun: true,
				Artifact:   deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:a.tgz"},
				Deploy:     deploy.DeploySection{Targets: tt.desc.targets, Params: tt.desc.params},
				StepParams: tt.desc.stepParams,
			}
			env := &config.EnvConfig{
				Plugin: "local", Targets: tt.env.targets, Params: tt.env.params, StepParams: tt.env.stepParams,
				Secrets:  []deploy.SecretRef{{Name: "k", Ref: "env:MANENT_SECRET_K"}},
				Health:   []deploy.HealthCheck{{URL: "http://127.0.0.1/health"}},
				Source:   "/etc/manent/envconfig/shop/hello/prod.yml",
				Revision: "abc",
			}
			got, err := config.Merge(d, env, tt.policy, "shop")
			if tt.wantErr != nil {
				var e *deploy.Error
				if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
					t.Fatalf("err = %v, want EUNPROCESSABLE", err)
				}
				var lines []string
				for _, f := range e.Fields {
					lines = append(lines, f.String())
				}
				if !reflect.DeepEqual(lines, tt.wantErr) {
					t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(lines, "\n  "), strings.Join(tt.wantErr, "\n  "))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Tenant, want.Application, want.Environment = "shop", "hello", "prod"
			want.Artifact, want.Plugin, want.Labels, want.DryRun = d.Artifact, "local", d.Labels, true
			want.Secrets, want.Health = env.Secrets, env.Health
			want.ConfigSource, want.ConfigRevision = env.Source, env.Revision
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestMergeTenant(t *testing.T) {
	env := &config.EnvConfig{Plugin: "local", Targets: []deploy.Target{{Path: "/a"}}}
	d := &deploy.Descriptor{Tenant: "other", Application: "a", Environment: "b"}
	got, err := config.Merge(d, env, config.DescriptorPolicy{}, "default")
	if err != nil || got.Tenant != "other" || got.Partition() != "other/a/b" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestMergeDoesNotShareMaps(t *testing.T) {
	env := &config.EnvConfig{Plugin: "local", Targets: []deploy.Target{{Path: "/a"}}, Params: map[string]string{"a": "1"}}
	d := &deploy.Descriptor{Application: "a", Environment: "b", Deploy: deploy.DeploySection{Params: map[string]string{"b": "2"}}}
	got, err := config.Merge(d, env, config.DescriptorPolicy{Params: []string{"*"}}, "default")
	if err != nil {
		t.Fatal(err)
	}
	got.Params["c"] = "3"
	got.Targets[0].Path = "/changed"
	if len(env.Params) != 1 || env.Targets[0].Path != "/a" {
		t.Errorf("Merge handed out the environment configuration's own maps or slices")
	}
}
