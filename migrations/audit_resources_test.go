package migrations_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/migrations"
)

// auditResources is the migration that records each audit entry's
// resources; retiredIDs the one that retires removed deploys' IDs and
// keeps a DORA fact's scope.
const (
	auditResources = "20261222001301"
	retiredIDs     = "20261222001302"
)

// The entries written before get the resources of what they were about
// then: a deploy's from the submission of its ID up to them (a removed
// deploy, a reused ID), else from what holds the target now; server-wide
// entries stay about nothing. The audit stays append-only, new entries get
// their resources, the IDs of removed deploys are retired, and down gives
// back the schema before.
func TestAuditResourcesMigrationBackfills(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, db, auditResources, false).Migrate(ctx); err != nil {
		t.Fatalf("migrate to the one before: %v", err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	deployment := func(id, tenant string) {
		t.Helper()
		exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state)
			VALUES (?, ?, 'hello', 'prod', 'ENQUEUED')`, id, tenant)
	}
	audit := func(actor, action, target, details string) {
		t.Helper()
		exec(`INSERT INTO manent.audit (actor, action, target, details) VALUES (?, ?, ?, ?::jsonb)`, actor, action, target, details)
	}
	submitted := func(tenant string) string {
		return `{"tenant": "` + tenant + `", "application": "hello", "environment": "prod"}`
	}
	// live: a deploy still stored.
	deployment("live", "demo")
	audit("token:demo", "deployment.submit", "live", submitted("demo"))
	audit("token:demo", "deployment.approve", "live", `{}`)
	// gone: removed by the retention, its entries left about nothing.
	deployment("gone", "demo")
	audit("token:demo", "deployment.submit", "gone", submitted("demo"))
	audit("token:demo", "deployment.cancel", "gone", `{}`)
	exec(`DELETE FROM manent.deployments WHERE id = 'gone'`)
	// reused: demo's deploy removed, its ID taken by acme.
	deployment("reused", "demo")
	audit("token:demo", "deployment.submit", "reused", submitted("demo"))
	audit("token:demo", "deployment.approve", "reused", `{}`)
	exec(`DELETE FROM manent.deployments WHERE id = 'reused'`)
	deployment("reused", "acme")
	audit("token:acme", "deployment.submit", "reused", submitted("acme"))
	audit("token:acme", "deployment.approve", "reused", `{}`)
	// old: a deploy whose submission entry is missing (written before
	// submissions named their resource): what holds the ID now.
	deployment("old", "demo")
	audit("token:demo", "deployment.approve", "old", `{}`)
	// a schedule, a release, and entries about nothing.
	exec(`INSERT INTO manent.schedules (name, tenant, application, environment, cron, timezone, requester, state, generation, template)
		VALUES ('nightly', 'acme', 'hello', 'prod', '0 3 * * *', 'UTC', 'token:acme', 'SCHEDULED', 1, '{}')`)
	audit("token:acme", "schedule.create", "nightly", `{}`)
	exec(`INSERT INTO manent.releases (id, requester, on_failure, state, descriptor) VALUES ('rel', 'token:demo', 'stop', 'PENDING', '{}')`)
	exec(`INSERT INTO manent.release_deploys (release_id, name, position, deployment_id, tenant, application, environment, after)
		VALUES ('rel', 'a', 0, 'rel-a', 'demo', 'hello', 'prod', '[]'), ('rel', 'b', 1, 'rel-b', 'demo', 'shop', 'prod', '[]')`)
	audit("token:demo", "release.submit", "rel", `{}`)
	audit("system:retention", "retention.run", "", `{}`)
	audit("system", "config.reload", "", `{}`)
	schemaBefore := strs(t, ctx, db, schema)

	if _, err := migratorUpTo(t, db, auditResources, true).Migrate(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	const demo, acme = `[{"tenant": "demo", "application": "hello", "environment": "prod"}]`,
		`[{"tenant": "acme", "application": "hello", "environment": "prod"}]`
	want := []string{
		"deployment.submit live " + demo, "deployment.approve live " + demo,
		"deployment.submit gone " + demo, "deployment.cancel gone " + demo,
		"deployment.submit reused " + demo, "deployment.approve reused " + demo,
		"deployment.submit reused " + acme, "deployment.approve reused " + acme,
		"deployment.approve old " + demo,
		"schedule.create nightly " + acme,
		`release.submit rel [{"tenant": "demo", "application": "hello", "environment": "prod"}, {"tenant": "demo", "application": "shop", "environment": "prod"}]`,
		"retention.run  none", "config.reload  none",
	}
	const entries = `SELECT action || ' ' || target || ' ' || COALESCE(resources::text, 'none') FROM manent.audit ORDER BY id`
	if got := strs(t, ctx, db, entries); !slices.Equal(got, want) {
		t.Errorf("entries after the backfill\n got %q\nwant %q", got, want)
	}
	// Still append-only, for every role but the retention's.
	for _, q := range []string{`UPDATE manent.audit SET actor = 'mallory'`, `DELETE FROM manent.audit`, `TRUNCATE manent.audit`} {
		_, err := db.ExecContext(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23001" {
			t.Errorf("%s: %v, want restrict_violation", q, err)
		}
	}
	// A new entry gets its resources when it is written.
	audit("token:acme", "deployment.cancel", "reused", `{}`)
	if got := strs(t, ctx, db, entries); len(got) != len(want)+1 || got[len(want)] != "deployment.cancel reused "+acme {
		t.Errorf("new entry: %q", got[len(want):])
	}

	if _, err := migratorUpTo(t, db, retiredIDs, true).Migrate(ctx); err != nil {
		t.Fatalf("up retired IDs: %v", err)
	}
	if got := strs(t, ctx, db, `SELECT id FROM manent.retired_ids ORDER BY id`); !slices.Equal(got, []string{"gone"}) {
		t.Errorf("retired IDs %q, want the removed deploy's", got)
	}
	for range 2 {
		if _, err := migratorUpTo(t, db, retiredIDs, true).Rollback(ctx); err != nil {
			t.Fatalf("down: %v", err)
		}
	}
	if got := strs(t, ctx, db, schema); !slices.Equal(got, schemaBefore) {
		t.Errorf("schema after down differs from the one before up:\n got %q\nwant %q", got, schemaBefore)
	}
}
