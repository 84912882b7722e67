package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// counting is a querier that counts the statements sent through it: each
// is a round trip to PostgreSQL.
type counting struct {
	q dbos.Querier
	n int
}

func (c *counting) Exec(ctx context.Context, sql string, args ...any) (dbos.Result, error) {
	c.n++
	return c.q.Exec(ctx, sql, args...)
}

func (c *counting) Query(ctx context.Context, sql string, args ...any) (dbos.Rows, error) {
	c.n++
	return c.q.Query(ctx, sql, args...)
}

func (c *counting) QueryRow(ctx context.Context, sql string, args ...any) dbos.Row {
	c.n++
	return c.q.QueryRow(ctx, sql, args...)
}

// The writes every deploy makes at the start and the end of its run cost
// the round trips counted here: each of the Recorder's statements costs the
// process CPU, so a statement more is a regression.
func TestRecorderRoundTrips(t *testing.T) {
	f := newFixture(t)
	line := []deploy.LogLine{{Time: time.Now(), Message: "m"}}
	tests := []struct {
		name  string
		setup func(id string) // nil: a deploy started
		write func(q dbos.Querier, id string) error
		want  int
	}{
		{"start", func(id string) { f.create(deployment(id, id)) }, func(q dbos.Querier, id string) error {
			_, err := f.rec.StartRun(f.ctx, q, id, time.Now(), false)
			return err
		}, 1},
		{"rollback", nil, func(q dbos.Querier, id string) error {
			return f.rec.SetRollback(f.ctx, q, id, deploy.RollbackRunning)
		}, 1},
		{"log", nil, func(q dbos.Querier, id string) error { return f.rec.AppendLog(f.ctx, q, id, line) }, 1},
		{"skip two", nil, func(q dbos.Querier, id string) error {
			return f.rec.SkipSteps(f.ctx, q, id, []deploy.Step{*op(id, "deploy", deploy.StepSkipped), *op(id, "activation", deploy.StepSkipped)})
		}, 3},
		{"finish, not in service", nil, func(q dbos.Querier, id string) error {
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess})
			return err
		}, 2},
		{"finish in service", nil, func(q dbos.Querier, id string) error {
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateSuccess, InService: true})
			return err
		}, 3},
		{"finish in error", nil, func(q dbos.Querier, id string) error {
			_, err := f.rec.FinishRun(f.ctx, q, deploy.Outcome{ID: id, State: deploy.StateError, Error: "boom"})
			return err
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "rt-" + slug(tt.name)
			if tt.setup != nil {
				tt.setup(id)
			} else {
				f.pending(id, id)
			}
			c := &counting{}
			if err := f.inTx(func(q dbos.Querier) error {
				c.q = q
				return tt.write(c, id)
			}); err != nil {
				t.Fatal(err)
			}
			if c.n != tt.want {
				t.Errorf("%d statements, want %d", c.n, tt.want)
			}
		})
	}
}

func TestSetRollback(t *testing.T) {
	f := newFixture(t)
	f.pending("r", "staging")
	tests := []struct {
		name, id, state string
		code            deploy.Code
	}{
		{"running", "r", deploy.RollbackRunning, ""},
		{"completed", "r", deploy.RollbackCompleted, ""},
		{"unknown", "nope", deploy.RollbackRunning, deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.inTx(func(q dbos.Querier) error { return f.rec.SetRollback(f.ctx, q, tt.id, tt.state) })
			wantCode(t, err, tt.code)
			if tt.code != "" {
				return
			}
			if got := f.get(tt.id).Rollback; got != tt.state {
				t.Errorf("rollback %q, want %q", got, tt.state)
			}
		})
	}
}
