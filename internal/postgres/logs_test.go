package postgres_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgxquerier"
)

// The Recorder appends lines in the transaction of a step, numbered after
// those the Store appended, with the same defaults.
func TestRecorderAppendLog(t *testing.T) {
	f := newFixture(t)
	f.pending("l", "staging")
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 789123000, time.UTC)
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "l", Time: t0, Message: "by the store"}); err != nil {
		t.Fatal(err)
	}
	appendLog := func(id string, lines ...deploy.LogLine) error {
		return f.inTx(func(q dbos.Querier) error { return f.rec.AppendLog(f.ctx, q, id, lines) })
	}
	tests := []struct {
		name  string
		id    string
		lines []deploy.LogLine
		want  []string // the log of l after: seq, time, step, level, message
	}{
		{"nothing", "l", nil, []string{"1 " + t0.Format(time.RFC3339Nano) + " - info by the store"}},
		{"lines", "l", []deploy.LogLine{
			{DeploymentID: "l", Time: t0.Add(time.Second), Step: "deploy", Level: "warn", Message: "one"},
			{DeploymentID: "l", Time: t0.Add(2 * time.Second), Step: "deploy", Message: "two"},
		}, []string{
			"1 " + t0.Format(time.RFC3339Nano) + " - info by the store",
			"2 " + t0.Add(time.Second).Format(time.RFC3339Nano) + " deploy warn one",
			"3 " + t0.Add(2*time.Second).Format(time.RFC3339Nano) + " deploy info two",
		}},
		{"a deploy that is gone", "gone", []deploy.LogLine{{DeploymentID: "gone", Time: t0, Message: "lost"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := appendLog(tt.id, tt.lines...); err != nil {
				t.Fatalf("AppendLog: %v", err)
			}
			if tt.want == nil {
				if n := f.count("SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = ?", tt.id); n != 0 {
					t.Errorf("%d lines of a deploy that is gone", n)
				}
				return
			}
			lines, err := f.store.Logs(f.ctx, "l", 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				step := l.Step
				if step == "" {
					step = "-"
				}
				got = append(got, fmt.Sprintf("%d %s %s %s %s", l.Seq, l.Time.Format(time.RFC3339Nano), step, l.Level, l.Message))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("log\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	// Both writers take their numbers from the deploy's row.
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "l", Message: "after"}); err != nil {
		t.Fatal(err)
	}
	lines, err := f.store.Logs(f.ctx, "l", 3, 0)
	if err != nil || len(lines) != 1 || lines[0].Seq != 4 {
		t.Errorf("next line = %+v, %v; want seq 4", lines, err)
	}
}

// The lines the Recorder appends in one transaction are numbered on from
// the deploy's row in their order, normalised as the Store's are, and none
// of them, nor their numbers, outlive a rollback.
func TestRecorderAppendLogInATransaction(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 789123456, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	stamp := func(s int) string { return at(s).Truncate(time.Microsecond).Format(time.RFC3339Nano) }
	tests := []struct {
		name string
		// batches are appended in one transaction, rolled back if rollback.
		batches  [][]deploy.LogLine
		rollback bool
		want     []string // the log after: seq, time, step, level, message
	}{
		{name: "batches numbered on in their order", batches: [][]deploy.LogLine{
			{{Time: at(3), Message: "one"}, {Time: at(1), Message: "two"}},
			{{Time: at(2), Message: "three"}},
		}, want: []string{"1 " + stamp(3) + " - info one", "2 " + stamp(1) + " - info two", "3 " + stamp(2) + " - info three"}},
		{name: "normalised", batches: [][]deploy.LogLine{
			{{Time: at(0), Step: "de\x00ploy\xff", Level: "warn", Message: "a\tb\x1b[31m\xffc"}},
		}, want: []string{"1 " + stamp(0) + " deploy\uFFFD warn a\\tb\\x1b[31m\\xffc"}},
		// The deploy's ID is the Recorder's argument: the lines are of it.
		{name: "the lines of the deploy named", batches: [][]deploy.LogLine{
			{{DeploymentID: "elsewhere", Time: at(0), Message: "mine"}},
		}, want: []string{"1 " + stamp(0) + " - info mine"}},
		{name: "rolled back", batches: [][]deploy.LogLine{{{Time: at(0), Message: "lost"}}}, rollback: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := slug(tt.name)
			f.pending(id, id)
			run := f.inTx
			if tt.rollback {
				run = f.rolledBack
			}
			err := run(func(q dbos.Querier) error {
				for _, b := range tt.batches {
					if err := f.rec.AppendLog(f.ctx, q, id, b); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatalf("AppendLog: %v", err)
			}
			if got := f.logOf(id); !slices.Equal(got, tt.want) {
				t.Errorf("log\n got %q\nwant %q", got, tt.want)
			}
			// The next line takes the number after the last one kept.
			if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: id, Message: "next"}); err != nil {
				t.Fatal(err)
			}
			lines, err := f.store.Logs(f.ctx, id, int64(len(tt.want)), 0)
			if err != nil || len(lines) != 1 || lines[0].Seq != int64(len(tt.want))+1 {
				t.Errorf("next line = %+v, %v; want seq %d", lines, err, len(tt.want)+1)
			}
		})
	}
}

// A line without a time takes the time it is appended at.
func TestRecorderAppendLogTimesLinesWithout(t *testing.T) {
	f := newFixture(t)
	f.pending("t", "staging")
	before := time.Now().UTC().Truncate(time.Microsecond)
	if err := f.inTx(func(q dbos.Querier) error {
		return f.rec.AppendLog(f.ctx, q, "t", []deploy.LogLine{{Message: "untimed"}})
	}); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UTC()
	lines, err := f.store.Logs(f.ctx, "t", 0, 0)
	if err != nil || len(lines) != 1 {
		t.Fatalf("Logs = %+v, %v; want one line", lines, err)
	}
	if got := lines[0].Time; got.Before(before) || got.After(after) {
		t.Errorf("time %v, want within [%v, %v]", got, before, after)
	}
}

// logOf summarises the log of id: seq, time, step ("-" for none), level,
// message.
func (f *fixture) logOf(id string) []string {
	f.t.Helper()
	lines, err := f.store.Logs(f.ctx, id, 0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, l := range lines {
		step := l.Step
		if step == "" {
			step = "-"
		}
		out = append(out, fmt.Sprintf("%d %s %s %s %s", l.Seq, l.Time.Format(time.RFC3339Nano), step, l.Level, l.Message))
	}
	return out
}

// A log writer's batch is stored once however often it is sent: a batch
// sent again after its commit went unanswered writes nothing, a newer one
// is written, and each writer counts alone. Lines without a batch
// (AppendLog) are never held back.
func TestAppendLogBatchOnce(t *testing.T) {
	f := newFixture(t)
	f.pending("b", "staging")
	line := func(msg string) []deploy.LogLine {
		return []deploy.LogLine{{DeploymentID: "b", Time: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC), Message: msg}}
	}
	steps := []struct {
		name   string
		writer string
		number uint64
		msg    string
		plain  bool // AppendLog, without a batch
		stored bool
	}{
		{"first batch", "w1", 1, "one", false, true},
		{"the same batch again", "w1", 1, "one", false, false},
		{"the next batch", "w1", 2, "two", false, true},
		{"the next batch again", "w1", 2, "two", false, false},
		{"an older batch", "w1", 1, "late", false, false},
		{"another writer's first batch", "w2", 1, "other", false, true},
		{"lines without a batch", "", 0, "plain", true, true},
		{"the same lines without a batch", "", 0, "plain", true, true},
		{"a batch past a gap", "w1", 9, "nine", false, true},
	}
	var want []string
	for _, s := range steps {
		var err error
		if s.plain {
			err = f.store.AppendLog(f.ctx, line(s.msg)...)
		} else {
			err = f.store.AppendLogBatch(f.ctx, deploy.LogBatch{Writer: s.writer, Number: s.number, Lines: line(s.msg)})
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.stored {
			want = append(want, fmt.Sprintf("%d 2026-02-03T04:05:06Z - info %s", len(want)+1, s.msg))
		}
		if got := f.logOf("b"); !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s: log\n got %q\nwant %q", s.name, got, want)
		}
	}
	for _, b := range []deploy.LogBatch{{Number: 3, Lines: line("x")}, {Writer: "w1", Lines: line("x")}} {
		if err := f.store.AppendLogBatch(f.ctx, b); err == nil {
			t.Errorf("AppendLogBatch(writer %q, number %d) = nil, want an error", b.Writer, b.Number)
		}
	}
	// A writer's first batch removes the rows of writers stopped long ago,
	// and only those.
	if err := f.exec("UPDATE manent.log_writers SET written_at = now() - interval '31 days' WHERE writer = 'w2'"); err != nil {
		t.Fatal(err)
	}
	if err := f.store.AppendLogBatch(f.ctx, deploy.LogBatch{Writer: "w3", Number: 1, Lines: line("three")}); err != nil {
		t.Fatal(err)
	}
	if n := f.count("SELECT count(*) FROM manent.log_writers WHERE writer IN ('w1', 'w3')"); n != 2 {
		t.Errorf("%d rows of the live writers, want 2", n)
	}
	if n := f.count("SELECT count(*) FROM manent.log_writers WHERE writer = 'w2'"); n != 0 {
		t.Errorf("the row of a writer stopped 31 days ago is kept")
	}
}

// During a rolling upgrade, a process of an earlier version numbers a
// deploy's lines by adding to deployments.log_seq: it takes the numbers
// this version counts, so the lines of both versions follow each other,
// whichever wrote first.
func TestLogNumbersSharedWithAnEarlierVersion(t *testing.T) {
	f := newFixture(t)
	f.pending("u", "staging")
	// The earlier version's statement (Recorder.AppendLog as it was) for n
	// lines.
	earlier := func(n int, at string) {
		t.Helper()
		if err := f.exec(`WITH seq AS (
				UPDATE manent.deployments SET log_seq = log_seq + ? WHERE id = 'u' RETURNING log_seq - ? AS base
			)
			INSERT INTO manent.deployment_logs (deployment_id, seq, time, step, level, message)
			SELECT 'u', seq.base + k, ?::timestamptz, '', 'info', 'earlier' FROM seq, generate_series(1, ?) AS k`,
			n, n, at, n); err != nil {
			t.Fatal(err)
		}
	}
	earlier(2, "2026-02-03T04:05:06Z")
	at := time.Date(2026, 2, 3, 4, 5, 7, 0, time.UTC)
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "u", Time: at, Message: "by the store"}); err != nil {
		t.Fatal(err)
	}
	if err := f.inTx(func(q dbos.Querier) error {
		return f.rec.AppendLog(f.ctx, q, "u", []deploy.LogLine{{DeploymentID: "u", Time: at, Message: "by the recorder"}})
	}); err != nil {
		t.Fatal(err)
	}
	earlier(1, "2026-02-03T04:05:08Z")
	want := []string{
		"1 2026-02-03T04:05:06Z - info earlier",
		"2 2026-02-03T04:05:06Z - info earlier",
		"3 2026-02-03T04:05:07Z - info by the store",
		"4 2026-02-03T04:05:07Z - info by the recorder",
		"5 2026-02-03T04:05:08Z - info earlier",
	}
	if got := f.logOf("u"); !reflect.DeepEqual(got, want) {
		t.Errorf("log\n got %q\nwant %q", got, want)
	}
}

