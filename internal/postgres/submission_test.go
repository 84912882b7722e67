package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// submissions are deploys of every shape CreateDeployment stores
// differently: each of what Get reads beside the row, and each of the
// details of the deployment.submit entry.
func submissions() []struct {
	name string
	d    deploy.Deployment
} {
	with := func(id string, change func(*deploy.Deployment)) deploy.Deployment {
		d := deployment(id, "staging")
		change(&d)
		return d
	}
	return []struct {
		name string
		d    deploy.Deployment
	}{
		{"complete", deployment("complete", "staging")},
		{"bare", deploy.Deployment{ID: "bare", Application: "app", Environment: "staging", State: deploy.StateEnqueued}},
		{"dry run", with("dry", func(d *deploy.Deployment) { d.DryRun, d.Release = true, "" })},
		{"after a deploy that exists and one that does not", with("after", func(d *deploy.Deployment) {
			d.State = deploy.StateWaitingDependency
			d.Descriptor.After = []string{"base", "gone", "base"}
			exp := time.Date(2026, 5, 6, 7, 8, 9, 987654321, time.UTC)
			d.AfterExpiresAt = &exp
		})},
		{"awaiting approval", with("approval", func(d *deploy.Deployment) {
			d.State = deploy.StateAwaitingApproval
			d.Decision.Approvals = &deploy.ApprovalRequirement{Count: 2, Groups: []string{"ops"}, Expiry: time.Hour}
			exp := time.Now().Add(time.Hour)
			d.ApprovalExpiresAt = &exp
		})},
		{"rollout and callbacks", with("rollout", func(d *deploy.Deployment) {
			d.Effective.Rollout = &deploy.RolloutSpec{Percentages: []int{50, 100}}
			d.Descriptor.Callbacks = []deploy.Callback{{URL: "https://hooks.example.com/a"}}
		})},
		{"of a schedule, a rollback, a promotion", with("derived", func(d *deploy.Deployment) {
			d.Schedule, d.RollbackOf, d.PromotedFrom, d.Release = "nightly", "complete", "bare", ""
		})},
		{"with custom steps", with("custom", func(d *deploy.Deployment) {
			d.Plan.Steps = append(d.Plan.Steps, deploy.PlannedStep{Name: "migrate", Type: "custom", SpecHash: "h1"},
				deploy.PlannedStep{Name: "smoke", Type: "custom", SpecHash: "h2"})
		})},
	}
}

// TestCreateDeploymentAnswersAsGet: the deploy CreateDeployment returns is
// the one Get reads right after, field for field, and none of it is the
// caller's: changing what was submitted changes nothing of it.
func TestCreateDeploymentAnswersAsGet(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("base", "prod"))
	for _, tc := range submissions() {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			// The plan's steps are the fixture's, shared by every test.
			d.Plan.Steps = slices.Clone(d.Plan.Steps)
			created := f.create(d)
			got := f.get(d.ID)
			if !reflect.DeepEqual(created, got) {
				t.Fatalf("CreateDeployment's deploy and Get's differ in %v\nCreateDeployment %#v\nGet              %#v",
					differing(*created, *got), *created, *got)
			}
			// The caller's slices and maps, changed in place.
			for i := range d.RequesterGroups {
				d.RequesterGroups[i] = "changed"
			}
			for i := range d.Descriptor.After {
				d.Descriptor.After[i] = "changed"
			}
			for k := range d.Descriptor.Labels {
				d.Descriptor.Labels[k] = "changed"
			}
			for k := range d.Effective.Params {
				d.Effective.Params[k] = "changed"
			}
			for i := range d.Plan.Steps {
				d.Plan.Steps[i].Name = "changed"
			}
			if !reflect.DeepEqual(created, got) {
				t.Errorf("the caller's deploy, changed, changed what CreateDeployment returned:\n%+v", created)
			}
		})
	}
}

// differing names the fields of a and b that differ.
func differing(a, b deploy.Deployment) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	return out
}

// TestSubmitAuditIsWhatAppendAuditWrites: the deployment.submit entry the
// submission's statement writes is the one the audit log's own insert
// writes for it, to the byte of its details and resources.
func TestSubmitAuditIsWhatAppendAuditWrites(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("base", "prod"))
	for _, tc := range submissions() {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			d.Decision.Reason = `quotes ' " and <&> \ and é`
			f.create(d)
			if err := f.store.AppendAudit(f.ctx, postgres.SubmitAudit(d)); err != nil {
				t.Fatal(err)
			}
			got := f.strings(`SELECT concat_ws(' | ', actor, action, target, details::text, resources::text)
				FROM manent.audit WHERE action = 'deployment.submit' AND target = ? ORDER BY id`, d.ID)
			if len(got) != 2 || got[0] != got[1] {
				t.Fatalf("entries of the submission, then of AppendAudit:\n%s", strings.Join(got, "\n"))
			}
			if !strings.Contains(got[0], `"application": "app"`) || !strings.Contains(got[0], `"application": "app", "environment": "staging"}]`) {
				t.Errorf("entry %s lacks its details or resources", got[0])
			}
		})
	}
}

