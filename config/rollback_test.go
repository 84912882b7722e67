package config_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// shortPipeline has no qa and no post-test.
const shortPipeline = `
pipeline:
  steps:
    - {name: artifacts, mode: mandatory}
    - {name: deploy, mode: mandatory}
    - {name: activation, mode: optional, enabled: false}
`

func TestEnvConfigRollback(t *testing.T) {
	standard, err := config.Parse([]byte("secrets: {file_root: /run/secrets}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	short, err := config.Parse([]byte(shortPipeline), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    *config.Config
		doc  string
		want deploy.RollbackPolicy
	}{
		{name: "no rollback key: off", c: standard, doc: ""},
		{name: "null: off", c: standard, doc: "rollback:\n"},
		{name: "empty mapping: off", c: standard, doc: "rollback: {}\n"},
		{name: "off, on omitted", c: standard, doc: "rollback: {enabled: false}\n"},
		{name: "enabled without on: the default steps", c: standard, doc: "rollback: {enabled: true}\n",
			want: deploy.RollbackPolicy{Enabled: true, On: []string{"deploy", "post-test", "activation"}}},
		{name: "enabled without on: the default steps the pipeline has", c: short, doc: "rollback: {enabled: true}\n",
			want: deploy.RollbackPolicy{Enabled: true, On: []string{"deploy", "activation"}}},
		{name: "on in pipeline order", c: standard, doc: "rollback:\n  enabled: true\n  on: [activation, post-test]\n",
			want: deploy.RollbackPolicy{Enabled: true, On: []string{"post-test", "activation"}}},
		{name: "any step of the pipeline, a disabled optional one too", c: short, doc: "rollback: {enabled: true, on: [activation, artifacts]}\n",
			want: deploy.RollbackPolicy{Enabled: true, On: []string{"artifacts", "activation"}}},
		{name: "off with on: kept for a descriptor that enables it", c: standard, doc: "rollback: {on: [deploy]}\n",
			want: deploy.RollbackPolicy{On: []string{"deploy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ec, err := tt.c.ParseEnvConfig([]byte("plugin: local\ntargets: [{path: /a}]\n" + tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ec.Rollback, tt.want) {
				t.Errorf("Rollback = %+v, want %+v", ec.Rollback, tt.want)
			}
		})
	}
	t.Run("the pipeline's steps are kept for the merge", func(t *testing.T) {
		ec, err := short.ParseEnvConfig([]byte("plugin: local\n"))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"artifacts", "deploy", "activation"}; !reflect.DeepEqual(ec.PipelineSteps, want) {
			t.Errorf("PipelineSteps = %v, want %v", ec.PipelineSteps, want)
		}
	})
}

