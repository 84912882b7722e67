package postgres_test

import (
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

func TestRequestCancel(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("queued", "a"))
	f.pending("running", "b")
	f.ended(deployment("done", "c"), deploy.Outcome{State: deploy.StateSuccess})
	waiting := deployment("waiting", "d")
	waiting.State = deploy.StateAwaitingApproval
	f.create(waiting)
	tests := []struct {
		name, id  string
		want      deploy.CancelResult
		code      deploy.Code
		state     deploy.State
		audits    int
		requested bool
	}{
		{"enqueued is cancelled at once", "queued", deploy.CancelResult{Before: deploy.StateEnqueued, Immediate: true}, "", deploy.StateCancelled, 1, true},
		{"waiting is cancelled at once", "waiting", deploy.CancelResult{Before: deploy.StateAwaitingApproval, Immediate: true}, "", deploy.StateCancelled, 1, true},
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
}

// The lines of a deploy that no longer exists (retention) are dropped; the
// others of the batch are written.
func TestAppendLogDropsLinesOfMissingDeploys(t *testing.T) {
	f := newFixture(t)
	f.pending("a", "staging")
	f.pending("z", "prod")
	tests := []struct {
		name  string
		lines []deploy.LogLine
		want  map[string]int
	}{
		{"only a missing deploy", []deploy.LogLine{{DeploymentID: "gone", Message: "x"}}, map[string]int{"a": 0, "z": 0}},
		// "gone" sorts between the others: the lock order visits it in the middle.
		{"missing in the middle of a batch", []deploy.LogLine{
			{DeploymentID: "z", Message: "1"}, {DeploymentID: "gone", Message: "2"},
			{DeploymentID: "a", Message: "3"}, {DeploymentID: "gone", Message: "4"}, {DeploymentID: "a", Message: "5"},
		}, map[string]int{"a": 2, "z": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.store.AppendLog(f.ctx, tt.lines...); err != nil {
				t.Fatalf("AppendLog: %v", err)
			}
			for id, n := range tt.want {
				if got := f.count("SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = ?", id); got != n {
					t.Errorf("%s has %d lines, want %d", id, got, n)
				}
			}
			if n := f.count("SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = 'gone'"); n != 0 {
				t.Errorf("%d lines of a missing deploy", n)
			}
		})
	}
	lines, err := f.store.Logs(f.ctx, "a", 0, 0)
	if err != nil || len(lines) != 2 || lines[0].Message != "3" || lines[1].Message != "5" || lines[1].Seq != 2 {
		t.Errorf("log of a = %+v, %v", lines, err)
	}
}

// Whatever a line holds comes back as it was written: the batch travels as
// array literals, whose quoting must survive every character a message
// may hold, and the order and times of a batch of several deploys stay.
func TestAppendLogKeepsEveryCharacter(t *testing.T) {
	f := newFixture(t)
	f.pending("q", "staging")
	f.pending("r", "prod")
	at := time.Date(2026, 12, 1, 10, 0, 0, 123456000, time.UTC)
	messages := []string{
		`"double" 'single' \back\slash`,
		`{braces}, commas, NULL`,
		`NULL`,
		``,
		"unicode é ü 漢字 🚀",
		strings.Repeat("x", 4096),
		`$1 ? ?? :name`,
	}
	var lines []deploy.LogLine
	for i, m := range messages {
		lines = append(lines,
			deploy.LogLine{DeploymentID: "q", Step: `st"ep{` + string(rune('a'+i)), Level: "info", Message: m, Time: at.Add(time.Duration(i) * time.Second)},
			deploy.LogLine{DeploymentID: "r", Message: m})
	}
	if err := f.store.AppendLog(f.ctx, lines...); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q", "r"} {
		got, err := f.store.Logs(f.ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(messages) {
			t.Fatalf("%s: %d lines, want %d", id, len(got), len(messages))
		}
		for i, l := range got {
			if l.Seq != int64(i+1) || l.Message != messages[i] {
				t.Errorf("%s line %d = seq %d %q, want seq %d %q", id, i, l.Seq, l.Message, i+1, messages[i])
			}
			if id == "q" && (!l.Time.Equal(at.Add(time.Duration(i)*time.Second)) || l.Step != `st"ep{`+string(rune('a'+i))) {
				t.Errorf("q line %d: time %s step %q", i, l.Time, l.Step)
			}
			if id == "r" && l.Time.IsZero() {
				t.Errorf("r line %d: no time", i)
			}
		}
	}
}