// The outcome's lines (Recorder.AppendLog, in a transaction left open)
// and a writer's batch of the same deploy take their numbers in turn: the
// batch waits for the outcome's commit, and its line comes after the
// outcome's, without a gap or a collision.
func TestOutcomeLinesAndABatchTakeTurns(t *testing.T) {
	f := newFixture(t)
	f.pending("r", "staging")
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "r", Time: at, Message: "first"}); err != nil {
		t.Fatal(err)
	}
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) }()
	if err := f.rec.AppendLog(f.ctx, pgxquerier.New(tx), "r", []deploy.LogLine{
		{DeploymentID: "r", Time: at, Message: "outcome-1"}, {DeploymentID: "r", Time: at, Message: "outcome-2"}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- f.store.AppendLogBatch(f.ctx, deploy.LogBatch{Writer: "w", Number: 1,
			Lines: []deploy.LogLine{{DeploymentID: "r", Time: at, Message: "batch"}}})
	}()
	for f.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 0 {
		select {
		case err := <-done:
			t.Fatalf("the batch did not wait for the outcome's numbers: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := tx.Commit(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"1 2026-02-03T04:05:06Z - info first", "2 2026-02-03T04:05:06Z - info outcome-1",
		"3 2026-02-03T04:05:06Z - info outcome-2", "4 2026-02-03T04:05:06Z - info batch"}
	got := f.logOf("r")
	if len(got) != len(want) {
		t.Fatalf("log %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, got[i], want[i])
		}
	}
}
