package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// The steps and log lines have no foreign key to their deploy: every writer
// looks for the deploy itself, writes nothing for one that is gone and says
// so, and a removal of deploys takes their steps and lines with them.
func TestStepAndLogWritersOfAGoneDeploy(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	running := func(id, name string) *deploy.Step {
		s := op(id, name, deploy.StepRunning)
		s.StartedAt = &at
		return s
	}
	ended := func(id, name string) *deploy.Step {
		s := op(id, name, deploy.StepSuccess)
		s.FinishedAt = &at
		return s
	}
	line := deploy.LogLine{DeploymentID: "ghost", Step: "config", Level: "info", Message: "hello", Time: at}
	writers := []struct {
		name     string
		write    func() error
		notFound bool
	}{
		// In one statement, the engine writes on the pool with no
		// transaction around: what the statement wrote is committed even
		// when it answers nothing.
		{"an end and a start in one statement", func() error {
			_, err := f.rec.Advance(f.ctx, f.onPool(), ended("ghost", "config"), deploy.StepEffects{}, running("ghost", "artifacts"), deploy.BeginOptions{})
			return err
		}, true},
		{"an end alone in one statement", func() error {
			_, err := f.rec.Advance(f.ctx, f.onPool(), ended("ghost", "config"), deploy.StepEffects{}, nil, deploy.BeginOptions{})
			return err
		}, true},
		{"a start step by step", func() error {
			_, err := f.advance(nil, deploy.StepEffects{}, running("ghost", "config"), deploy.BeginOptions{ReadInService: true})
			return err
		}, true},
		{"an end step by step", func() error {
			_, err := f.advance(ended("ghost", "config"), deploy.StepEffects{}, nil, deploy.BeginOptions{ReadInService: true})
			return err
		}, true},
		{"skipped steps", func() error {
			return f.inTx(func(q dbos.Querier) error {
				return f.rec.SkipSteps(f.ctx, q, "ghost", []deploy.Step{*op("ghost", "qa", deploy.StepSkipped)})
			})
		}, true},
		{"the log of an outcome", func() error {
			return f.rec.AppendLog(f.ctx, f.onPool(), "ghost", []deploy.LogLine{line})
		}, false},
		{"the log writer", func() error { return f.store.AppendLog(f.ctx, line) }, false},
	}
	for _, w := range writers {
		err := w.write()
		switch {
		case w.notFound:
			wantCode(t, err, deploy.ENOTFOUND)
		case err != nil:
			t.Errorf("%s: %v", w.name, err)
		}
		if n := f.count(`SELECT count(*) FROM manent.deployment_steps WHERE deployment_id = 'ghost'`); n != 0 {
			t.Errorf("%s wrote %d step records of a deploy that is not", w.name, n)
		}
		if n := f.count(`SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = 'ghost'`); n != 0 {
			t.Errorf("%s wrote %d log lines of a deploy that is not", w.name, n)
		}
		if n := f.count(`SELECT count(*) FROM manent.log_sequences WHERE deployment_id = 'ghost'`); n != 0 {
			t.Errorf("%s numbered the log of a deploy that is not", w.name)
		}
	}

	// A removal takes the steps and the lines of the deploys it removes,
	// and only theirs.
	for _, id := range []string{"kept", "removed-1", "removed-2"} {
		f.pending(id, "e")
		f.begin(*running(id, "config"))
		if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: id, Step: "config", Level: "info", Message: "x", Time: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.exec(`DELETE FROM manent.deployments WHERE id IN ('removed-1', 'removed-2')`); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]string{"deployment_steps": "kept", "deployment_logs": "kept", "log_sequences": "kept"} {
		got := f.strings(`SELECT DISTINCT deployment_id FROM manent.` + table)
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s after the removal: %v, want [%s]", table, got, want)
		}
	}
}

