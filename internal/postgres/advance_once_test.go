package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// waitLocked waits until a session of the test's database waits on a lock.
func (f *fixture) waitLocked(t *testing.T, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			t.Fatalf("ended before it waited on the lock: %v", err)
		default:
		}
		if f.count(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no session waits on a lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The start that reads what is in service (the activation's checkpoint)
// reads it after it has the deploy's lock: a statement's snapshot is taken
// before it waits for a lock (the log writer's FOR UPDATE, a cancel), so a
// read in the statement that locks would miss a deploy put in service
// meanwhile, and the checkpoint would record the wrong release as the one
// before, which undoing the activation gives the inventory back.
func TestAdvanceReadsWhatIsInServiceAfterTheLock(t *testing.T) {
	f := newFixture(t)
	for _, general := range []bool{false, true} {
		name := map[bool]string{false: "one statement", true: "general path"}[general]
		t.Run(name, func(t *testing.T) {
			rec := f.rec
			env := "e-once"
			if general {
				rec, env = postgres.NewStepByStepRecorder(), "e-general"
			}
			p, x, y := env+"-p", env+"-x", env+"-y"
			inService := deploy.StepEffects{InService: true}
			// P is in service; X runs its verify; Y is about to activate.
			f.pending(p, env)
			f.begin(*op(p, "activation", ""))
			if _, err := f.advance(op(p, "activation", deploy.StepSuccess), inService, nil, deploy.BeginOptions{}); err != nil {
				t.Fatal(err)
			}
			f.pending(x, env)
			f.begin(*op(x, "verify", ""))
			f.pending(y, env)
			f.begin(*op(y, "activation", ""))

			// The log writer holds X's row (Store.AppendLog locks FOR UPDATE).
			lock, err := f.pool.Begin(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lock.Rollback(context.WithoutCancel(f.ctx)) }()
			if _, err := lock.Exec(f.ctx, `SELECT 1 FROM manent.deployments WHERE id = $1 FOR UPDATE`, x); err != nil {
				t.Fatal(err)
			}
			type result struct {
				b   *deploy.Begun
				err error
			}
			res := make(chan result, 1)
			errs := make(chan error, 1)
			go func() {
				// As the engine's endOp: on the pool, one statement.
				b, err := rec.Advance(f.ctx, f.onPool(), op(x, "verify", deploy.StepSuccess), deploy.StepEffects{},
					op(x, "checkpoint:activation", deploy.StepRunning), deploy.BeginOptions{HonourCancel: true, ReadInService: true})
				res <- result{b, err}
				errs <- err
			}()
			f.waitLocked(t, errs)
			// Meanwhile Y goes in service, committed.
			if _, err := f.advance(op(y, "activation", deploy.StepSuccess), inService, nil, deploy.BeginOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := lock.Commit(f.ctx); err != nil {
				t.Fatal(err)
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			var now string
			if err := f.db.Bun().QueryRowContext(f.ctx, `SELECT deployment_id FROM manent.inventory WHERE environment = ?`, env).Scan(&now); err != nil {
				t.Fatal(err)
			}
			if r.b.InService != now {
				t.Errorf("the checkpoint read %q in service, but %q was when its start was written (committed before it)", r.b.InService, now)
			}
		})
	}
}

// The engine runs an Advance that AdvancesAtOnce on the pool, where each
// statement is a transaction of its own: it must be one statement, and the
// cases a deploy takes every time must be one.
func TestAdvanceAtOnceIsOneStatement(t *testing.T) {
	f := newFixture(t)
	inService := deploy.StepEffects{InService: true, SHA256: "beef"}
	tests := []struct {
		name       string
		setup      []string // operations begun before
		done, next string
		fx         deploy.StepEffects
		o          deploy.BeginOptions
		once       bool
	}{
		{"the first start", nil, "", "config", deploy.StepEffects{}, deploy.BeginOptions{HonourCancel: true}, true},
		{"an end and a start", []string{"config"}, "config", "artifacts", deploy.StepEffects{}, deploy.BeginOptions{HonourCancel: true}, true},
		{"an end in service", []string{"activation"}, "activation", "cleanup", inService, deploy.BeginOptions{}, true},
		{"the last end", []string{"cleanup"}, "cleanup", "", deploy.StepEffects{}, deploy.BeginOptions{}, true},
		{"a start that reads in service", []string{"verify"}, "verify", "checkpoint:activation", deploy.StepEffects{},
			deploy.BeginOptions{HonourCancel: true, ReadInService: true}, false},
		{"an end and a start of one record", []string{"config"}, "config", "config", deploy.StepEffects{}, deploy.BeginOptions{}, false},
		{"an undo of the inventory", []string{"rollback:activation"}, "rollback:activation", "", deploy.StepEffects{Restore: new(string)},
			deploy.BeginOptions{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "one-" + slug(tt.name)
			f.pending(id, id)
			for _, s := range tt.setup {
				f.begin(*op(id, s, ""))
			}
			var done, next *deploy.Step
			if tt.done != "" {
				done = op(id, tt.done, deploy.StepSuccess)
			}
			if tt.next != "" {
				next = op(id, tt.next, deploy.StepRunning)
			}
			if got := f.rec.AdvancesAtOnce(done, tt.fx, next, tt.o); got != tt.once {
				t.Fatalf("AdvancesAtOnce = %v, want %v", got, tt.once)
			}
			if !tt.once {
				return
			}
			c := &counting{q: f.onPool()}
			if _, err := f.rec.Advance(f.ctx, c, done, tt.fx, next, tt.o); err != nil {
				t.Fatal(err)
			}
			if c.n != 1 {
				t.Errorf("%d statements on the pool, want 1 (each is its own transaction there)", c.n)
			}
		})
	}
}

// Hostile text in every field the submission's statement inlines lands as
// written: the dependencies, the audit entry's actor and details.
func TestCreateDeploymentStoresHostileTextAsWritten(t *testing.T) {
	f := newFixture(t)
	hostile := []string{`a'b`, `c"d`, `e\f`, `g,h`, `{i}`, `NULL`, `?`, `$1`, `'); DROP TABLE manent.audit; --`, `\'`, `j k`}
	d := deployment("hostile", "staging")
	d.Requester = `token:x'); SELECT pg_sleep(10); --\`
	d.Artifact.Version = `1.0'"\?$1`
	d.Descriptor.After = hostile
	d.State = deploy.StateWaitingDependency
	d.Decision.Reason = `r'\"?`
	created := f.create(d)
	if got := f.strings(`SELECT depends_on FROM manent.dependencies WHERE deployment_id = ? ORDER BY depends_on`, d.ID); !slices.Equal(got, sorted(hostile)) {
		t.Errorf("dependencies %q, want %q", got, sorted(hostile))
	}
	if got := f.strings(`SELECT actor FROM manent.audit WHERE action = 'deployment.submit' AND target = ?`, d.ID); !slices.Equal(got, []string{d.Requester}) {
		t.Errorf("actor %q, want %q", got, d.Requester)
	}
	if got := f.strings(`SELECT details->>'version' FROM manent.audit WHERE action = 'deployment.submit' AND target = ?`, d.ID); !slices.Equal(got, []string{d.Artifact.Version}) {
		t.Errorf("version %q, want %q", got, d.Artifact.Version)
	}
	if len(created.Dependencies) != len(hostile) {
		t.Errorf("%d dependencies answered, want %d", len(created.Dependencies), len(hostile))
	}
	var n int
	if err := f.inTx(func(q dbos.Querier) error {
		return q.QueryRow(f.ctx, "SELECT count(*) FROM manent.audit").Scan(&n)
	}); err != nil || n == 0 {
		t.Errorf("audit: %d, %v", n, err)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// An end that puts the deploy in service followed by a start that reads
// what is in service (a rollout's batch activated, then the checkpoint of
// the next batch's activation) reads the deploy itself.
func TestAdvanceInServiceThenReadSeesItself(t *testing.T) {
	f := newFixture(t)
	f.pending("prev", "shared")
	f.begin(*op("prev", "activation", ""))
	if _, err := f.advance(op("prev", "activation", deploy.StepSuccess), deploy.StepEffects{InService: true}, nil, deploy.BeginOptions{}); err != nil {
		t.Fatal(err)
	}
	f.pending("batches", "shared")
	f.begin(*op("batches", "activation", ""))
	next := op("batches", "checkpoint:activation", deploy.StepRunning)
	next.Batch = 1
	b, err := f.advance(op("batches", "activation", deploy.StepSuccess), deploy.StepEffects{InService: true}, next,
		deploy.BeginOptions{HonourCancel: true, ReadInService: true})
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.InService != "batches" {
		t.Errorf("the next batch's checkpoint read %+v in service, want the deploy itself", b)
	}
}
