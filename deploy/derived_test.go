package deploy_test

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestTickID(t *testing.T) {
	tick := time.Date(2026, 11, 30, 3, 0, 0, 0, time.FixedZone("CET", 3600))
	if id := deploy.TickID("nightly", tick); id != "nightly@20261130-020000" {
		t.Fatalf("TickID = %s, want the UTC time", id)
	}
	tests := []struct {
		id, schedule string
		want         bool
	}{
		{"nightly@20261130-020000", "nightly", true},
		{"a@b@20261130-020000", "a@b", true},
		{"nightly@20261130-0200", "", false},
		{"nightly@20261130-020000.x", "", false},
		{"nightly-20261130-020000", "", false},
		{"app@1.2.3", "", false},
		{"shop.rollback.db", "", false},
	}
	for _, tt := range tests {
		if got := deploy.IsTickID(tt.id); got != tt.want {
			t.Errorf("IsTickID(%q) = %v, want %v", tt.id, got, tt.want)
		}
		if name, ok := deploy.TickSchedule(tt.id); ok != tt.want || name != tt.schedule {
			t.Errorf("TickSchedule(%q) = %q, %v; want %q", tt.id, name, ok, tt.schedule)
		}
	}
}

func TestReleaseIDs(t *testing.T) {
	if id := deploy.ReleaseMemberID("shop", "db"); id != "shop.db" {
		t.Errorf("ReleaseMemberID = %s", id)
	}
	if id := deploy.ReleaseRollbackID("shop", "db"); id != "shop.rollback.db" {
		t.Errorf("ReleaseRollbackID = %s", id)
	}
}

// TestDerivedIs: a deploy under a derived ID is the derived one only with
// the same resource and origin.
func TestDerivedIs(t *testing.T) {
	res := deploy.Resource{Tenant: "demo", Application: "db", Environment: "prod"}
	rollback := deploy.Derived{ID: "shop.rollback.db", Resource: res, Release: "shop", RollbackOf: "shop.db"}
	tick := deploy.Derived{ID: "nightly@20261130-020000", Resource: res, Schedule: "nightly"}
	member := deploy.Derived{ID: "shop.db", Resource: res, Release: "shop"}
	own := func(w deploy.Derived) *deploy.Deployment {
		return &deploy.Deployment{ID: w.ID, Tenant: res.Tenant, Application: res.Application, Environment: res.Environment,
			Release: w.Release, RollbackOf: w.RollbackOf, Schedule: w.Schedule}
	}
	with := func(w deploy.Derived, change func(*deploy.Deployment)) *deploy.Deployment {
		d := own(w)
		change(d)
		return d
	}
	tests := []struct {
		name string
		want deploy.Derived
		d    *deploy.Deployment
		is   bool
	}{
		{"the rollback", rollback, own(rollback), true},
		{"the tick", tick, own(tick), true},
		{"the member", member, own(member), true},
		{"none", member, nil, false},
		{"another tenant", rollback, with(rollback, func(d *deploy.Deployment) { d.Tenant = "acme" }), false},
		{"another application", tick, with(tick, func(d *deploy.Deployment) { d.Application = "web" }), false},
		{"another environment", member, with(member, func(d *deploy.Deployment) { d.Environment = "qa" }), false},
		{"a submitted deploy", rollback, with(rollback, func(d *deploy.Deployment) { d.Release, d.RollbackOf = "", "" }), false},
		{"a manual rollback", rollback, with(rollback, func(d *deploy.Deployment) { d.Release = "" }), false},
		{"a rollback of another deploy", rollback, with(rollback, func(d *deploy.Deployment) { d.RollbackOf = "v1" }), false},
		{"a deploy of another release", member, with(member, func(d *deploy.Deployment) { d.Release = "other" }), false},
		{"a rollback of the release", member, with(member, func(d *deploy.Deployment) { d.RollbackOf = "shop.api" }), false},
		{"a deploy of another schedule", tick, with(tick, func(d *deploy.Deployment) { d.Schedule = "weekly" }), false},
		{"a deploy of no schedule", tick, with(tick, func(d *deploy.Deployment) { d.Schedule = "" }), false},
		{"another ID", member, with(member, func(d *deploy.Deployment) { d.ID = "shop.api" }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.want.Is(tt.d); got != tt.is {
				t.Fatalf("Is = %v, want %v", got, tt.is)
			}
		})
	}
}

func TestDerivedTaken(t *testing.T) {
	res := deploy.Resource{Tenant: "demo", Application: "db", Environment: "prod"}
	tests := []struct {
		want deploy.Derived
		msg  string
	}{
		{deploy.Derived{ID: "shop.rollback.db", Resource: res, Release: "shop", RollbackOf: "shop.db"},
			`deploy ID "shop.rollback.db" is already taken by a deploy manent did not create for the rollback of shop.db in release shop`},
		{deploy.Derived{ID: "nightly@20261130-020000", Resource: res, Schedule: "nightly"},
			`deploy ID "nightly@20261130-020000" is already taken by a deploy manent did not create for a tick of schedule nightly`},
		{deploy.Derived{ID: "shop.db", Resource: res, Release: "shop"},
			`deploy ID "shop.db" is already taken by a deploy manent did not create for release shop`},
	}
	for _, tt := range tests {
		err := tt.want.Taken()
		if err.Code != deploy.ECONFLICT || err.Error() != tt.msg {
			t.Errorf("Taken = %s %q, want CONFLICT %q", err.Code, err.Error(), tt.msg)
		}
		// The resource is the owner's own, but the error is about the ID alone.
		if strings.Contains(err.Error(), "demo") || strings.Contains(err.Error(), "prod") {
			t.Errorf("Taken %q names a resource", err.Error())
		}
	}
}
