package postgres_test

import (
	"database/sql"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5/pgconn"

	"manent.dev/manent/deploy"
)

func TestCreateDeploymentRoundTrip(t *testing.T) {
	f := newFixture(t)
	d := deployment("rt", "staging")
	d.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	created := f.create(d)
	got := f.get("rt")
	if !reflect.DeepEqual(created, got) {
		t.Errorf("CreateDeployment returned\n%+v\nGet returned\n%+v", created, got)
	}
	want := d
	want.CreatedAt = d.CreatedAt.Truncate(time.Microsecond)
	want.UpdatedAt = got.UpdatedAt
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("round trip\n got %+v\nwant %+v", *got, want)
	}
}

func TestCreateDeploymentIsIdempotent(t *testing.T) {
	f := newFixture(t)
	var calls int
	enqueue := func(tx any) error {
		calls++
		if _, ok := tx.(*sql.Tx); !ok {
			t.Errorf("enqueue got %T, want *sql.Tx", tx)
		}
		return nil
	}
	first, created, err := f.store.CreateDeployment(f.ctx, deployment("same", "staging"), enqueue)
	if err != nil || !created {
		t.Fatalf("first create = %v, %v", created, err)
	}
	other := deployment("same", "prod")
	other.Requester = "token:someone-else"
	again, created, err := f.store.CreateDeployment(f.ctx, other, enqueue)
	if err != nil || created {
		t.Fatalf("second create = created %v, %v; want the existing deploy", created, err)
	}
	if again.Environment != "staging" || again.Requester != first.Requester {
		t.Errorf("second create returned %s by %s, want the first deploy", again.Environment, again.Requester)
	}
	if calls != 1 {
		t.Errorf("enqueue called %d times, want 1", calls)
	}
}

// The enqueue callback writes in the deploy's transaction: both land or
// neither does.
func TestCreateDeploymentEnqueuesAtomically(t *testing.T) {
	f := newFixture(t)
	if err := f.exec("CREATE TABLE queue (id text)"); err != nil {
		t.Fatal(err)
	}
	enqueue := func(fail bool) func(any) error {
		return func(tx any) error {
			// DBOS passes []byte for text columns: it must land as text.
			if _, err := tx.(*sql.Tx).ExecContext(f.ctx, "INSERT INTO queue VALUES ($1)", []byte(`["r"]`)); err != nil {
				return err
			}
			if fail {
				return errors.New("queue refused")
			}
			return nil
		}
	}
	if _, _, err := f.store.CreateDeployment(f.ctx, deployment("fails", "staging"), enqueue(true)); err == nil {
		t.Fatal("create with a failing enqueue succeeded")
	}
	if _, err := f.store.Get(f.ctx, "fails"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Errorf("deploy stored although enqueue failed: %v", err)
	}
	if n := f.count("SELECT count(*) FROM queue"); n != 0 {
		t.Errorf("queue has %d rows after a failed enqueue", n)
	}
	if _, _, err := f.store.CreateDeployment(f.ctx, deployment("works", "staging"), enqueue(false)); err != nil {
		t.Fatal(err)
	}
	if n := f.count(`SELECT count(*) FROM queue WHERE id = '["r"]'`); n != 1 {
		t.Errorf("queue has %d matching rows, want 1", n)
	}
}

func TestConcurrentCreateOfOneID(t *testing.T) {
	f := newFixture(t)
	var created, enqueued atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			d, ok, err := f.store.CreateDeployment(f.ctx, deployment("race", "staging"), func(any) error {
				enqueued.Add(1)
				return nil
			})
			if err != nil {
				t.Errorf("CreateDeployment: %v", err)
				return
			}
			if d.ID != "race" {
				t.Errorf("got deploy %q", d.ID)
			}
			if ok {
				created.Add(1)
			}
		})
	}
	wg.Wait()
	if created.Load() != 1 || enqueued.Load() != 1 {
		t.Errorf("created %d times, enqueued %d times; want 1 and 1", created.Load(), enqueued.Load())
	}
	if n := f.count("SELECT count(*) FROM manent.deployments WHERE id = 'race'"); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}

