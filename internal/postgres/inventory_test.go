package postgres_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// One release in service per environment, the one before it and its last
// failure: later successes replace the release (the replaced one becomes
// the one before), later failures the failure; dry runs and cancels leave
// all three; an environment with only a failure has an entry.
func TestInventory(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []struct {
		id, tenant, env string
		state           deploy.State
		dryRun          bool
		at              time.Duration
	}{
		{"s1", "demo", "staging", deploy.StateSuccess, false, 0},
		{"s2", "demo", "staging", deploy.StateSuccess, false, 1},
		{"s3", "demo", "staging", deploy.StateError, false, 2},
		{"s4", "demo", "staging", deploy.StateSuccess, true, 3},
		{"p1", "demo", "prod", deploy.StateSuccess, false, 4},
		{"p2", "demo", "prod", deploy.StateCancelled, false, 5},
		{"q1", "demo", "qa", deploy.StateMaxRecoveryAttemptsExceeded, false, 7},
		{"q2", "demo", "qa", deploy.StateError, true, 8},
		// Recorded after q1 but ended before it: q1 stays the last failure.
		{"q3", "demo", "qa", deploy.StateError, false, 6},
		{"o1", "other", "staging", deploy.StateSuccess, false, 9},
		// Three releases in a row: the one before is the second, not the first.
		{"d1", "demo", "dev", deploy.StateSuccess, false, 10},
		{"d2", "demo", "dev", deploy.StateSuccess, false, 11},
		{"d3", "demo", "dev", deploy.StateSuccess, false, 12},
	}
	for _, r := range runs {
		d := deployment(r.id, r.env)
		d.Tenant, d.DryRun = r.tenant, r.dryRun
		o := deploy.Outcome{State: r.state, FinishedAt: base.Add(r.at * time.Minute), InService: true, SHA256: "sha-" + r.id}
		if r.state != deploy.StateSuccess {
			o.Error, o.FailedStep, o.Rollback = "failed "+r.id, deploy.StepDeploy, deploy.RollbackDisabled
		}
		f.ended(d, o)
	}
	art := deployment("", "").Artifact
	at := func(m time.Duration) time.Time { return base.Add(m * time.Minute) }
	demo := []deploy.InventoryEntry{
		{Tenant: "demo", Application: "app", Environment: "dev", DeploymentID: "d3", Artifact: art, SHA256: "sha-d3",
			DeployedAt: at(12), DeployedBy: "token:ci", Previous: &deploy.PreviousRelease{DeploymentID: "d2", Artifact: art,
				SHA256: "sha-d2", DeployedAt: at(11), DeployedBy: "token:ci"}},
		{Tenant: "demo", Application: "app", Environment: "prod", DeploymentID: "p1", Artifact: art, SHA256: "sha-p1",
			DeployedAt: at(4), DeployedBy: "token:ci"},
		{Tenant: "demo", Application: "app", Environment: "qa", LastFailure: &deploy.LastFailure{DeploymentID: "q1",
			Step: deploy.StepDeploy, Error: "failed q1", FinishedAt: at(7), Rollback: deploy.RollbackDisabled}},
		{Tenant: "demo", Application: "app", Environment: "staging", DeploymentID: "s2", Artifact: art, SHA256: "sha-s2",
			DeployedAt: at(1), DeployedBy: "token:ci", Previous: &deploy.PreviousRelease{DeploymentID: "s1", Artifact: art,
				SHA256: "sha-s1", DeployedAt: at(0), DeployedBy: "token:ci"},
			LastFailure: &deploy.LastFailure{DeploymentID: "s3",
				Step: deploy.StepDeploy, Error: "failed s3", FinishedAt: at(2), Rollback: deploy.RollbackDisabled}},
	}
	other := []deploy.InventoryEntry{{Tenant: "other", Application: "app", Environment: "staging", DeploymentID: "o1",
		Artifact: art, SHA256: "sha-o1", DeployedAt: at(9), DeployedBy: "token:ci"}}
	tests := []struct {
		tenant string
		want   []deploy.InventoryEntry
	}{
		{"demo", demo},
		{"other", other},
		{"", append(append([]deploy.InventoryEntry{}, demo...), other...)},
		{"nobody", []deploy.InventoryEntry{}},
	}
	for _, tt := range tests {
		t.Run("tenant "+tt.tenant, func(t *testing.T) {
			got, err := f.store.Inventory(f.ctx, tt.tenant)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("inventory\n got %+v\nwant %+v", got, tt.want)
			}
			// The entry of one environment is the same, read alone.
			for _, want := range tt.want {
				res := deploy.Resource{Tenant: want.Tenant, Application: want.Application, Environment: want.Environment}
				one, err := f.store.InventoryOf(f.ctx, res)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(*one, want) {
					t.Errorf("InventoryOf(%v)\n got %+v\nwant %+v", res, *one, want)
				}
			}
		})
	}
	// An environment where nothing ran is its name alone.
	res := deploy.Resource{Tenant: "demo", Application: "app", Environment: "nowhere"}
	one, err := f.store.InventoryOf(f.ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	if want := (deploy.InventoryEntry{Tenant: "demo", Application: "app", Environment: "nowhere"}); !reflect.DeepEqual(*one, want) {
		t.Errorf("InventoryOf(%v) = %+v, want %+v", res, *one, want)
	}
}

