// Package pgtest gives each test a fresh, empty PostgreSQL database: on
// DATABASE_URL when set, otherwise on an embedded PostgreSQL started once per
// test binary.
//
// It imports internal/embeddedpg, pgx and the standard library; only tests import it.
package pgtest
