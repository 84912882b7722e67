// Package pgtest gives each test a fresh, empty PostgreSQL database: on
// DATABASE_URL when set, otherwise on an embedded PostgreSQL started once per
// test binary; and a PostgreSQL of a test's own (Server) for the tests that
// crash and restart it; and such a database opened with manent's schema
// (Migrated).
//
// It imports internal/embeddedpg, internal/postgres, pgx and the standard library; only tests import it.
package pgtest