// The one before is the last release that was in service before the
// current one and succeeded: what a rollback goes back to. A deploy that
// failed after its activation (rollback disabled) stayed in service but is
// none (a rollback to it is refused: it did not succeed); a deploy whose
// rollback undid its activation never counts, and the release it gave back
// keeps the one it had before. The order is the one they went in service
// in, not the one they were created in. ReleaseBefore of the release in
// service says the same.
func TestInventoryPrevious(t *testing.T) {
	f := newFixture(t)
	// Each event is run in order on the environment of its case.
	type event func(env, id string)
	succeed := func(env, id string) {
		f.ended(deployment(id, env), deploy.Outcome{State: deploy.StateSuccess, InService: true})
	}
	// failInService puts id in service at its activation, then fails
	// after it with the rollback disabled: it stays in service.
	failInService := func(env, id string) {
		f.run(deployment(id, env))
		f.putInService(id)
		f.finish(deploy.Outcome{ID: id, State: deploy.StateError, Error: "post-test failed",
			FailedStep: deploy.StepPostTest, Rollback: deploy.RollbackDisabled})
	}
	// rolledBack puts id in service, then its rollback gives the
	// environment back to the one in service before it.
	rolledBack := func(env, id string) {
		before := f.inService(env)
		f.run(deployment(id, env))
		f.putInService(id)
		undo := op(id, "rollback:activation", deploy.StepSuccess)
		f.begin(*undo)
		if _, err := f.advance(undo, deploy.StepEffects{Restore: &before}, nil, deploy.BeginOptions{}); err != nil {
			t.Fatalf("roll back %s: %v", id, err)
		}
		f.finish(deploy.Outcome{ID: id, State: deploy.StateError, Error: "post-test failed",
			FailedStep: deploy.StepPostTest, Rollback: deploy.RollbackCompleted})
	}
	dryRun := func(env, id string) {
		d := deployment(id, env)
		d.DryRun = true
		f.ended(d, deploy.Outcome{State: deploy.StateSuccess, InService: true})
	}
	tests := []struct {
		name              string
		events            []event
		current, previous string // "" for none
	}{
		{"a first release has none before", []event{succeed}, "e1", ""},
		{"two releases", []event{succeed, succeed}, "e2", "e1"},
		{"a failure left in service is none", []event{succeed, failInService, succeed}, "e3", "e1"},
		{"a failure left in service is current", []event{succeed, failInService}, "e2", "e1"},
		{"a rolled back deploy is none", []event{succeed, succeed, rolledBack}, "e2", "e1"},
		{"rolled back, then a new release", []event{succeed, rolledBack, succeed}, "e3", "e1"},
		{"the first release rolled back leaves nothing", []event{rolledBack}, "", ""},
		{"a dry run is none", []event{succeed, dryRun, succeed}, "e3", "e1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := slug(tt.name)
			for i, ev := range tt.events {
				ev(env, fmt.Sprintf("%s-e%d", env, i+1))
			}
			e := f.entry(env)
			got := [2]string{}
			if e != nil {
				got[0] = strings.TrimPrefix(e.DeploymentID, env+"-")
				if e.Previous != nil {
					got[1] = strings.TrimPrefix(e.Previous.DeploymentID, env+"-")
					if e.Previous.DeployedAt.IsZero() || e.Previous.Artifact.Version == "" || e.Previous.DeployedBy == "" {
						t.Errorf("previous %+v lacks its release", e.Previous)
					}
				}
			}
			if want := [2]string{tt.current, tt.previous}; got != want {
				t.Errorf("in service, before = %q, want %q", got, want)
			}
			if e == nil || e.DeploymentID == "" {
				return
			}
			res := deploy.Resource{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment}
			before, err := f.store.ReleaseBefore(f.ctx, res, e.DeploymentID)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimPrefix(before, env+"-"); got != tt.previous {
				t.Errorf("ReleaseBefore(%s) = %q, want %q", e.DeploymentID, got, tt.previous)
			}
		})
	}
}

