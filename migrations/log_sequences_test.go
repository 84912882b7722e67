package migrations_test

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/migrations"
)

// logSequences is the migration that moves the log's numbers to a table of
// their own.
const logSequences = "20261226000002"

// beforeLogSequences is a database of its own migrated up to the migration
// before logSequences, and its URL.
func beforeLogSequences(t *testing.T, ctx context.Context) (string, *postgres.DB) {
	t.Helper()
	url := pgtest.URL(t)
	pdb, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pdb.Close() })
	// Migrate then Rollback leave an empty schema and the bookkeeping.
	if err := migrations.Migrate(ctx, pdb.Bun()); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Rollback(ctx, pdb.Bun()); err != nil {
		t.Fatal(err)
	}
	if _, err := migratorUpTo(t, pdb.Bun(), logSequences, false).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return url, pdb
}

// A process of the version before (docs/scaling.md: migrate first, then
// the processes) whose log write is in flight when the log_sequences
// migration starts: the migration waits for it before it copies the
// numbers, so the count starts after the lines stored, and the next line
// of that deploy takes the next number.
func TestLogSequencesMigrationWaitsForAWriteInFlight(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, pdb := beforeLogSequences(t, ctx)
	db := pdb.Bun()
	if _, err := db.ExecContext(ctx, `INSERT INTO manent.deployments (id, application, environment, state)
		VALUES ('x', 'app', 'prod', 'ENQUEUED')`); err != nil {
		t.Fatal(err)
	}
	// The old binary's outcome transaction (Recorder.AppendLog as it was):
	// the numbers taken on the deploy's row, the line written, not yet
	// committed.
	old, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = old.Rollback() }()
	if _, err := old.ExecContext(ctx, `WITH seq AS (UPDATE manent.deployments SET log_seq = log_seq + 1 WHERE id = 'x'
			RETURNING log_seq - 1 AS base)
		INSERT INTO manent.deployment_logs (deployment_id, seq, message) SELECT 'x', base + 1, 'old' FROM seq`); err != nil {
		t.Fatal(err)
	}
	other := open(t, ctx, url)
	done := make(chan error, 1)
	go func() {
		_, err := migratorUpTo(t, other, logSequences, true).Migrate(ctx)
		done <- err
	}()
	// The migration waits for the old transaction (its lock of the table).
	for count(t, ctx, db, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
		AND wait_event_type = 'Lock'`) == 0 {
		select {
		case err := <-done:
			t.Fatalf("the migration ended without waiting: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := old.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctx, db, `SELECT COALESCE(max(seq), 0)::int FROM manent.log_sequences WHERE deployment_id = 'x'`); n != 1 {
		t.Errorf("log_sequences of x: %d, want 1 (the line the old process wrote)", n)
	}
	store := postgres.NewStore(pdb)
	if err := store.AppendLog(ctx, deploy.LogLine{DeploymentID: "x", Time: time.Now(), Message: "new"}); err != nil {
		t.Errorf("the next line of x after the migration: %v", err)
	}
}

// The log_sequences migration carries log_seq of the deploys with lines
// into log_sequences and the next line follows; down gives it back.
func TestLogSequencesMigrationCarriesTheNumbers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, pdb := beforeLogSequences(t, ctx)
	db := pdb.Bun()
	for _, q := range []string{
		`INSERT INTO manent.deployments (id, application, environment, state, log_seq) VALUES
			('x', 'app', 'prod', 'ENQUEUED', 3), ('y', 'app', 'prod', 'ENQUEUED', 0)`,
		`INSERT INTO manent.deployment_logs (deployment_id, seq, message) VALUES ('x', 1, 'a'), ('x', 2, 'b'), ('x', 3, 'c')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := migratorUpTo(t, db, logSequences, true).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	store := postgres.NewStore(pdb)
	for _, id := range []string{"x", "y"} {
		if err := store.AppendLog(ctx, deploy.LogLine{DeploymentID: id, Time: time.Now(), Message: "new"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strs(t, ctx, db, `SELECT deployment_id || seq FROM manent.deployment_logs WHERE message = 'new' ORDER BY 1`); len(got) != 2 || got[0] != "x4" || got[1] != "y1" {
		t.Errorf("new lines %q, want [x4 y1]", got)
	}
	if _, err := migratorUpTo(t, db, logSequences, true).Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strs(t, ctx, db, `SELECT id || log_seq FROM manent.deployments ORDER BY 1`); len(got) != 2 || got[0] != "x4" || got[1] != "y1" {
		t.Errorf("log_seq after down %q, want [x4 y1]", got)
	}
}
