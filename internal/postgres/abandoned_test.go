package postgres_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

const waitSuffix = ":wait"

func TestFailAbandonedWithoutDBOS(t *testing.T) {
	f := newFixture(t)
	f.pending("r", "staging")
	got, err := f.store.FailAbandoned(f.ctx, waitSuffix)
	if err != nil || len(got) != 0 {
		t.Errorf("FailAbandoned before DBOS's tables exist = %v, %v", got, err)
	}
}

// DBOS's own schema is created by DBOS; the rows say which workflows it
// ended, as DBOS records them: a deploy's workflow has the deploy's ID, its
// wait workflow the ID with waitSuffix.
func TestFailAbandoned(t *testing.T) {
	f := newFixture(t)
	if err := dbos.Migrate(f.ctx, f.url); err != nil {
		t.Fatalf("DBOS migrate: %v", err)
	}
	deploys := []struct {
		id       string
		state    deploy.State // as created; PENDING and SUCCESS through a run
		workflow string       // the ID of its workflow in DBOS's table
		status   string
		want     deploy.State
	}{
		{"stuck", deploy.StatePending, "stuck", "MAX_RECOVERY_ATTEMPTS_EXCEEDED", deploy.StateError},
		{"crashed", deploy.StatePending, "crashed", "ERROR", deploy.StateError},
		{"queued", deploy.StateEnqueued, "queued", "ERROR", deploy.StateError},
		{"waiting", deploy.StateAwaitingApproval, "waiting" + waitSuffix, "ERROR", deploy.StateError},
		{"deps", deploy.StateWaitingDependency, "deps" + waitSuffix, "MAX_RECOVERY_ATTEMPTS_EXCEEDED", deploy.StateError},
		{"fine", deploy.StatePending, "fine", "PENDING", deploy.StatePending},
		{"waited", deploy.StatePending, "waited" + waitSuffix, "SUCCESS", deploy.StatePending},
		{"ended", deploy.StateSuccess, "ended", "MAX_RECOVERY_ATTEMPTS_EXCEEDED", deploy.StateSuccess},
		{"cancelled", deploy.StateCancelled, "cancelled" + waitSuffix, "ERROR", deploy.StateCancelled},
		{"foreign", deploy.StatePending, "foreign:other", "ERROR", deploy.StatePending},
	}
	var want []string
	for _, d := range deploys {
		switch d.state {
		case deploy.StatePending:
			f.pending(d.id, d.id)
		case deploy.StateSuccess:
			f.ended(deployment(d.id, d.id), deploy.Outcome{State: deploy.StateSuccess})
		case deploy.StateCancelled:
			f.waiting(d.id, deploy.StateDelayed)
			f.cancel(d.id)
		default:
			f.waiting(d.id, d.state)
		}
		if err := f.exec("INSERT INTO dbos.workflow_status (workflow_uuid, status, name) VALUES (?, ?, 'manent.deploy')", d.workflow, d.status); err != nil {
			t.Fatal(err)
		}
		if d.want == deploy.StateError {
			want = append(want, d.id)
		}
	}
	// crashed was running its deploy step.
	f.begin(*op("crashed", "deploy", ""))
	got, err := f.store.FailAbandoned(f.ctx, waitSuffix)
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("FailAbandoned = %v, %v; want %v", got, err, want)
	}
	for _, d := range deploys {
		t.Run(d.id, func(t *testing.T) {
			after := f.get(d.id)
			if after.State != d.want {
				t.Errorf("state %s, want %s", after.State, d.want)
			}
			if d.want != deploy.StateError {
				return
			}
			if after.FinishedAt == nil || after.Error == "" || after.CurrentStep != "" {
				t.Errorf("failed deploy: finished %v, error %q, current step %q", after.FinishedAt, after.Error, after.CurrentStep)
			}
			if n := f.audit("deployment.finish", d.id); n != 1 {
				t.Errorf("%d deployment.finish entries, want 1", n)
			}
			if d.state != deploy.StatePending {
				return // the others share an environment
			}
			if lf := f.entry(d.id); lf == nil || lf.LastFailure == nil || lf.LastFailure.DeploymentID != d.id || lf.LastFailure.Error == "" {
				t.Errorf("inventory entry %+v, want %s as the last failure", lf, d.id)
			}
		})
	}
	if s := step(f.get("crashed"), "deploy"); s.State != deploy.StepError || s.Error == "" || s.FinishedAt == nil {
		t.Errorf("the running step of crashed: %+v, want ERROR with the reason", s)
	}
	if lf := f.entry("crashed").LastFailure; lf.Step != "deploy" {
		t.Errorf("last failure of crashed in step %q, want deploy", lf.Step)
	}
	if again, err := f.store.FailAbandoned(f.ctx, waitSuffix); err != nil || len(again) != 0 {
		t.Errorf("second FailAbandoned = %v, %v", again, err)
	}
}

// A release whose workflow DBOS ended (ERROR) ends ERROR, with its audit
// entry; one whose workflow runs, or that ended, is left alone.
func TestFailAbandonedReleases(t *testing.T) {
	f := newFixture(t)
	if err := dbos.Migrate(f.ctx, f.url); err != nil {
		t.Fatalf("DBOS migrate: %v", err)
	}
	for _, r := range []struct{ id, status string }{{"broken", "ERROR"}, {"running", "PENDING"}, {"stuck", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"}} {
		if _, _, err := f.store.CreateRelease(f.ctx, deploy.Release{ID: r.id, Requester: "token:ci", OnFailure: "stop",
			Deploys: []deploy.ReleaseDeploy{{Name: "a", DeploymentID: r.id + "-a", Tenant: "demo", Application: "app", Environment: "staging"}}}, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := f.exec("INSERT INTO dbos.workflow_status (workflow_uuid, status, name) VALUES (?, ?, 'manent.release')", r.id+":release", r.status); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.store.FailAbandonedReleases(f.ctx, ":release")
	if err != nil || !slices.Equal(got, []string{"broken", "stuck"}) {
		t.Fatalf("FailAbandonedReleases = %v, %v; want [broken stuck]", got, err)
	}
	for id, want := range map[string]deploy.ReleaseState{"broken": deploy.ReleaseError, "stuck": deploy.ReleaseError, "running": deploy.ReleasePending} {
		r, err := f.store.GetRelease(f.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.State != want || (want == deploy.ReleaseError && (r.Error == "" || f.audit("release.finish", id) != 1)) {
			t.Errorf("release %s: %s (%q), want %s with its audit entry", id, r.State, r.Error, want)
		}
	}
	if again, err := f.store.FailAbandonedReleases(f.ctx, ":release"); err != nil || len(again) != 0 {
		t.Errorf("second FailAbandonedReleases = %v, %v", again, err)
	}
}

func step(d *deploy.Deployment, name string) deploy.Step {
	for _, s := range d.Steps {
		if s.Name == name {
			return s
		}
	}
	return deploy.Step{}
}
