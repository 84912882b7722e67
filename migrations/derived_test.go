package migrations_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/migrations"
)

// derivedIDs is the migration that records what a deploy was created for
// (rollback_of, schedule) and why a tick failed (schedules.last_error).
const derivedIDs = "20261210000001"

// migratorUpTo is a migrator of the migrations before name, and of name
// itself when with.
func migratorUpTo(t *testing.T, db *bun.DB, name string, with bool) *migrate.Migrator {
	t.Helper()
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	ms := migrate.NewMigrations()
	for _, m := range all.Sorted() {
		if m.Name < name || with && m.Name == name {
			ms.Add(m)
		}
	}
	return migrate.NewMigrator(db, ms, migrate.WithTableName(migrations.Schema+".migrations"),
		migrate.WithLocksTableName(migrations.Schema+".migration_locks"))
}

// The deploys stored before the migration get their origin from what
// recorded it (the audit of a rollback, the release that recorded its
// rollback, the schedule whose last tick it is), and never from an ID alone:
// deploys that took such IDs keep none. Down gives back the schema before.
func TestDerivedIDsMigrationBackfills(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	// Migrate then Rollback leave an empty schema and the bookkeeping.
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, db, derivedIDs, false).Migrate(ctx); err != nil {
		t.Fatalf("migrate to the one before: %v", err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`INSERT INTO manent.deployments (id, tenant, application, environment, state, requester, release) VALUES
		('v2', 'demo', 'app', 'prod', 'ENQUEUED', 'token:ci', NULL),
		('rb-1', 'demo', 'app', 'prod', 'ENQUEUED', 'token:ci', NULL),
		('shop.db', 'demo', 'db', 'prod', 'ENQUEUED', 'token:ci', 'shop'),
		('shop.rollback.db', 'demo', 'db', 'prod', 'ENQUEUED', 'token:ci', 'shop'),
		('shop.api', 'demo', 'api', 'prod', 'ENQUEUED', 'token:ci', 'shop'),
		('shop.rollback.api', 'acme', 'api', 'prod', 'ENQUEUED', 'token:mallory', NULL),
		('nightly@20261130-020000', 'demo', 'app', 'staging', 'ENQUEUED', 'token:ci', NULL),
		('weekly@20261130-020000', 'acme', 'app', 'staging', 'ENQUEUED', 'token:mallory', NULL)`)
	exec(`INSERT INTO manent.audit (actor, action, target, details) VALUES
		('token:ci', 'deployment.rollback', 'rb-1', '{"from": "v2", "to": "v1"}'),
		('token:ci', 'deployment.rollback', 'shop.rollback.db', '{"from": "shop.db", "release": "shop"}')`)
	exec(`INSERT INTO manent.releases (id, requester, on_failure, state, descriptor) VALUES ('shop', 'token:ci', 'rollback', 'ERROR', '{}')`)
	// The rollback of api was taken by another tenant's deploy, which the
	// release recorded.
	exec(`INSERT INTO manent.release_deploys (release_id, name, position, deployment_id, tenant, application, environment,
		rollback_deployment_id) VALUES
		('shop', 'db', 0, 'shop.db', 'demo', 'db', 'prod', 'shop.rollback.db'),
		('shop', 'api', 1, 'shop.api', 'demo', 'api', 'prod', 'shop.rollback.api')`)
	exec(`INSERT INTO manent.schedules (name, tenant, application, environment, cron, timezone, requester, state, template,
		last_deployment) VALUES
		('nightly', 'demo', 'app', 'staging', '0 2 * * *', 'UTC', 'token:ci', 'ACTIVE', '{}', 'nightly@20261130-020000'),
		('weekly', 'demo', 'app', 'staging', '0 2 * * 1', 'UTC', 'token:ci', 'ACTIVE', '{}', 'weekly@20261130-020000')`)
	schemaBefore := strs(t, ctx, db, schema)

	if _, err := migratorUpTo(t, db, derivedIDs, true).Migrate(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	got := strs(t, ctx, db, `SELECT id || ' ' || rollback_of || ' ' || schedule FROM manent.deployments ORDER BY id`)
	want := []string{
		"nightly@20261130-020000  nightly",
		"rb-1 v2 ",
		"shop.api  ",
		"shop.db  ",
		"shop.rollback.api  ",
		"shop.rollback.db shop.db ",
		"v2  ",
		"weekly@20261130-020000  ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("origins after up:\n got %q\nwant %q", got, want)
	}
	if n := count(t, ctx, db, "SELECT count(*) FROM manent.schedules WHERE last_error = ''"); n != 2 {
		t.Errorf("%d schedules without a last error, want 2", n)
	}

	if _, err := migratorUpTo(t, db, derivedIDs, true).Rollback(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if got := strs(t, ctx, db, schema); !slices.Equal(got, schemaBefore) {
		t.Errorf("schema after down differs from the one before up:\n got %q\nwant %q", got, schemaBefore)
	}
}
