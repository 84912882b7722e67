package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func parseSpecPipeline(t *testing.T) *config.Config {
	t.Helper()
	c, err := config.Parse([]byte(specPipeline), t.TempDir())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return c
}

func TestEnvConfigStepParams(t *testing.T) {
	c := parseSpecPipeline(t)
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{name: "declared and matching, also for a step off by default", doc: "step_params:\n  db-migrate: {database: shop}\n  cdn-purge: {zone: 0f3a9c1e5b7d42a8a1c3e5f7091b2d4c}\n"},
		{
			name: "every refusal at once, values never shown",
			doc:  "step_params:\n  db-migrate: {database: Shop-DB, schema: x}\n  deploy: {mode: fast}\n  db-migrat: {database: shop}\n",
			want: []string{
				"step_params.db-migrat: no custom step db-migrat in pipeline.steps",
				"step_params.db-migrate.database: does not match the pattern step db-migrate declares for it",
				"step_params.db-migrate.schema: undeclared parameter: step db-migrate declares database",
				"step_params.deploy: deploy is a standard step: only custom steps declare parameters",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ParseEnvConfig([]byte("plugin: local\ntargets: [{path: a}]\n" + tt.doc))
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("err = %v, want EUNPROCESSABLE", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			if strings.Contains(err.Error(), "Shop-DB") {
				t.Error("a value is in the error")
			}
		})
	}
}

// TestResolveCustomSteps holds the parameters of the steps a plan runs to
// the specifications the plan captured, with their defaults.
func TestResolveCustomSteps(t *testing.T) {
	c := parseSpecPipeline(t)
	def := "5"
	secrets := []deploy.SecretRef{{Name: "db-admin"}, {Name: "db-readonly"}, {Name: "ssh-migrate"}, {Name: "cdn-token"}}
	tests := []struct {
		name    string
		steps   map[string]bool
		desc    map[string]map[string]string
		values  map[string]map[string]string
		secrets []deploy.SecretRef
		// change alters the captured specification of db-migrate, as
		// if manent.yml had changed since the plan was made.
		change func(*deploy.CustomSpec)
		want   map[string]map[string]string
		errs   []string
	}{
		{
			name:   "the plan's steps get their values, others keep theirs",
			values: map[string]map[string]string{"cdn-purge": {"zone": strings.Repeat("a", 32)}, "db-migrate": {"database": "shop"}},
			want:   map[string]map[string]string{"cdn-purge": {"zone": strings.Repeat("a", 32)}, "db-migrate": {"database": "shop"}},
		},
		{
			name:   "defaults of the captured specification",
			steps:  map[string]bool{"db-migrate": true},
			values: map[string]map[string]string{"cdn-purge": {"zone": strings.Repeat("a", 32)}, "db-migrate": {"database": "shop"}},
			change: func(s *deploy.CustomSpec) { s.Params["keep"] = deploy.ParamSpec{Pattern: "[0-9]+", Default: &def} },
			want:   map[string]map[string]string{"cdn-purge": {"zone": strings.Repeat("a", 32)}, "db-migrate": {"database": "shop", "keep": "5"}},
		},
		{
			name:  "missing, undeclared, not matching, secrets not declared",
			steps: map[string]bool{"db-migrate": true},
			desc:  map[string]map[string]string{"db-migrate": {"database": "Shop"}},
			values: map[string]map[string]string{
				"db-migrate": {"database": "Shop", "schema": "public"},
			},
			secrets: []deploy.SecretRef{{Name: "db-admin"}},
			errs: []string{
				"stepParams.db-migrate.database: does not match the pattern step db-migrate declares for it",
				"step_params.db-migrate.schema: undeclared parameter: step db-migrate declares database",
				"secrets: step db-migrate needs secret db-readonly, which the environment configuration does not declare",
				"secrets: step db-migrate needs secret ssh-migrate, which the environment configuration does not declare",
				"step_params.cdn-purge.zone: is required by step cdn-purge",
				"secrets: step cdn-purge needs secret cdn-token, which the environment configuration does not declare",
			},
		},
		{
			name:   "a pattern tightened since the plan does not count: the plan's does",
			steps:  map[string]bool{"db-migrate": true},
			values: map[string]map[string]string{"cdn-purge": {"zone": strings.Repeat("a", 32)}, "db-migrate": {"database": "shop"}},
			change: func(s *deploy.CustomSpec) { s.Params["database"] = deploy.ParamSpec{Pattern: "[0-9]+", Required: true} },
			errs:   []string{"step_params.db-migrate.database: does not match the pattern step db-migrate declares for it"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deploy.Descriptor{Steps: tt.steps, StepParams: tt.desc}
			plan, err := c.Plan(d)
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				for _, s := range plan.Steps {
					if s.Name == "db-migrate" {
						tt.change(s.Spec)
					}
				}
			}
			sec := tt.secrets
			if sec == nil {
				sec = secrets
			}
			eff := &deploy.Effective{StepParams: tt.values, Secrets: sec}
			err = config.ResolveCustomSteps(plan, d, eff)
			if tt.errs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(eff.StepParams, tt.want) {
					t.Errorf("step params = %v, want %v", eff.StepParams, tt.want)
				}
				return
			}
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("err = %v, want EUNPROCESSABLE", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.String())
			}
			if !reflect.DeepEqual(got, tt.errs) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.errs, "\n  "))
			}
		})
	}
}

func TestPlanCapturesCustomSteps(t *testing.T) {
	c := parseSpecPipeline(t)
	plan, err := c.Plan(&deploy.Descriptor{Steps: map[string]bool{"db-migrate": true, "cdn-purge": false}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range plan.Steps {
		got = append(got, s.Name+":"+s.Type)
		if (s.Spec != nil) != (s.Type != config.StepTypeStandard) {
			t.Errorf("step %s: type %s, spec %v", s.Name, s.Type, s.Spec)
		}
		if s.Spec != nil && (s.Spec.MaxRetries != s.MaxRetries || s.Spec.Timeout != s.Timeout || s.Spec.Name != s.Name) {
			t.Errorf("step %s: the plan and its specification disagree", s.Name)
		}
	}
	want := []string{"config:standard", "secrets:standard", "artifacts:standard", "db-migrate:command", "deploy:standard", "activation:standard", "cleanup:standard"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan = %v, want %v", got, want)
	}
}
