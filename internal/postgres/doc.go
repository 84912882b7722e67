// Package postgres is manent's PostgreSQL adapter: the bun + pgx connection,
// the Store of the read model (deploys, steps, logs, inventory, audit) and
// the LISTEN/NOTIFY Events, with the converters between rows and the domain.
//
// It imports deploy, dora, governance, migrations, internal/dberr, bun, pgx, DBOS
// (the Recorder writes inside the transactions of DBOS steps) and the
// standard library.
package postgres
