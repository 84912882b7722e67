package postgres_test

import (
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// inService returns the deploy in service in env of the demo app, "" for none.
func (f *fixture) inService(env string) string {
	f.t.Helper()
	if e := f.entry(env); e != nil {
		return e.DeploymentID
	}
	return ""
}

// entry returns the inventory entry of env of the demo app, nil for none.
func (f *fixture) entry(env string) *deploy.InventoryEntry {
	f.t.Helper()
	inv, err := f.store.Inventory(f.ctx, "demo")
	if err != nil {
		f.t.Fatal(err)
	}
	for _, e := range inv {
		if e.Application == "app" && e.Environment == env {
			return &e
		}
	}
	return nil
}

// putInService records the end of id's activation, which puts it in service.
func (f *fixture) putInService(id string) {
	f.t.Helper()
	f.begin(*op(id, "activation", ""))
	if _, err := f.advance(op(id, "activation", deploy.StepSuccess), deploy.StepEffects{InService: true}, nil, deploy.BeginOptions{}); err != nil {
		f.t.Fatalf("put %s in service: %v", id, err)
	}
}

// The effects of an operation land with its record: the deploy's columns,
// and the release in service of its environment.
func TestAdvanceEffects(t *testing.T) {
	f := newFixture(t)
	eff := deploy.Effective{Tenant: "demo", Application: "app", Environment: "staging", Plugin: "local",
		Targets: []deploy.Target{{Path: "/x"}, {Path: "/y"}}, ConfigSource: "envconfig/demo/app/staging.yml", ConfigRevision: "abc"}
	none := ""
	// prev ended in service before each case's deploy; later is put in
	// service after it.
	prev := func(id string) string { return id + "-prev" }
	later := func(id string) string { return id + "-later" }
	withPrev := func(id string) {
		f.ended(deployment(prev(id), id), deploy.Outcome{State: deploy.StateSuccess, InService: true,
			SHA256: "prev-sha", FinishedAt: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	}
	tests := []struct {
		name   string
		dryRun bool
		setup  func(id string)
		fx     deploy.StepEffects
		// restorePrev gives the environment back to prev.
		restorePrev bool
		check       func(t *testing.T, d *deploy.Deployment)
		service     func(id string) string // the deploy in service after, "" for none
	}{
		{name: "effective", fx: deploy.StepEffects{Effective: &eff}, check: func(t *testing.T, d *deploy.Deployment) {
			if !reflect.DeepEqual(d.Effective, eff) {
				t.Errorf("effective %+v, want %+v", d.Effective, eff)
			}
		}},
		{name: "sha256", fx: deploy.StepEffects{SHA256: "0123"}, check: func(t *testing.T, d *deploy.Deployment) {
			if d.SHA256 != "0123" {
				t.Errorf("sha256 %q", d.SHA256)
			}
		}},
		{name: "rollback state", fx: deploy.StepEffects{Rollback: deploy.RollbackRunning}, check: func(t *testing.T, d *deploy.Deployment) {
			if d.Rollback != deploy.RollbackRunning {
				t.Errorf("rollback %q", d.Rollback)
			}
		}},
		{name: "no effects keep the columns", setup: func(id string) {
			f.begin(*op(id, "config", ""))
			kept := deploy.StepEffects{SHA256: "kept", Effective: &eff, Rollback: deploy.RollbackRunning}
			if _, err := f.advance(op(id, "config", deploy.StepSuccess), kept, nil, deploy.BeginOptions{}); err != nil {
				t.Fatal(err)
			}
		}, check: func(t *testing.T, d *deploy.Deployment) {
			if d.SHA256 != "kept" || !reflect.DeepEqual(d.Effective, eff) || d.Rollback != deploy.RollbackRunning {
				t.Errorf("sha256 %q, effective %+v, rollback %q", d.SHA256, d.Effective, d.Rollback)
			}
		}},
		{name: "in service", fx: deploy.StepEffects{InService: true, SHA256: "new"}, check: func(t *testing.T, d *deploy.Deployment) {
			e := f.entry(d.Environment)
			if e == nil || e.DeploymentID != d.ID || e.SHA256 != "new" || e.Artifact != d.Artifact || e.DeployedBy != d.Requester || e.DeployedAt.IsZero() {
				t.Errorf("inventory %+v", e)
			}
		}},
		{name: "in service replaces the one before", setup: withPrev, fx: deploy.StepEffects{InService: true},
			service: func(id string) string { return id }},
		{name: "a dry run is never in service", dryRun: true, setup: withPrev, fx: deploy.StepEffects{InService: true}, service: prev},
		{name: "restore the one before", setup: func(id string) {
			withPrev(id)
			f.putInService(id)
		}, restorePrev: true, check: func(t *testing.T, d *deploy.Deployment) {
			p := f.get(prev(d.ID))
			e := f.entry(d.Environment)
			if e == nil || e.DeploymentID != p.ID || e.SHA256 != "prev-sha" || !e.DeployedAt.Equal(*p.FinishedAt) || e.DeployedBy != p.Requester {
				t.Errorf("inventory %+v, want the one of %s", e, p.ID)
			}
		}},
		{name: "restore when another deploy is in service since", setup: func(id string) {
			withPrev(id)
			f.putInService(id)
			f.ended(deployment(later(id), id), deploy.Outcome{State: deploy.StateSuccess, InService: true})
		}, restorePrev: true, service: later},
		{name: "restore nothing when nothing was", setup: func(id string) { f.putInService(id) },
			fx: deploy.StepEffects{Restore: &none}, service: func(string) string { return "" }},
		{name: "restore nothing when another deploy is in service since", setup: func(id string) {
			f.putInService(id)
			f.ended(deployment(later(id), id), deploy.Outcome{State: deploy.StateSuccess, InService: true})
		}, fx: deploy.StepEffects{Restore: &none}, service: later},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := slug(tt.name)
			d := deployment(id, id)
			d.DryRun = tt.dryRun
			f.run(d)
			if tt.setup != nil {
				tt.setup(id)
			}
			fx := tt.fx
			if tt.restorePrev {
				fx.Restore = ptr(prev(id))
			}
			done := op(id, "rollback:activation", deploy.StepSuccess)
			f.begin(*done)
			if _, err := f.advance(done, fx, nil, deploy.BeginOptions{}); err != nil {
				t.Fatalf("Advance: %v", err)
			}
			if tt.check != nil {
				tt.check(t, f.get(id))
			}
			if tt.service != nil {
				if got, want := f.inService(id), tt.service(id); got != want {
					t.Errorf("in service %q, want %q", got, want)
				}
			}
		})
	}
}