func TestMarkStarted(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("q", "staging"))
	f.create(deployment("c", "prod"))
	if _, err := f.store.RequestCancel(f.ctx, "c", "token:ci"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name, id string
		want     bool
		code     deploy.Code
	}{
		{"enqueued starts", "q", true, ""},
		// Idempotent: the step may run again after a crash.
		{"already started", "q", true, ""},
		{"cancelled while queued", "c", false, ""},
		{"unknown", "nope", false, deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.store.MarkStarted(f.ctx, tt.id, at)
			wantCode(t, err, tt.code)
			if got != tt.want {
				t.Errorf("MarkStarted = %v, want %v", got, tt.want)
			}
		})
	}
	d := f.get("q")
	if d.State != deploy.StatePending || d.StartedAt == nil || !d.StartedAt.Equal(at) {
		t.Errorf("after MarkStarted: state %s, started_at %v", d.State, d.StartedAt)
	}
}

func TestStepLifecycle(t *testing.T) {
	f := newFixture(t)
	f.pending("s", "staging")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	begin := func(step deploy.PlannedStep, pos int, at time.Time) {
		t.Helper()
		cancelled, err := f.store.BeginStep(f.ctx, "s", step, pos, at)
		if err != nil || cancelled {
			t.Fatalf("BeginStep(%s) = %v, %v", step.Name, cancelled, err)
		}
	}
	begin(plan.Steps[0], 0, t0)
	if d := f.get("s"); d.CurrentStep != deploy.StepConfig || d.Steps[0].State != deploy.StepRunning {
		t.Fatalf("after BeginStep: current %q, steps %+v", d.CurrentStep, d.Steps)
	}
	if err := f.store.FinishStep(f.ctx, deploy.Step{DeploymentID: "s", Name: deploy.StepConfig, Position: 0,
		State: deploy.StepSuccess, Attempts: 1, FinishedAt: ptr(t0.Add(time.Second)), Output: map[string]string{"revision": "r1"}}); err != nil {
		t.Fatal(err)
	}
	// The artifacts step fails once and is retried.
	begin(plan.Steps[1], 1, t0.Add(2*time.Second))
	begin(plan.Steps[1], 1, t0.Add(3*time.Second))
	if err := f.store.FinishStep(f.ctx, deploy.Step{DeploymentID: "s", Name: deploy.StepArtifacts, Position: 1,
		State: deploy.StepError, FinishedAt: ptr(t0.Add(4 * time.Second)), Error: "download failed"}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SkipSteps(f.ctx, "s", plan.Steps[1:], deploy.StepSkipped); err != nil {
		t.Fatal(err)
	}
	d := f.get("s")
	if d.CurrentStep != "" {
		t.Errorf("current step %q after the last step ended", d.CurrentStep)
	}
	want := []deploy.Step{
		{DeploymentID: "s", Name: deploy.StepConfig, Position: 0, Type: "standard", State: deploy.StepSuccess, Attempts: 1,
			StartedAt: ptr(t0), FinishedAt: ptr(t0.Add(time.Second)), Output: map[string]string{"revision": "r1"}},
		{DeploymentID: "s", Name: deploy.StepArtifacts, Position: 1, Type: "standard", State: deploy.StepError, Attempts: 2,
			StartedAt: ptr(t0.Add(2 * time.Second)), FinishedAt: ptr(t0.Add(4 * time.Second)), Output: map[string]string{}, Error: "download failed"},
		{DeploymentID: "s", Name: deploy.StepDeploy, Position: 2, Type: "standard", State: deploy.StepSkipped, Output: map[string]string{}},
		{DeploymentID: "s", Name: deploy.StepActivation, Position: 3, Type: "standard", State: deploy.StepSkipped, Output: map[string]string{}},
	}
	if !reflect.DeepEqual(d.Steps, want) {
		t.Errorf("steps\n got %+v\nwant %+v", d.Steps, want)
	}
	for name, err := range map[string]error{
		"BeginStep":  second(f.store.BeginStep(f.ctx, "nope", plan.Steps[0], 0, t0)),
		"FinishStep": f.store.FinishStep(f.ctx, deploy.Step{DeploymentID: "nope", Name: "x", State: deploy.StepSuccess}),
		"SkipSteps":  f.store.SkipSteps(f.ctx, "nope", plan.Steps, deploy.StepSkipped),
	} {
		if deploy.ErrorCode(err) != deploy.ENOTFOUND {
			t.Errorf("%s on an unknown deploy: %v, want NOT_FOUND", name, err)
		}
	}
}

func TestBeginStepAfterCancelWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.pending("p", "staging")
	if _, err := f.store.BeginStep(f.ctx, "p", plan.Steps[0], 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.RequestCancel(f.ctx, "p", "token:ci"); err != nil {
		t.Fatal(err)
	}
	before := f.get("p")
	cancelled, err := f.store.BeginStep(f.ctx, "p", plan.Steps[1], 1, time.Now())
	if err != nil || !cancelled {
		t.Fatalf("BeginStep after cancel = %v, %v; want cancelled", cancelled, err)
	}
	after := f.get("p")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("BeginStep wrote after a cancel:\nbefore %+v\nafter  %+v", before, after)
	}
}