// A removal of the deploy in progress while a writer writes one of its
// steps: the writer waits for it, then writes nothing and says not found
// (the foreign key's lock did that; the writers' own look does it now).
func TestStepWritersWaitForARemovalInProgress(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	ended := func(id, name string) *deploy.Step {
		s := op(id, name, deploy.StepSuccess)
		s.FinishedAt = &at
		return s
	}
	writers := map[string]func(id string) error{
		"in one statement": func(id string) error {
			_, err := f.rec.Advance(f.ctx, f.onPool(), ended(id, "artifacts"), deploy.StepEffects{}, nil, deploy.BeginOptions{})
			return err
		},
		"step by step": func(id string) error {
			_, err := f.rec.Advance(f.ctx, f.onPool(), ended(id, "artifacts"), deploy.StepEffects{}, nil, deploy.BeginOptions{ReadInService: true})
			return err
		},
		// In the finish's transaction, as the engine writes them.
		"skipped steps": func(id string) error {
			return f.inTx(func(q dbos.Querier) error {
				return f.rec.SkipSteps(f.ctx, q, id, []deploy.Step{*op(id, "qa", deploy.StepSkipped)})
			})
		},
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			id := "removing-" + slug(name)
			f.pending(id, "e")
			tx, err := f.pool.Begin(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) }()
			if _, err := tx.Exec(f.ctx, `DELETE FROM manent.deployments WHERE id = $1`, id); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- write(id) }()
			// The writer is blocked on the removal's lock (an event the
			// server shows, not a sleep), or already done.
			for blocked := false; !blocked; {
				select {
				case err := <-done:
					t.Fatalf("the write ended before the removal: %v", err)
				default:
				}
				blocked = f.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
					AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`) > 0
			}
			if err := tx.Commit(f.ctx); err != nil {
				t.Fatal(err)
			}
			wantCode(t, <-done, deploy.ENOTFOUND)
			if n := f.count(`SELECT count(*) FROM manent.deployment_steps WHERE deployment_id = ?`, id); n != 0 {
				t.Errorf("%d step records outlive their deploy", n)
			}
		})
	}
}

// A TRUNCATE of the deploys, which fires no DELETE trigger, empties their
// steps and log lines too.
func TestTruncateOfTheDeploysTakesTheirStepsAndLines(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	f.pending("t1", "e")
	s := op("t1", "config", deploy.StepRunning)
	s.StartedAt = &at
	f.begin(*s)
	if err := f.store.AppendLog(f.ctx, deploy.LogLine{DeploymentID: "t1", Step: "config", Level: "info", Message: "x", Time: at}); err != nil {
		t.Fatal(err)
	}
	if err := f.exec(`TRUNCATE manent.deployments CASCADE`); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"deployment_steps", "deployment_logs", "log_sequences"} {
		if n := f.count(`SELECT count(*) FROM manent.` + table); n != 0 {
			t.Errorf("%s: %d rows after the deploys were truncated", table, n)
		}
	}
}

// The log's writers and a deploy's operations never wait for each other:
// a batch of lines only share-locks the deploy's row, and an operation
// locks it without excluding that. A removal still excludes both: a batch
// of a deploy being removed waits for the removal, then writes nothing.
func TestLogWritersAndOperationsDoNotWaitForEachOther(t *testing.T) {
	f := newFixture(t)
	at := time.Date(2026, 4, 5, 6, 7, 8, 0, time.UTC)
	line := func(id string) deploy.LogLine {
		return deploy.LogLine{DeploymentID: id, Step: "config", Level: "info", Message: "x", Time: at}
	}
	ended := op("", "config", deploy.StepSuccess)
	ended.FinishedAt = &at
	begun := op("", "config", deploy.StepRunning)
	begun.StartedAt = &at
	// holding runs lock in a transaction left open, then write from the
	// pool: write must end without ever waiting for a lock or, with wait,
	// wait for one until the transaction commits (an event the server
	// shows, not a sleep).
	holding := func(t *testing.T, id, lock string, write func() error, wait bool) {
		t.Helper()
		tx, err := f.pool.Begin(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) }()
		if _, err := tx.Exec(f.ctx, lock, id); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- write() }()
		for {
			select {
			case err := <-done:
				if wait {
					t.Fatalf("the write ended before the lock was released: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				return
			default:
			}
			if f.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
				AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`) > 0 {
				if !wait {
					t.Fatal("the write waits for the lock")
				}
				if err := tx.Commit(f.ctx); err != nil {
					t.Fatal(err)
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	tests := []struct {
		name  string
		lock  string
		write func(id string) error
		wait  bool
		lines int // of the deploy after
	}{
		{"a batch during an operation's update",
			`UPDATE manent.deployments SET current_step = 'config', updated_at = now() WHERE id = $1`,
			func(id string) error { return f.store.AppendLog(f.ctx, line(id)) }, false, 1},
		{"a batch while an operation holds the deploy",
			`SELECT 1 FROM manent.deployments WHERE id = $1 FOR NO KEY UPDATE`,
			func(id string) error {
				return f.store.AppendLogBatch(f.ctx, deploy.LogBatch{Writer: "w-" + id, Number: 1, Lines: []deploy.LogLine{line(id)}})
			}, false, 1},
		{"an operation during a batch", `SELECT 1 FROM manent.deployments WHERE id = $1 FOR KEY SHARE`,
			func(id string) error {
				s := *ended
				s.DeploymentID = id
				_, err := f.rec.Advance(f.ctx, f.onPool(), &s, deploy.StepEffects{}, nil, deploy.BeginOptions{})
				return err
			}, false, 0},
		{"a batch during a removal", `DELETE FROM manent.deployments WHERE id = $1`,
			func(id string) error { return f.store.AppendLog(f.ctx, line(id)) }, true, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("lock-%d", i)
			f.pending(id, "e")
			s := *begun
			s.DeploymentID = id
			f.begin(s)
			holding(t, id, tt.lock, func() error { return tt.write(id) }, tt.wait)
			if n := f.count(`SELECT count(*) FROM manent.deployment_logs WHERE deployment_id = ?`, id); n != tt.lines {
				t.Errorf("%d lines, want %d", n, tt.lines)
			}
		})
	}
}
