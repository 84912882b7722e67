package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

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
	return &fixture{t: t, ctx: ctx, url: url, db: db, store: postgres.NewStore(db)}
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
	return deploy.Deployment{
		ID: id, Tenant: "demo", Application: "app", Environment: env, State: deploy.StateEnqueued,
		Requester: "token:ci", DryRun: false, Release: "rel-1", Artifact: art,
		Descriptor: deploy.Descriptor{APIVersion: "manent/v1", Kind: "Deployment", ID: id, Application: "app",
			Environment: env, Artifact: art, Labels: map[string]string{"team": "a"}},
		Effective: deploy.Effective{Tenant: "demo", Application: "app", Environment: env, Artifact: art,
			Plugin: "local", Targets: []deploy.Target{{Path: "/srv/app"}}, Params: map[string]string{"k": "v"}},
		Plan:     plan,
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

// pending creates a deploy and starts it.
func (f *fixture) pending(id, env string) {
	f.t.Helper()
	f.create(deployment(id, env))
	if ok, err := f.store.MarkStarted(f.ctx, id, time.Now()); err != nil || !ok {
		f.t.Fatalf("MarkStarted(%s) = %v, %v", id, ok, err)
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
