package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func TestPlan(t *testing.T) {
	c, err := config.Parse([]byte(`
pipeline:
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory, max_retries: 5, timeout: 30m}
    - {name: qa, mode: optional, enabled: false}
    - {name: deploy, mode: mandatory}
    - {name: post-test, mode: optional}
    - {name: activation, mode: optional}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		steps map[string]bool
		// want is the plan's step names, or nil when wantErr is set.
		want    []string
		wantErr []string
	}{
		{
			name: "no steps section: the enabled steps",
			want: []string{"config", "secrets", "artifacts", "deploy", "post-test", "activation", "cleanup"},
		},
		{
			name:  "an optional step turned on and others off",
			steps: map[string]bool{"qa": true, "post-test": false, "activation": false},
			want:  []string{"config", "secrets", "artifacts", "qa", "deploy", "cleanup"},
		},
		{
			name:  "mandatory, config and cleanup turned on change nothing",
			steps: map[string]bool{"deploy": true, "config": true, "cleanup": true},
			want:  []string{"config", "secrets", "artifacts", "deploy", "post-test", "activation", "cleanup"},
		},
		{
			name:  "turning off mandatory or implicit steps, and unknown steps",
			steps: map[string]bool{"deploy": false, "secrets": false, "cleanup": false, "db-migrate": true, "qa": true},
			wantErr: []string{
				"steps.cleanup: cleanup always runs and cannot be turned off",
				"steps.db-migrate: unknown step: the pipeline has no step db-migrate",
				"steps.secrets: secrets is mandatory and cannot be turned off",
				"steps.deploy: deploy is mandatory and cannot be turned off",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := c.Plan(&deploy.Descriptor{Steps: tt.steps})
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
			if !reflect.DeepEqual(plan.Names(), tt.want) {
				t.Errorf("plan %v, want %v", plan.Names(), tt.want)
			}
		})
	}
}

func TestPlanStepSettings(t *testing.T) {
	c, err := config.Parse([]byte(`
pipeline:
  steps:
    - {name: artifacts, mode: mandatory, max_retries: 5, timeout: 30m}
    - {name: deploy, mode: mandatory, max_retries: 0}
    - {name: activation, mode: optional}
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.Plan(&deploy.Descriptor{})
	if err != nil {
		t.Fatal(err)
	}
	want := []deploy.PlannedStep{
		{Name: "config", Type: "standard", MaxRetries: 2, Timeout: 10 * time.Minute, Mandatory: true},
		{Name: "artifacts", Type: "standard", MaxRetries: 5, Timeout: 30 * time.Minute, Mandatory: true},
		{Name: "deploy", Type: "standard", MaxRetries: 0, Timeout: 10 * time.Minute, Mandatory: true},
		{Name: "activation", Type: "standard", MaxRetries: 2, Timeout: 10 * time.Minute, Mandatory: false},
		{Name: "cleanup", Type: "standard", MaxRetries: 2, Timeout: 10 * time.Minute, Mandatory: true},
	}
	if !reflect.DeepEqual(plan.Steps, want) {
		t.Errorf("got  %+v\nwant %+v", plan.Steps, want)
	}
}
