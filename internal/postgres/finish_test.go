package postgres_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// finishAudits returns the details of the deployment.finish entries of id.
func (f *fixture) finishAudits(id string) []map[string]any {
	f.t.Helper()
	var rows []string
	if err := f.db.Bun().NewRaw(`SELECT details::text FROM manent.audit WHERE action = 'deployment.finish' AND target = ? ORDER BY id`, id).
		Scan(f.ctx, &rows); err != nil {
		f.t.Fatal(err)
	}
	var out []map[string]any
	for _, r := range rows {
		var m map[string]any
		if err := json.Unmarshal([]byte(r), &m); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestFinishRun(t *testing.T) {
	f := newFixture(t)
	end := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	exports := []deploy.Export{{Name: "url", Format: "string", Value: "https://x", Public: true}}
	// details is the deployment.finish entry of a deploy of deployment().
	details := func(env string, state deploy.State, extra map[string]any) map[string]any {
		m := map[string]any{"state": string(state), "tenant": "demo", "application": "app", "environment": env,
			"version": "1.2.3", "dry_run": false}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name    string
		dryRun  bool
		noRel   bool
		setup   func(id string) // after the deploy is created (ENQUEUED); nil: started
		o       deploy.Outcome
		want    deploy.Finished
		code    deploy.Code
		fails   bool
		state   deploy.State
		service bool                // the deploy is in service after
		failure *deploy.LastFailure // the last failure of its environment after (DeploymentID, Step, Error, Rollback)
		audits  func(env string) []map[string]any
	}{
		{name: "success in service",
			o: deploy.Outcome{State: deploy.StateSuccess, SHA256: "feed", FinishedAt: end, Actor: "token:ci", InService: true,
				Rollback: deploy.RollbackNotNeeded, Exports: exports},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateSuccess, service: true,
			audits: func(env string) []map[string]any {
				return []map[string]any{details(env, deploy.StateSuccess, map[string]any{"sha256": "feed", "rollback": "not_needed"})}
			}},
		{name: "success put in service by its activation", noRel: true, o: deploy.Outcome{State: deploy.StateSuccess},
			want: deploy.Finished{}, state: deploy.StateSuccess, service: false,
			audits: func(env string) []map[string]any { return []map[string]any{details(env, deploy.StateSuccess, nil)} }},
		{name: "error", o: deploy.Outcome{State: deploy.StateError, Error: "boom", FailedStep: "deploy", FinishedAt: end,
			Rollback: deploy.RollbackCompleted, Exports: exports, Actor: "token:ci"},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateError,
			failure: &deploy.LastFailure{Step: "deploy", Error: "boom", Rollback: deploy.RollbackCompleted},
			audits: func(env string) []map[string]any {
				return []map[string]any{details(env, deploy.StateError, map[string]any{"error": "boom", "rollback": "completed"})}
			}},
		{name: "max recovery attempts exceeded", o: deploy.Outcome{State: deploy.StateMaxRecoveryAttemptsExceeded, Error: "stopped", FailedStep: "deploy"},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateMaxRecoveryAttemptsExceeded,
			failure: &deploy.LastFailure{Step: "deploy", Error: "stopped"}},
		{name: "cancelled is no failure", o: deploy.Outcome{State: deploy.StateCancelled, Error: "cancelled by token:ops", FailedStep: "deploy"},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateCancelled},
		{name: "a dry run fails no environment", dryRun: true, o: deploy.Outcome{State: deploy.StateError, Error: "boom", FailedStep: "deploy"},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateError,
			audits: func(env string) []map[string]any {
				d := details(env, deploy.StateError, map[string]any{"error": "boom"})
				d["dry_run"] = true
				return []map[string]any{d}
			}},
		{name: "a dry run is never in service", dryRun: true, o: deploy.Outcome{State: deploy.StateSuccess, InService: true},
			want: deploy.Finished{Release: "rel-1"}, state: deploy.StateSuccess},
		{name: "final once", setup: func(id string) {
			f.start(id)
			f.finish(deploy.Outcome{ID: id, State: deploy.StateSuccess, Actor: "token:ci"})
		}, o: deploy.Outcome{State: deploy.StateError, Error: "late", FailedStep: "deploy", InService: true},
			want: deploy.Finished{}, state: deploy.StateSuccess,
			audits: func(env string) []map[string]any { return []map[string]any{details(env, deploy.StateSuccess, nil)} }},
		{name: "final once, the same state again", setup: func(id string) {
			f.start(id)
			f.finish(deploy.Outcome{ID: id, State: deploy.StateSuccess, SHA256: "first", FinishedAt: end})
		}, o: deploy.Outcome{State: deploy.StateSuccess, SHA256: "second", InService: true, Exports: exports},
			want: deploy.Finished{}, state: deploy.StateSuccess,
			audits: func(env string) []map[string]any {
				return []map[string]any{details(env, deploy.StateSuccess, map[string]any{"sha256": "first"})}
			}},
		// The cancel wrote the end (under the canceller); the run that
		// finishes later writes nothing more.
		{name: "cancelled meanwhile", setup: f.cancel, o: deploy.Outcome{State: deploy.StateError, Error: "boom", FailedStep: "config"},
			want: deploy.Finished{}, state: deploy.StateCancelled, audits: func(env string) []map[string]any {
				return []map[string]any{details(env, deploy.StateCancelled, map[string]any{"error": "cancelled by token:ops while ENQUEUED"})}
			}},
		{name: "not a final state", o: deploy.Outcome{State: deploy.StatePending}, fails: true, state: deploy.StatePending,
			audits: func(string) []map[string]any { return nil }},
		{name: "unknown", setup: func(string) {}, o: deploy.Outcome{ID: "nope", State: deploy.StateError}, code: deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := slug(tt.name)
			d := deployment(id, id)
			d.DryRun = tt.dryRun
			if tt.noRel {
				d.Release = ""
			}
			f.create(d)
			if tt.setup == nil {
				f.start(id)
			} else {
				tt.setup(id)
			}
			o := tt.o
			if o.ID == "" {
				o.ID = id
			}
			got, err := f.finishRun(o)
			if tt.fails {
				if err == nil {
					t.Fatal("FinishRun succeeded")
				}
			} else {
				wantCode(t, err, tt.code)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FinishRun = %+v, want %+v", got, tt.want)
			}
			if o.ID != id {
				return
			}
			after := f.get(id)
			if after.State != tt.state {
				t.Errorf("state %s, want %s", after.State, tt.state)
			}
			if e := f.entry(id); (e != nil && e.DeploymentID == id) != tt.service {
				t.Errorf("inventory %+v; in service: want %v", e, tt.service)
			}
			var failure *deploy.LastFailure
			if e := f.entry(id); e != nil && e.LastFailure != nil {
				lf := *e.LastFailure
				failure = &deploy.LastFailure{DeploymentID: lf.DeploymentID, Step: lf.Step, Error: lf.Error, Rollback: lf.Rollback}
				if lf.FinishedAt.IsZero() || !lf.FinishedAt.Equal(*after.FinishedAt) {
					t.Errorf("last failure finished at %v, the deploy at %v", lf.FinishedAt, after.FinishedAt)
				}
			}
			if tt.failure != nil {
				tt.failure.DeploymentID = id
			}
			if !reflect.DeepEqual(failure, tt.failure) {
				t.Errorf("last failure %+v, want %+v", failure, tt.failure)
			}
			if tt.audits != nil {
				if got, want := f.finishAudits(id), tt.audits(id); !reflect.DeepEqual(got, want) {
					t.Errorf("deployment.finish entries\n got %v\nwant %v", got, want)
				}
			}
		})
	}
	t.Run("columns", func(t *testing.T) {
		d := f.get("success-in-service")
		if d.SHA256 != "feed" || !reflect.DeepEqual(d.Exports, exports) || d.Rollback != deploy.RollbackNotNeeded ||
			d.FinishedAt == nil || !d.FinishedAt.Equal(end) || d.CurrentStep != "" || d.Error != "" {
			t.Errorf("succeeded deploy: %+v", d)
		}
		e := f.entry("success-in-service")
		if e.SHA256 != "feed" || !e.DeployedAt.Equal(end) || e.DeployedBy != "token:ci" || e.Artifact != d.Artifact {
			t.Errorf("inventory %+v", e)
		}
		if d := f.get("error"); d.Exports != nil || d.Error != "boom" || d.Rollback != deploy.RollbackCompleted {
			t.Errorf("failed deploy: exports %v, error %q, rollback %q", d.Exports, d.Error, d.Rollback)
		}
		if n := f.count("SELECT count(*) FROM manent.audit WHERE action = 'deployment.finish' AND target = 'success-in-service' AND actor = 'token:ci'"); n != 1 {
			t.Errorf("no deployment.finish entry by the actor")
		}
	})
}

// The deploys still waiting on one that ends are handed back, so that the
// engine wakes them; those that ended are not.
func TestFinishRunReturnsTheWaitingDependents(t *testing.T) {
	f := newFixture(t)
	f.pending("base", "staging")
	after := func(id string, state deploy.State) {
		d := deployment(id, "prod")
		d.State, d.Descriptor.After = state, []string{"base"}
		f.create(d)
	}
	after("w-b", deploy.StateWaitingDependency)
	after("w-a", deploy.StateWaitingDependency)
	after("gone", deploy.StateWaitingDependency)
	f.cancel("gone")
	after("other", deploy.StateEnqueued)
	d := deployment("unrelated", "qa")
	d.State, d.Descriptor.After = deploy.StateWaitingDependency, []string{"elsewhere"}
	f.create(d)
	got := f.finish(deploy.Outcome{ID: "base", State: deploy.StateSuccess})
	want := deploy.Finished{Dependents: []string{"other", "w-a", "w-b"}, Release: "rel-1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FinishRun = %+v, want %+v", got, want)
	}
}

