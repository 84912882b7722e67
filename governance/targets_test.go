package governance_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// TestFreezeNarrowedToTargets: a window with targets never freezes the
// environment as a whole, and selects the targets its labels name, only
// while in force and in the environments it matches.
func TestFreezeNarrowedToTargets(t *testing.T) {
	at := time.Date(2026, 12, 25, 12, 0, 0, 0, time.UTC)
	cfg := config.Governance{Freezes: []config.FreezeRule{
		{Name: "eu-maintenance", Match: config.FreezeMatch{Environment: "prod"},
			Targets:  &config.FreezeTargets{Labels: map[string]string{"region": "eu"}},
			Absolute: []config.AbsoluteWindow{{From: "2026-12-25T00:00:00Z", To: "2026-12-26T00:00:00Z"}}},
	}}
	rules, err := governance.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	eu := deploy.Target{Host: "eu-1", Labels: map[string]string{"region": "eu"}}
	us := deploy.Target{Host: "us-1", Labels: map[string]string{"region": "us"}}
	tests := []struct {
		name     string
		env      string
		at       time.Time
		targets  []deploy.Target
		override string
		want     []string // nil: not frozen
	}{
		{"a target it selects", "prod", at, []deploy.Target{us, eu}, "", []string{"eu-1"}},
		{"no target it selects", "prod", at, []deploy.Target{us}, "", nil},
		{"another environment", "staging", at, []deploy.Target{eu}, "", nil},
		{"after the window", "prod", at.Add(12 * time.Hour), []deploy.Target{eu}, "", nil},
		{"overridden", "prod", at, []deploy.Target{eu}, "hotfix", []string{"eu-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := deploy.GovernanceInput{Tenant: "demo", Application: "web", Environment: tt.env, Time: tt.at, FreezeOverride: tt.override}
			if f, err := rules.Frozen(context.Background(), in); err != nil || f != nil {
				t.Fatalf("Frozen = %+v, %v: a window with targets freezes no environment", f, err)
			}
			f, err := rules.FrozenTargets(context.Background(), in, tt.targets)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if f != nil {
					t.Fatalf("FrozenTargets = %+v, want none", f)
				}
				return
			}
			want := time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC)
			if f == nil || f.Window != "eu-maintenance" || !f.Until.Equal(want) || !slices.Equal(f.Targets, tt.want) || f.Overridden != (tt.override != "") {
				t.Fatalf("FrozenTargets = %+v, want eu-maintenance until %v over %v", f, want, tt.want)
			}
		})
	}
}
