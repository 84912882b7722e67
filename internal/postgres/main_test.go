package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5/pgxpool"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type fixture struct {
	t     *testing.T
	ctx   context.Context
	url   string
	db    *postgres.DB
	store *postgres.Store
	rec   *postgres.Recorder
	// pool is a pgx pool on the same database: the Recorder runs on its
	// transactions, as it runs on DBOS's in production.
	pool *pgxpool.Pool
}

// newFixture opens a migrated store on a fresh database.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	url := pgtest.URL(t)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4 // the embedded PostgreSQL's connections are shared by every test
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgx pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return &fixture{t: t, ctx: ctx, url: url, db: db, store: postgres.NewStore(db), rec: postgres.NewRecorder(), pool: pool}
}

var plan = deploy.Plan{Steps: []deploy.PlannedStep{
	{Name: deploy.StepConfig, Type: "standard", MaxRetries: 0, Mandatory: true},
	{Name: deploy.StepArtifacts, Type: "standard", MaxRetries: 3, Timeout: time.Minute, Mandatory: true},
	{Name: deploy.StepDeploy, Type: "standard", MaxRetries: 2},
	{Name: deploy.StepActivation, Type: "standard"},
}}

// deployment returns a complete deploy of app to env, so that round trips
// check every column.
func deployment(id, env string) deploy.Deployment {
	art := deploy.Artifact{Type: "tarball", Name: "app", Version: "1.2.3", Source: "file:///a/app.tgz", SHA256: "abc"}
	signed := plan
	signed.Signature = "5167"
	return deploy.Deployment{
		ID: id, Tenant: "demo", Application: "app", Environment: env, State: deploy.StateEnqueued,
		Requester: "token:ci", RequesterGroups: []string{"release-managers"}, DryRun: false, Release: "rel-1", Artifact: art,
		Descriptor: deploy.Descriptor{APIVersion: "manent/v1", Kind: "Deployment", ID: id, Application: "app",
			Environment: env, Artifact: art, Labels: map[string]string{"team": "a"}},
		Effective: deploy.Effective{Tenant: "demo", Application: "app", Environment: env, Artifact: art,
			Plugin: "local", Targets: []deploy.Target{{Path: "/srv/app"}}, Params: map[string]string{"k": "v"}},
		Plan:     signed,
		Decision: deploy.Decision{Rule: "default", Reason: "ok"},
	}
}

// create stores d with no workflow to enqueue.
func (f *fixture) create(d deploy.Deployment) *deploy.Deployment {
	f.t.Helper()
	got, created, err := f.store.CreateDeployment(f.ctx, d, func(any) error { return nil })
	if err != nil || !created {
		f.t.Fatalf("CreateDeployment(%s) = created %v, %v", d.ID, created, err)
	}
	return got
}

func (f *fixture) get(id string) *deploy.Deployment {
	f.t.Helper()
	d, err := f.store.Get(f.ctx, id)
	if err != nil {
		f.t.Fatalf("Get(%s): %v", id, err)
	}
	return d
}

// pending creates a deploy of app to env and starts its run.
func (f *fixture) pending(id, env string) {
	f.t.Helper()
	f.run(deployment(id, env))
}

// run creates d (ENQUEUED) and starts its run (PENDING), as the engine does.
func (f *fixture) run(d deploy.Deployment) {
	f.t.Helper()
	f.create(d)
	f.start(d.ID)
}

// start moves an ENQUEUED deploy to PENDING.
func (f *fixture) start(id string) {
	f.t.Helper()
	var ok bool
	err := f.inTx(func(q dbos.Querier) (err error) {
		ok, err = f.rec.StartRun(f.ctx, q, id, time.Now(), false)
		return err
	})
	if err != nil || !ok {
		f.t.Fatalf("StartRun(%s) = %v, %v", id, ok, err)
	}
}

// finish ends a deploy's run with o, as the engine does.
func (f *fixture) finish(o deploy.Outcome) deploy.Finished {
	f.t.Helper()
	fin, err := f.finishRun(o)
	if err != nil {
		f.t.Fatalf("FinishRun(%s, %s): %v", o.ID, o.State, err)
	}
	return fin
}

func (f *fixture) finishRun(o deploy.Outcome) (fin deploy.Finished, err error) {
	err = f.inTx(func(q dbos.Querier) (err error) {
		fin, err = f.rec.FinishRun(f.ctx, q, o)
		return err
	})
	return fin, err
}

// ended stores d and drives it through the lifecycle to the final state of
// o: ENQUEUED → PENDING → o.State.
func (f *fixture) ended(d deploy.Deployment, o deploy.Outcome) {
	f.t.Helper()
	f.run(d)
	o.ID = d.ID
	f.finish(o)
}

// advance records the end of done and the start of next in one transaction.
func (f *fixture) advance(done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) (b *deploy.Begun, err error) {
	err = f.inTx(func(q dbos.Querier) (err error) {
		b, err = f.rec.Advance(f.ctx, q, done, fx, next, o)
		return err
	})
	return b, err
}

// begin records the start of the operation s, checked not to fail.
func (f *fixture) begin(s deploy.Step) {
	f.t.Helper()
	if _, err := f.advance(nil, deploy.StepEffects{}, &s, deploy.BeginOptions{HonourCancel: true}); err != nil {
		f.t.Fatalf("begin %s: %v", s.Key().Name(), err)
	}
}

func (f *fixture) exec(sql string, args ...any) error {
	_, err := f.db.Bun().ExecContext(f.ctx, sql, args...)
	return err
}

func (f *fixture) count(sql string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.db.Bun().QueryRowContext(f.ctx, sql, args...).Scan(&n); err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (f *fixture) audit(action, target string) int {
	return f.count("SELECT count(*) FROM manent.audit WHERE action = ? AND target = ?", action, target)
}

func wantCode(t *testing.T, err error, code deploy.Code) {
	t.Helper()
	if got := deploy.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

func ids(ds []deploy.Deployment) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

func seqID(i int) string { return fmt.Sprintf("d%03d", i) }

func ptr[T any](v T) *T { return &v }
