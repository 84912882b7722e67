package postgres_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// The outcomes the DORA metrics read: finished deploys only, dry runs left
// out, whether a step acted on a target, the rollback they were or made, and
// the descriptor's remediation flag and change time.
func TestOutcomes(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	committed := base.Add(-3 * time.Hour)
	runs := []struct {
		id, env string
		steps   []string
		state   deploy.State
		at      time.Duration
		change  func(*deploy.Deployment)
	}{
		{id: "old", env: "staging", steps: []string{"deploy"}, state: deploy.StateSuccess, at: -time.Hour},
		{id: "ok", env: "staging", steps: []string{"config", "deploy"}, state: deploy.StateSuccess, at: time.Hour},
		{id: "early", env: "staging", steps: []string{"config", "qa"}, state: deploy.StateError, at: 2 * time.Hour},
		{id: "late", env: "staging", steps: []string{"config", "activation"}, state: deploy.StateError, at: 3 * time.Hour},
		{id: "dry", env: "staging", steps: []string{"deploy"}, state: deploy.StateSuccess, at: 4 * time.Hour,
			change: func(d *deploy.Deployment) { d.DryRun = true }},
		{id: "fix", env: "staging", steps: []string{"deploy"}, state: deploy.StateSuccess, at: 5 * time.Hour,
			change: func(d *deploy.Deployment) {
				d.Descriptor.Remediation, d.Descriptor.Commit = true, &deploy.Commit{Time: &committed}
			}},
		{id: "ok.rollback", env: "staging", steps: []string{"rollback:deploy"}, state: deploy.StateSuccess, at: 6 * time.Hour,
			change: func(d *deploy.Deployment) { d.Release, d.RollbackOf = "", "ok" }},
		{id: "prod", env: "prod", steps: []string{"deploy"}, state: deploy.StateSuccess, at: 7 * time.Hour},
	}
	for _, r := range runs {
		d := deployment(r.id, r.env)
		if r.change != nil {
			r.change(&d)
		}
		f.run(d)
		for _, name := range r.steps {
			s := op(r.id, name, deploy.StepRunning)
			s.StartedAt = ptr(base.Add(r.at - time.Minute))
			f.begin(*s)
		}
		o := deploy.Outcome{ID: r.id, State: r.state, FinishedAt: base.Add(r.at), InService: r.state == deploy.StateSuccess}
		if r.state != deploy.StateSuccess {
			o.Error, o.FailedStep, o.Rollback = "failed", r.steps[len(r.steps)-1], deploy.RollbackCompleted
		}
		f.finish(o)
	}
	f.pending("running", "staging")

	type summary struct {
		ID, Env, State, Rollback, RollbackOf string
		Touched, Remediation                 bool
		Finished                             time.Time
		Change                               *time.Time
	}
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	staging := []summary{
		{ID: "ok", Env: "staging", State: "SUCCESS", Touched: true, Finished: at(1)},
		{ID: "early", Env: "staging", State: "ERROR", Rollback: "completed", Finished: at(2)},
		{ID: "late", Env: "staging", State: "ERROR", Rollback: "completed", Touched: true, Finished: at(3)},
		{ID: "fix", Env: "staging", State: "SUCCESS", Touched: true, Remediation: true, Finished: at(5), Change: &committed},
		{ID: "ok.rollback", Env: "staging", State: "SUCCESS", RollbackOf: "ok", Touched: true, Finished: at(6)},
	}
	prod := summary{ID: "prod", Env: "prod", State: "SUCCESS", Touched: true, Finished: at(7)}
	tests := []struct {
		name   string
		filter dora.Filter
		want   []summary
	}{
		{"every environment", dora.Filter{Since: base}, append(append([]summary{}, staging...), prod)},
		{"one environment", dora.Filter{Since: base, Scope: dora.Scope{Tenant: "demo", Application: "app", Environment: "prod"}}, []summary{prod}},
		{"another tenant", dora.Filter{Since: base, Scope: dora.Scope{Tenant: "other"}}, []summary{}},
		{"what the reader may read", dora.Filter{Since: base,
			Readable: func(r dora.Scope) bool { return r.Environment == "staging" }}, staging},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.store.Outcomes(f.ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			sums := []summary{}
			for _, o := range got {
				if o.SubmittedAt.IsZero() || o.StartedAt == nil || o.Tenant != "demo" || o.Application != "app" {
					t.Errorf("%s: submitted %v, started %v, scope %s/%s", o.ID, o.SubmittedAt, o.StartedAt, o.Tenant, o.Application)
				}
				sums = append(sums, summary{ID: o.ID, Env: o.Environment, State: o.State, Rollback: o.Rollback,
					RollbackOf: o.RollbackOf, Touched: o.TouchedTarget, Remediation: o.Remediation,
					Finished: *o.FinishedAt, Change: o.ChangeAt})
			}
			if !reflect.DeepEqual(sums, tt.want) {
				t.Errorf("outcomes\n got %+v\nwant %+v", sums, tt.want)
			}
		})
	}
}

// The fact of a deploy follows it after it finished: its rollback's
// outcome recorded later, a step of its rollback that starts later; and
// it outlives the deploy.
func TestOutcomeFactFollowsTheDeploy(t *testing.T) {
	f := newFixture(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := f.pool.Exec(f.ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	read := func() []string {
		t.Helper()
		got, err := f.store.Outcomes(f.ctx, dora.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range got {
			out = append(out, fmt.Sprintf("%s %s touched=%v rollback=%s", o.ID, o.State, o.TouchedTarget, o.Rollback))
		}
		return out
	}
	exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state) VALUES ('d', 'demo', 'app', 'prod', 'ENQUEUED')`)
	exec(`UPDATE manent.deployments SET state = 'PENDING', started_at = now() WHERE id = 'd'`)
	exec(`INSERT INTO manent.deployment_steps (deployment_id, name, position, state, kind, started_at) VALUES ('d', 'config', 0, 'ERROR', 'run', now())`)
	if got := read(); len(got) != 0 {
		t.Fatalf("a running deploy has a fact: %v", got)
	}
	exec(`UPDATE manent.deployments SET state = 'ERROR', finished_at = now() WHERE id = 'd'`)
	steps := []struct {
		name, sql, want string
	}{
		{"finished before touching a target", ``, "d ERROR touched=false rollback="},
		{"its rollback's outcome", `UPDATE manent.deployments SET rollback = 'running' WHERE id = 'd'`, "d ERROR touched=false rollback=running"},
		{"a rollback step starts", `INSERT INTO manent.deployment_steps (deployment_id, name, position, state, kind, started_at)
			VALUES ('d', 'deploy', 1, 'SUCCESS', 'rollback', now())`, "d ERROR touched=true rollback=running"},
		{"the deploy removed", `DELETE FROM manent.deployments WHERE id = 'd'`, "d ERROR touched=true rollback=running"},
	}
	for _, s := range steps {
		if s.sql != "" {
			exec(s.sql)
		}
		if got := read(); !reflect.DeepEqual(got, []string{s.want}) {
			t.Errorf("%s: %v, want %q", s.name, got, s.want)
		}
	}
}