func TestEnvConfigRollbackErrors(t *testing.T) {
	standard, err := config.Parse([]byte("secrets: {file_root: /run/secrets}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	short, err := config.Parse([]byte(shortPipeline), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    *config.Config
		doc  string
		want []string
	}{
		{
			name: "unknown keys",
			c:    standard, doc: "plugin: local\nrollback: {enabled: true, steps: [deploy], onSteps: [deploy]}\n",
			want: []string{"rollback.steps: unknown field", "rollback.onSteps: unknown field"},
		},
		{name: "not a mapping", c: standard, doc: "plugin: local\nrollback: true\n", want: []string{"rollback: must be a mapping"}},
		{name: "enabled not a boolean", c: standard, doc: "plugin: local\nrollback: {enabled: \"on\"}\n",
			want: []string{"rollback.enabled: must be true or false"}},
		{name: "on not a list", c: standard, doc: "plugin: local\nrollback: {enabled: true, on: deploy}\n",
			want: []string{"rollback.on: must be a list"}},
		{name: "empty on", c: standard, doc: "plugin: local\nrollback: {enabled: true, on: []}\n",
			want: []string{"rollback.on: must list at least one step: leave on out, or set enabled: false to turn rollback off"}},
		{name: "too many", c: standard, doc: "plugin: local\nrollback: {on: [" + strings.Repeat("deploy,", 21) + "]}\n",
			want: []string{"rollback.on: at most 20 steps are allowed, found 21"}},
		{
			name: "every entry checked, shape first",
			c:    standard,
			doc:  "plugin: local\nrollback:\n  enabled: true\n  on: [config, cleanup, db-migrate, Deploy, deploy, deploy, {a: b}]\n",
			want: []string{
				"rollback.on[6]: must be a string",
				"rollback.on[3]: step name must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"rollback.on[5]: deploy is already listed (on[4])",
				"rollback.on[0]: config cannot be listed: it changes nothing on the targets, so there is nothing to undo",
				"rollback.on[1]: cleanup cannot be listed: it always runs, last, after any rollback",
				"rollback.on[2]: unknown step: the pipeline has no step db-migrate",
			},
		},
		{name: "a standard step the pipeline does not have", c: short, doc: "plugin: local\nrollback: {enabled: true, on: [deploy, post-test]}\n",
			want: []string{"rollback.on[1]: unknown step: the pipeline has no step post-test"}},
		{
			name: "with the file's other problems",
			c:    standard, doc: "targets: [{}]\nrollback: {enabled: true, on: [qa, qa]}\n",
			want: []string{"plugin: is required", "targets[0]: needs a host or a path", "rollback.on[1]: qa is already listed (on[0])"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.ParseEnvConfig([]byte(tt.doc))
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("err = %v", err)
			}
			if got := fieldLines(e); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestMergeRollback(t *testing.T) {
	yes, no := true, false
	standard := []string{"secrets", "artifacts", "qa", "deploy", "post-test", "activation"}
	short := []string{"artifacts", "deploy", "activation"}
	allowed := config.DescriptorPolicy{Rollback: true}
	on := func(steps ...string) deploy.RollbackPolicy { return deploy.RollbackPolicy{Enabled: true, On: steps} }
	tests := []struct {
		name     string
		env      deploy.RollbackPolicy
		steps    []string
		override *deploy.RollbackOverride
		policy   config.DescriptorPolicy
		// want is checked when wantErr is nil.
		want    deploy.RollbackPolicy
		wantErr []string
	}{
		{name: "no policy anywhere: off", steps: standard},
		{name: "the environment's", env: on("deploy", "activation"), steps: standard, want: on("deploy", "activation")},
		{name: "the environment's, whatever the descriptor policy", env: on("activation"), steps: standard, policy: allowed, want: on("activation")},
		{
			name: "an override forbidden by the descriptor policy", env: on("deploy"), steps: standard,
			override: &deploy.RollbackOverride{Enabled: &no},
			wantErr:  []string{"rollback: forbidden: the descriptor policy does not let descriptors change the rollback policy"},
		},
		{
			name: "forbidden even when it changes nothing", env: on("deploy"), steps: standard,
			override: &deploy.RollbackOverride{Enabled: &yes, On: []string{"deploy"}},
			wantErr:  []string{"rollback: forbidden: the descriptor policy does not let descriptors change the rollback policy"},
		},
		{
			name: "turned off, the environment's steps kept", env: on("deploy", "activation"), steps: standard, policy: allowed,
			override: &deploy.RollbackOverride{Enabled: &no},
			want:     deploy.RollbackPolicy{On: []string{"deploy", "activation"}},
		},
		{
			name: "enabling without on: the default steps", steps: standard, policy: allowed,
			override: &deploy.RollbackOverride{Enabled: &yes},
			want:     on("deploy", "post-test", "activation"),
		},
		{
			name: "enabling without on: the default steps the pipeline has", steps: short, policy: allowed,
			override: &deploy.RollbackOverride{Enabled: &yes},
			want:     on("deploy", "activation"),
		},
		{
			name: "enabling without on: the steps the environment prepared", env: deploy.RollbackPolicy{On: []string{"activation"}},
			steps: standard, policy: allowed, override: &deploy.RollbackOverride{Enabled: &yes},
			want: on("activation"),
		},
		{
			name: "on replaces the environment's, in pipeline order", env: on("deploy"), steps: standard, policy: allowed,
			override: &deploy.RollbackOverride{On: []string{"activation", "post-test"}},
			want:     on("post-test", "activation"),
		},
		{
			name: "on alone does not enable", steps: standard, policy: allowed,
			override: &deploy.RollbackOverride{On: []string{"deploy"}},
			want:     deploy.RollbackPolicy{On: []string{"deploy"}},
		},
		{
			name: "an empty on is no on", env: on("activation"), steps: standard, policy: allowed,
			override: &deploy.RollbackOverride{On: []string{}},
			want:     on("activation"),
		},
		{
			name: "steps the pipeline does not have", steps: short, policy: allowed,
			override: &deploy.RollbackOverride{Enabled: &yes, On: []string{"deploy", "post-test", "cleanup", "config"}},
			wantErr: []string{
				"rollback.on[1]: unknown step: the pipeline has no step post-test",
				"rollback.on[2]: cleanup cannot be listed: it always runs, last, after any rollback",
				"rollback.on[3]: config cannot be listed: it changes nothing on the targets, so there is nothing to undo",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deploy.Descriptor{Application: "hello", Environment: "prod", Rollback: tt.override}
			env := &config.EnvConfig{Plugin: "local", Targets: []deploy.Target{{Path: "/a"}}, Rollback: tt.env, PipelineSteps: tt.steps}
			got, err := config.Merge(d, env, tt.policy, "shop")
			if tt.wantErr != nil {
				var e *deploy.Error
				if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
					t.Fatalf("err = %v, want EUNPROCESSABLE", err)
				}
				if lines := fieldLines(e); !reflect.DeepEqual(lines, tt.wantErr) {
					t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(lines, "\n  "), strings.Join(tt.wantErr, "\n  "))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Rollback, tt.want) {
				t.Errorf("Rollback = %+v, want %+v", got.Rollback, tt.want)
			}
		})
	}
}

// A forbidden override is one more refusal of the same error.
func TestMergeRollbackWithOtherRefusals(t *testing.T) {
	yes := true
	d := &deploy.Descriptor{
		Application: "hello", Environment: "prod",
		Deploy:   deploy.DeploySection{Targets: []deploy.Target{{Path: "/b"}}, Params: map[string]string{"debug": "1"}},
		Rollback: &deploy.RollbackOverride{Enabled: &yes},
	}
	env := &config.EnvConfig{Plugin: "local", Targets: []deploy.Target{{Path: "/a"}}}
	_, err := config.Merge(d, env, config.DescriptorPolicy{}, "shop")
	var e *deploy.Error
	if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
		t.Fatalf("err = %v", err)
	}
	want := []string{
		"deploy.targets: forbidden: the descriptor policy does not let descriptors give targets",
		"deploy.params.debug: forbidden parameter: the descriptor policy does not let descriptors set it",
		"rollback: forbidden: the descriptor policy does not let descriptors change the rollback policy",
	}
	if got := fieldLines(e); !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The config step merges the stored descriptor again when the deploy runs:
// it must decide the same policy as the submission did.
func TestMergeRollbackAfterTheDescriptorIsStored(t *testing.T) {
	yes, no := true, false
	env := &config.EnvConfig{
		Plugin: "local", Targets: []deploy.Target{{Path: "/a"}},
		Rollback:      deploy.RollbackPolicy{Enabled: true, On: []string{"deploy", "activation"}},
		PipelineSteps: []string{"artifacts", "deploy", "post-test", "activation"},
	}
	policy := config.DescriptorPolicy{Rollback: true}
	for _, o := range []*deploy.RollbackOverride{
		nil, {}, {Enabled: &no}, {Enabled: &yes}, {On: []string{}}, {Enabled: &yes, On: []string{"activation", "post-test"}},
	} {
		d := &deploy.Descriptor{Application: "hello", Environment: "prod", Rollback: o}
		first, err := config.Merge(d, env, policy, "shop")
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var stored deploy.Descriptor
		if err := json.Unmarshal(data, &stored); err != nil {
			t.Fatal(err)
		}
		again, err := config.Merge(&stored, env, policy, "shop")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first.Rollback, again.Rollback) {
			t.Errorf("override %s: submission %+v, config step %+v", data, first.Rollback, again.Rollback)
		}
	}
}

func TestMergeRollbackDoesNotShareTheEnvironmentsSteps(t *testing.T) {
	env := &config.EnvConfig{Plugin: "local", Targets: []deploy.Target{{Path: "/a"}},
		Rollback: deploy.RollbackPolicy{Enabled: true, On: []string{"deploy"}}}
	got, err := config.Merge(&deploy.Descriptor{Application: "a", Environment: "b"}, env, config.DescriptorPolicy{}, "default")
	if err != nil {
		t.Fatal(err)
	}
	got.Rollback.On[0] = "changed"
	if env.Rollback.On[0] != "deploy" {
		t.Error("Merge handed out the environment configuration's own rollback steps")
	}
}

func fieldLines(e *deploy.Error) []string {
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.String()
	}
	return out
}
