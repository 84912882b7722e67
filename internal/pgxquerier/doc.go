// Package pgxquerier makes a pgx transaction, connection or pool the
// portable querier DBOS hands its transactions' functions (dbos.Querier),
// so that the Recorder's SQL has one implementation whoever runs it: DBOS's
// transactions, the engine's own, a statement on the pool, the tests.
//
// It may import DBOS, pgx and the standard library.
package pgxquerier
