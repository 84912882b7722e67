package service_test

import (
	"testing"

	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// migratedDB is a fresh database of the test's own with manent's schema,
// closed when the test ends.
func migratedDB(t *testing.T) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := postgres.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	return db
}