// The deployment.finish entry is by the outcome's actor, else by the
// deploy's requester, written at the transaction's time, about the deploy's
// resource (the audit's trigger fills it).
func TestFinishRunAuditEntry(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, actor, want string
	}{
		{"by the actor", "token:ops", "token:ops"},
		{"by the requester", "", "token:requester"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := slug(tt.name)
			d := deployment(id, id)
			d.Requester = "token:requester"
			f.run(d)
			var txTime time.Time
			err := f.inTx(func(q dbos.Querier) error {
				if err := q.QueryRow(f.ctx, "SELECT now()").Scan(&txTime); err != nil {
					return err
				}
				_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess, Actor: tt.actor})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var actor, resources string
			var at time.Time
			if err := f.db.Bun().QueryRowContext(f.ctx, `SELECT actor, time, resources::text FROM manent.audit
				WHERE action = 'deployment.finish' AND target = ?`, id).Scan(&actor, &at, &resources); err != nil {
				t.Fatal(err)
			}
			if actor != tt.want {
				t.Errorf("actor %q, want %q", actor, tt.want)
			}
			if !at.Equal(txTime) {
				t.Errorf("time %v, want the transaction's, %v", at, txTime)
			}
			var got []map[string]string
			if err := json.Unmarshal([]byte(resources), &got); err != nil {
				t.Fatalf("resources %s: %v", resources, err)
			}
			if want := []map[string]string{{"tenant": "demo", "application": "app", "environment": id}}; !reflect.DeepEqual(got, want) {
				t.Errorf("resources %v, want %v", got, want)
			}
			if n := f.audit("deployment.finish", id); n != 1 {
				t.Errorf("%d deployment.finish entries, want 1", n)
			}
		})
	}
}