// TestCreateDeploymentUnderARetiredID: a deploy under an ID retention
// retired is refused, and nothing of it is written: no row, no
// dependency, no audit entry, no workflow, no notification.
func TestCreateDeploymentUnderARetiredID(t *testing.T) {
	f := newFixture(t)
	if err := f.exec("CREATE TABLE queue (id text)"); err != nil {
		t.Fatal(err)
	}
	if err := f.exec("INSERT INTO manent.retired_ids (id) VALUES ('old')"); err != nil {
		t.Fatal(err)
	}
	f.create(deployment("base", "prod"))
	events := f.events().Subscribe(f.ctx, "")
	d := deployment("old", "staging")
	d.Descriptor.After = []string{"base"}
	_, created, err := f.store.CreateDeployment(f.ctx, d, func(tx any) error {
		return f.enqueueIn(tx, d.ID)
	})
	if de := (*deploy.Error)(nil); !errors.As(err, &de) || de.Code != deploy.ECONFLICT || !strings.Contains(de.Message, "was used before") || created {
		t.Fatalf("CreateDeployment under a retired ID = created %v, %v; want CONFLICT was used before", created, err)
	}
	for what, query := range map[string]string{
		"deploy":     "SELECT count(*) FROM manent.deployments WHERE id = 'old'",
		"dependency": "SELECT count(*) FROM manent.dependencies WHERE deployment_id = 'old'",
		"audit":      "SELECT count(*) FROM manent.audit WHERE target = 'old'",
		"workflow":   "SELECT count(*) FROM queue WHERE id = 'old'",
	} {
		if n := f.count(query); n != 0 {
			t.Errorf("%d %s rows of the refused deploy", n, what)
		}
	}
	// Notifications are delivered in the order of their commits: the next
	// deploy's arrives, and nothing of the refused one before it.
	if _, _, err := f.store.CreateDeployment(f.ctx, deployment("next", "staging"), func(tx any) error {
		return f.enqueueIn(tx, "next")
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(eventWait)
	for done := false; !done; {
		select {
		case ev := <-events:
			if ev.DeploymentID == "old" {
				t.Fatalf("the refused deploy was notified: %+v", ev)
			}
			done = ev == deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "next"}
		case <-deadline:
			t.Fatalf("no notification of the next deploy within %s", eventWait)
		}
	}
	if n := f.count("SELECT count(*) FROM queue WHERE id = 'next'"); n != 1 {
		t.Errorf("the next deploy's workflow: %d rows, want 1", n)
	}
}

// enqueueIn stands for the workflow of id, enqueued in the deploy's
// transaction tx: a row of the table queue.
func (f *fixture) enqueueIn(tx any, id string) error {
	_, err := tx.(*sql.Tx).ExecContext(f.ctx, "INSERT INTO queue VALUES ($1)", id)
	return err
}

// A submit of an ID whose deploy a retention is removing waits for it, and
// is then refused: the retired ID the retention wrote is read after the
// wait (a check in the insert's own statement would read the snapshot
// taken before it, without the ID).
func TestCreateDeploymentWaitsForARetentionOfItsID(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("old", "staging"))
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) }()
	// As the retention does, in one transaction.
	for _, q := range []string{`DELETE FROM manent.deployments WHERE id = 'old'`, `INSERT INTO manent.retired_ids (id) VALUES ('old')`} {
		if _, err := tx.Exec(f.ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := f.store.CreateDeployment(f.ctx, deployment("old", "prod"), func(any) error { return nil })
		done <- err
	}()
	// The insert waits on the removal's lock (what the server shows, not a
	// sleep).
	for blocked := false; !blocked; {
		select {
		case err := <-done:
			t.Fatalf("the submit ended before the retention: %v", err)
		default:
		}
		blocked = f.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`) > 0
	}
	if err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-done, deploy.ECONFLICT)
	if n := f.count(`SELECT count(*) FROM manent.deployments WHERE id = 'old'`); n != 0 {
		t.Errorf("%d deploys under the retired ID", n)
	}
}
