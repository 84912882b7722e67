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
	return pgtest.Migrated(t, pgtest.URL(t))
}