func TestRequestCancel(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("queued", "a"))
	f.pending("running", "b")
	f.pending("done", "c")
	if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: "done", State: deploy.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id  string
		want      deploy.CancelResult
		code      deploy.Code
		state     deploy.State
		audits    int
		requested bool
	}{
		{"enqueued is cancelled at once", "queued", deploy.CancelResult{Before: deploy.StateEnqueued, Immediate: true}, "", deploy.StateCancelled, 1, true},
		{"pending is flagged", "running", deploy.CancelResult{Before: deploy.StatePending}, "", deploy.StatePending, 1, true},
		{"pending twice is one request", "running", deploy.CancelResult{Before: deploy.StatePending}, "", deploy.StatePending, 1, true},
		{"cancelled is a conflict", "queued", deploy.CancelResult{}, deploy.ECONFLICT, deploy.StateCancelled, 1, true},
		{"finished is a conflict", "done", deploy.CancelResult{}, deploy.ECONFLICT, deploy.StateSuccess, 0, false},
		{"unknown", "nope", deploy.CancelResult{}, deploy.ENOTFOUND, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.store.RequestCancel(f.ctx, tt.id, "token:ops")
			wantCode(t, err, tt.code)
			if got != tt.want {
				t.Errorf("RequestCancel = %+v, want %+v", got, tt.want)
			}
			if tt.state == "" {
				return
			}
			d := f.get(tt.id)
			if d.State != tt.state || d.CancelRequested != tt.requested {
				t.Errorf("state %s, cancel requested %v; want %s, %v", d.State, d.CancelRequested, tt.state, tt.requested)
			}
			if tt.state == deploy.StateCancelled && d.FinishedAt == nil {
				t.Errorf("cancelled deploy has no finished_at")
			}
			if n := f.audit("deployment.cancel", tt.id); n != tt.audits {
				t.Errorf("%d deployment.cancel audit entries, want %d", n, tt.audits)
			}
		})
	}
}

func TestFinishDeployment(t *testing.T) {
	f := newFixture(t)
	f.pending("ok", "staging")
	end := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	out := deploy.Outcome{ID: "ok", State: deploy.StateSuccess, SHA256: "feed", FinishedAt: end, Actor: "token:ci"}
	if err := f.store.FinishDeployment(f.ctx, out); err != nil {
		t.Fatal(err)
	}
	// A re-run of the workflow step after a crash changes nothing.
	rerun := out
	rerun.State, rerun.Error = deploy.StateError, "late"
	if err := f.store.FinishDeployment(f.ctx, rerun); err != nil {
		t.Fatalf("second FinishDeployment: %v", err)
	}
	d := f.get("ok")
	if d.State != deploy.StateSuccess || d.SHA256 != "feed" || d.FinishedAt == nil || !d.FinishedAt.Equal(end) || d.Error != "" {
		t.Errorf("finished deploy: state %s sha %q finished %v error %q", d.State, d.SHA256, d.FinishedAt, d.Error)
	}
	if n := f.audit("deployment.finish", "ok"); n != 1 {
		t.Errorf("%d deployment.finish entries, want 1", n)
	}
	inv, err := f.store.Inventory(f.ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	want := []deploy.InventoryEntry{{Tenant: "demo", Application: "app", Environment: "staging", DeploymentID: "ok",
		Artifact: d.Artifact, SHA256: "feed", DeployedAt: end, DeployedBy: "token:ci"}}
	if !reflect.DeepEqual(inv, want) {
		t.Errorf("inventory\n got %+v\nwant %+v", inv, want)
	}
	if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: "nope", State: deploy.StateError}); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Errorf("finish unknown: %v", err)
	}
	if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: "ok", State: deploy.StatePending}); err == nil {
		t.Errorf("finish with a non-final state succeeded")
	}
}

