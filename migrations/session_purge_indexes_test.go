package migrations_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/migrations"
)

// sessionPurgeIndexes is the migration that indexes what the purge of
// sessions and sign-ins looks for.
const sessionPurgeIndexes = "20261223001401"

// Up gives the purge its indexes, down takes them away and leaves the
// tables' rows.
func TestSessionPurgeIndexesMigration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, ctx, pgtest.URL(t))
	const indexes = `SELECT indexname::text FROM pg_indexes WHERE schemaname = 'manent'
		AND indexname IN ('sessions_last_seen_idx', 'signin_flows_expires_idx') ORDER BY 1`
	want := []string{"sessions_last_seen_idx", "signin_flows_expires_idx"}
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, db, sessionPurgeIndexes, false).Migrate(ctx); err != nil {
		t.Fatalf("migrate to the one before: %v", err)
	}
	if got := strs(t, ctx, db, indexes); len(got) != 0 {
		t.Fatalf("before: indexes %q", got)
	}
	if _, err := migratorUpTo(t, db, sessionPurgeIndexes, true).Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if got := strs(t, ctx, db, indexes); !slices.Equal(got, want) {
		t.Fatalf("after up: indexes %q, want %q", got, want)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO manent.signin_flows (state_hash, binding_hash, nonce, verifier, next_path, expires_at)
		VALUES ('\x01', '\x02', 'n', 'v', '/activity', now())`); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, db, sessionPurgeIndexes, true).Rollback(ctx); err != nil {
		t.Fatalf("roll back: %v", err)
	}
	if got := strs(t, ctx, db, indexes); len(got) != 0 {
		t.Fatalf("after down: indexes %q", got)
	}
	if n := count(t, ctx, db, "SELECT count(*) FROM manent.signin_flows"); n != 1 {
		t.Fatalf("after down: %d sign-ins, want 1", n)
	}
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	if got := strs(t, ctx, db, indexes); !slices.Equal(got, want) {
		t.Fatalf("after migrate again: indexes %q, want %q", got, want)
	}
}
