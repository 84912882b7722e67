package migrations_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/migrations"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t *testing.T, ctx context.Context, url string) *bun.DB {
	t.Helper()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db.Bun()
}

func count(t *testing.T, ctx context.Context, db *bun.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// tables lists the tables of the manent schema but the migrations' own
// bookkeeping, which Rollback leaves.
const tables = `SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'manent'
	AND table_name NOT IN ('migrations', 'migration_locks') ORDER BY 1`

// allTables are the tables of the migrated schema.
var allTables = []string{"approvals", "audit", "callback_deliveries", "callback_disabled", "dependencies", "deployment_logs", "deployment_steps",
	"deployment_transitions", "deployments", "dora_facts", "executors", "inventory", "inventory_history", "last_failures", "log_sequences", "log_writers", "release_deploys",
	"releases", "retired_ids", "schedules", "sessions", "signin_flows"}

func strs(t *testing.T, ctx context.Context, db *bun.DB, query string) []string {
	t.Helper()
	var out []string
	if err := db.NewRaw(query).Scan(ctx, &out); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func TestMigrateIsIdempotentAndReversible(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	want := len(all.Sorted())
	steps := []struct {
		name       string
		run        func(context.Context, *bun.DB) error
		tables     []string
		migrations int
	}{
		{"migrate", migrations.Migrate, allTables, want},
		{"migrate again", migrations.Migrate, allTables, want},
		{"rollback", migrations.Rollback, nil, 0},
		{"migrate after rollback", migrations.Migrate, allTables, want},
	}
	for _, s := range steps {
		if err := s.run(ctx, db); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := strs(t, ctx, db, tables); !slices.Equal(got, s.tables) {
			t.Errorf("after %s: tables %q, want %q", s.name, got, s.tables)
		}
		if n := count(t, ctx, db, "SELECT count(*) FROM manent.migrations"); n != s.migrations {
			t.Errorf("after %s: %d recorded migrations, want %d", s.name, n, s.migrations)
		}
	}
}

// schema describes the manent schema: columns, constraints, indexes,
// triggers and functions, one line each.
const schema = `
SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
	FROM information_schema.columns WHERE table_schema = 'manent'
UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
	FROM pg_constraint WHERE connamespace = 'manent'::regnamespace
UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'manent'
UNION ALL SELECT 'trigger ' || tgrelid::regclass::text || ' ' || tgname FROM pg_trigger
	WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'manent'::regnamespace)
UNION ALL SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = 'manent'::regnamespace
ORDER BY 1`

// engine is the migration of the engine's lifecycle, step kinds and last failures.
const engine = "20261201000001"

// The engine migration alone, on a database that holds deploys: up
// migrates their step records, down gives back the schema before it (and
// the records it can hold), up again gives the same schema as the first
// time.
func TestEngineMigrationIsReversible(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	// upTo is the migrations before engine, and engine itself when with.
	upTo := func(with bool) *migrate.Migrator {
		ms := migrate.NewMigrations()
		for _, m := range all.Sorted() {
			if m.Name < engine || with && m.Name == engine {
				ms.Add(m)
			}
		}
		return migrate.NewMigrator(db, ms, migrate.WithTableName(migrations.Schema+".migrations"),
			migrate.WithLocksTableName(migrations.Schema+".migration_locks"))
	}
	// Migrate then Rollback leave an empty schema and the bookkeeping.
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := upTo(false).Migrate(ctx); err != nil {
		t.Fatalf("migrate to the one before the engine: %v", err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	// Deploys as the schema before held them: any state, one record per step.
	exec(`INSERT INTO manent.deployments (id, application, environment, state, dry_run) VALUES
		('run', 'app', 'prod', 'SUCCESS', false), ('dry', 'app', 'prod', 'ERROR', true)`)
	exec(`INSERT INTO manent.deployment_steps (deployment_id, name, position, state) VALUES
		('run', 'deploy', 2, 'SUCCESS'), ('dry', 'deploy', 2, 'ERROR')`)
	records := func() []string {
		return strs(t, ctx, db, `SELECT deployment_id || ' ' || name || ' ' || state FROM manent.deployment_steps ORDER BY 1`)
	}
	schemaBefore, recordsBefore := strs(t, ctx, db, schema), records()

	// A group of its own, so that Rollback undoes the engine alone.
	if _, err := upTo(true).Migrate(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	schemaAfter := strs(t, ctx, db, schema)
	if slices.Equal(schemaAfter, schemaBefore) {
		t.Fatal("the engine migration changed nothing")
	}
	kinds := strs(t, ctx, db, `SELECT deployment_id || ' ' || kind || ' ' || runs FROM manent.deployment_steps ORDER BY 1`)
	if want := []string{"dry dry-run 0", "run run 0"}; !slices.Equal(kinds, want) {
		t.Errorf("records after up: %q, want %q", kinds, want)
	}
	// Records the schema before cannot hold: a checkpoint beside the run,
	// a batch of a rollout.
	exec(`INSERT INTO manent.deployment_steps (deployment_id, name, position, state, kind, pass, batch, target) VALUES
		('run', 'deploy', 2, 'SUCCESS', 'checkpoint', 0, 0, ''), ('run', 'deploy', 2, 'SUCCESS', 'run', 1, 2, 'web-1')`)

	if _, err := upTo(true).Rollback(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if got := strs(t, ctx, db, schema); !slices.Equal(got, schemaBefore) {
		t.Errorf("schema after down differs from the one before up:\n got %q\nwant %q", got, schemaBefore)
	}
	if got := records(); !slices.Equal(got, recordsBefore) {
		t.Errorf("records after down %q, want %q", got, recordsBefore)
	}

	if _, err := upTo(true).Migrate(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if got := strs(t, ctx, db, schema); !slices.Equal(got, schemaAfter) {
		t.Errorf("schema after up again differs from the first up:\n got %q\nwant %q", got, schemaAfter)
	}
}

// Processes that start together each migrate: they take turns, and the
// migrations are applied once.
func TestConcurrentMigrate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := pgtest.URL(t)
	dbs := make([]*bun.DB, 5)
	for i := range dbs {
		dbs[i] = open(t, ctx, url)
	}
	var wg sync.WaitGroup
	for _, db := range dbs {
		wg.Go(func() {
			if err := migrations.Migrate(ctx, db); err != nil {
				t.Errorf("Migrate: %v", err)
			}
		})
	}
	wg.Wait()
	all, _ := migrations.All()
	if n := count(t, ctx, dbs[0], "SELECT count(*) FROM manent.migrations"); n != len(all.Sorted()) {
		t.Errorf("%d recorded migrations, want %d", n, len(all.Sorted()))
	}
	if got := strs(t, ctx, dbs[0], tables); !slices.Equal(got, allTables) {
		t.Errorf("tables %q, want %q", got, allTables)
	}
}