// The releases in service of one application, what governance and the
// imports read: no other application's; one tenant's, or every tenant's for
// ""; one environment's, or every one's for ""; no environment that only
// has a failure, and neither the release before nor the last failure.
func TestInService(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []struct {
		id, tenant, app, env string
		state                deploy.State
	}{
		{"a1", "demo", "app", "staging", deploy.StateSuccess},
		{"a2", "demo", "app", "staging", deploy.StateSuccess},
		{"a3", "demo", "app", "staging", deploy.StateError},
		{"a4", "demo", "app", "prod", deploy.StateSuccess},
		{"a5", "demo", "app", "qa", deploy.StateError},
		{"w1", "demo", "web", "staging", deploy.StateSuccess},
		{"o1", "other", "app", "staging", deploy.StateSuccess},
		{"n1", "", "app", "dev", deploy.StateSuccess},
	}
	for i, r := range runs {
		d := deployment(r.id, r.env)
		d.Tenant, d.Application = r.tenant, r.app
		o := deploy.Outcome{State: r.state, FinishedAt: base.Add(time.Duration(i) * time.Minute), InService: true, SHA256: "sha-" + r.id}
		if r.state != deploy.StateSuccess {
			o.Error, o.FailedStep, o.Rollback = "failed "+r.id, deploy.StepDeploy, deploy.RollbackDisabled
		}
		f.ended(d, o)
	}
	art := deployment("", "").Artifact
	entry := func(tenant, app, env, id string, minute int) deploy.InventoryEntry {
		return deploy.InventoryEntry{Tenant: tenant, Application: app, Environment: env, DeploymentID: id, Artifact: art,
			SHA256: "sha-" + id, DeployedAt: base.Add(time.Duration(minute) * time.Minute), DeployedBy: "token:ci"}
	}
	tests := []struct {
		tenant, app, env string
		want             []deploy.InventoryEntry
	}{
		{"demo", "app", "", []deploy.InventoryEntry{entry("demo", "app", "prod", "a4", 3), entry("demo", "app", "staging", "a2", 1)}},
		{"demo", "app", "staging", []deploy.InventoryEntry{entry("demo", "app", "staging", "a2", 1)}},
		{"demo", "app", "qa", []deploy.InventoryEntry{}},
		{"demo", "web", "", []deploy.InventoryEntry{entry("demo", "web", "staging", "w1", 5)}},
		{"other", "app", "", []deploy.InventoryEntry{entry("other", "app", "staging", "o1", 6)}},
		{"", "app", "staging", []deploy.InventoryEntry{entry("demo", "app", "staging", "a2", 1), entry("other", "app", "staging", "o1", 6)}},
		{"", "app", "", []deploy.InventoryEntry{entry("", "app", "dev", "n1", 7), entry("demo", "app", "prod", "a4", 3),
			entry("demo", "app", "staging", "a2", 1), entry("other", "app", "staging", "o1", 6)}},
		{"demo", "nothing", "", []deploy.InventoryEntry{}},
		{"nobody", "app", "", []deploy.InventoryEntry{}},
	}
	for _, tt := range tests {
		got, err := f.store.InService(f.ctx, tt.tenant, tt.app, tt.env)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("InService(%q, %q, %q)\n got %+v\nwant %+v", tt.tenant, tt.app, tt.env, got, tt.want)
		}
	}
}
