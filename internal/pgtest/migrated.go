package pgtest

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/internal/postgres"
)

// Migrated opens the database at url (one of URL's) with manent's schema
// migrated, closed when the test ends.
func Migrated(t testing.TB, url string) *postgres.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		t.Fatalf("pgtest: migrate: %v", err)
	}
	return db
}