// One current release per environment: later successes replace it, failures
// and dry runs leave it.
func TestInventoryHasOneRowPerEnvironment(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := []struct {
		id, env string
		state   deploy.State
		dryRun  bool
	}{
		{"s1", "staging", deploy.StateSuccess, false},
		{"s2", "staging", deploy.StateSuccess, false},
		{"s3", "staging", deploy.StateError, false},
		{"s4", "staging", deploy.StateSuccess, true},
		{"p1", "prod", deploy.StateSuccess, false},
		{"p2", "prod", deploy.StateCancelled, false},
	}
	for i, r := range runs {
		d := deployment(r.id, r.env)
		d.DryRun = r.dryRun
		f.create(d)
		if _, err := f.store.MarkStarted(f.ctx, r.id, base); err != nil {
			t.Fatal(err)
		}
		if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: r.id, State: r.state, FinishedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	inv, err := f.store.Inventory(f.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range inv {
		if _, dup := got[e.Environment]; dup {
			t.Errorf("two inventory rows for %s", e.Environment)
		}
		got[e.Environment] = e.DeploymentID
	}
	if want := map[string]string{"staging": "s2", "prod": "p1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inventory %v, want %v", got, want)
	}
	if other, err := f.store.Inventory(f.ctx, "other-tenant"); err != nil || len(other) != 0 {
		t.Errorf("inventory of another tenant = %v, %v", other, err)
	}
}

func TestSetEffectiveAndSHA256(t *testing.T) {
	f := newFixture(t)
	f.pending("e", "staging")
	eff := deploy.Effective{Tenant: "demo", Application: "app", Environment: "staging", Plugin: "local",
		Targets: []deploy.Target{{Path: "/x"}, {Path: "/y"}}, ConfigSource: "envconfig/demo/app/staging.yml", ConfigRevision: "abc"}
	if err := f.store.SetEffective(f.ctx, "e", eff); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetSHA256(f.ctx, "e", "0123"); err != nil {
		t.Fatal(err)
	}
	d := f.get("e")
	if !reflect.DeepEqual(d.Effective, eff) || d.SHA256 != "0123" {
		t.Errorf("effective %+v sha %q", d.Effective, d.SHA256)
	}
	wantCode(t, f.store.SetEffective(f.ctx, "nope", eff), deploy.ENOTFOUND)
	wantCode(t, f.store.SetSHA256(f.ctx, "nope", "x"), deploy.ENOTFOUND)
}

func TestAuditIsAppendOnly(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 2, 2, 2, 2, 2, 0, time.UTC)
	if err := f.store.AppendAudit(f.ctx, deploy.AuditEntry{Time: at, Actor: "token:ci", Action: "deployment.submit", Target: "x",
		Details: map[string]any{"version": "1"}}); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE manent.audit SET actor = 'someone'",
		"DELETE FROM manent.audit",
		"TRUNCATE manent.audit",
	} {
		t.Run(stmt, func(t *testing.T) {
			var pgErr *pgconn.PgError
			if err := f.exec(stmt); !errors.As(err, &pgErr) || pgErr.Code != "23001" {
				t.Fatalf("%s: %v, want the append-only trigger's restrict_violation", stmt, err)
			}
		})
	}
	if n := f.count("SELECT count(*) FROM manent.audit WHERE actor = 'token:ci' AND details->>'version' = '1' AND time = ?", at); n != 1 {
		t.Errorf("audit entry changed or gone: %d matching rows", n)
	}
}

