package migrations_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

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

const tables = `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'manent'
	AND table_name IN ('deployments', 'deployment_steps', 'deployment_logs', 'inventory', 'audit')`

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
		tables     int
		migrations int
	}{
		{"migrate", migrations.Migrate, 5, want},
		{"migrate again", migrations.Migrate, 5, want},
		{"rollback", migrations.Rollback, 0, 0},
		{"migrate after rollback", migrations.Migrate, 5, want},
	}
	for _, s := range steps {
		if err := s.run(ctx, db); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if n := count(t, ctx, db, tables); n != s.tables {
			t.Errorf("after %s: %d tables, want %d", s.name, n, s.tables)
		}
		if n := count(t, ctx, db, "SELECT count(*) FROM manent.migrations"); n != s.migrations {
			t.Errorf("after %s: %d recorded migrations, want %d", s.name, n, s.migrations)
		}
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
	if n := count(t, ctx, dbs[0], tables); n != 5 {
		t.Errorf("%d tables, want 5", n)
	}
}