func TestAppendLogAndLogs(t *testing.T) {
	f := newFixture(t)
	f.pending("l", "staging")
	f.pending("m", "prod")
	if err := f.store.AppendLog(f.ctx,
		deploy.LogLine{DeploymentID: "l", Step: "config", Message: "one"},
		deploy.LogLine{DeploymentID: "m", Message: "other deploy", Level: "warn"},
		deploy.LogLine{DeploymentID: "l", Step: "config", Message: "two"},
	); err != nil {
		t.Fatal(err)
	}
	// Writers of one log at once: every line gets its own number, no gap.
	var wg sync.WaitGroup
	for w := range 5 {
		wg.Go(func() {
			for i := range 20 {
				if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "l", Message: "w", Level: "info", Step: string(rune('a' + w))}); err != nil {
					t.Errorf("AppendLog %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var all []deploy.LogLine
	for after := int64(0); ; {
		page, err := f.store.Logs(f.ctx, "l", after, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, page...)
		after = page[len(page)-1].Seq
	}
	if len(all) != 102 {
		t.Fatalf("%d lines, want 102", len(all))
	}
	for i, l := range all {
		if l.Seq != int64(i+1) || l.DeploymentID != "l" || l.Time.IsZero() {
			t.Fatalf("line %d = %+v, want seq %d", i, l, i+1)
		}
	}
	if all[0].Message != "one" || all[1].Message != "two" || all[0].Level != "info" {
		t.Errorf("first lines %+v", all[:2])
	}
	m, err := f.store.Logs(f.ctx, "m", 0, 0)
	if err != nil || len(m) != 1 || m[0].Seq != 1 || m[0].Level != "warn" {
		t.Errorf("other deploy's log = %+v, %v", m, err)
	}
	_, err = f.store.Logs(f.ctx, "nope", 0, 10)
	wantCode(t, err, deploy.ENOTFOUND)
	wantCode(t, f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "nope", Message: "x"}), deploy.ENOTFOUND)
}

func TestMarkRecoveryExceededWithoutDBOS(t *testing.T) {
	f := newFixture(t)
	f.pending("r", "staging")
	got, err := f.store.MarkRecoveryExceeded(f.ctx)
	if err != nil || len(got) != 0 {
		t.Errorf("MarkRecoveryExceeded before DBOS's tables exist = %v, %v", got, err)
	}
}

func ptr[T any](v T) *T { return &v }

func second[A, B any](_ A, b B) B { return b }

// DBOS's own schema is created by DBOS; the rows say which workflows it gave
// up on, as DBOS records them (workflow ID = deploy ID).
func TestMarkRecoveryExceeded(t *testing.T) {
	f := newFixture(t)
	if err := dbos.Migrate(f.ctx, f.url); err != nil {
		t.Fatalf("DBOS migrate: %v", err)
	}
	f.pending("stuck", "a")
	f.pending("fine", "b")
	f.pending("ended", "c")
	if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: "ended", State: deploy.StateSuccess}); err != nil {
		t.Fatal(err)
	}
	for id, status := range map[string]string{"stuck": "MAX_RECOVERY_ATTEMPTS_EXCEEDED", "fine": "PENDING", "ended": "MAX_RECOVERY_ATTEMPTS_EXCEEDED"} {
		if err := f.exec("INSERT INTO dbos.workflow_status (workflow_uuid, status, name) VALUES (?, ?, 'manent.deploy')", id, status); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.store.MarkRecoveryExceeded(f.ctx)
	if err != nil || !reflect.DeepEqual(got, []string{"stuck"}) {
		t.Fatalf("MarkRecoveryExceeded = %v, %v; want [stuck]", got, err)
	}
	states := map[string]deploy.State{}
	for _, id := range []string{"stuck", "fine", "ended"} {
		states[id] = f.get(id).State
	}
	want := map[string]deploy.State{"stuck": deploy.StateMaxRecoveryAttemptsExceeded, "fine": deploy.StatePending, "ended": deploy.StateSuccess}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("states %v, want %v", states, want)
	}
	if d := f.get("stuck"); d.FinishedAt == nil || d.Error == "" {
		t.Errorf("stuck deploy: finished %v, error %q", d.FinishedAt, d.Error)
	}
	if n := f.audit("deployment.finish", "stuck"); n != 1 {
		t.Errorf("%d deployment.finish entries for stuck, want 1", n)
	}
	if again, err := f.store.MarkRecoveryExceeded(f.ctx); err != nil || len(again) != 0 {
		t.Errorf("second MarkRecoveryExceeded = %v, %v", again, err)
	}
}
