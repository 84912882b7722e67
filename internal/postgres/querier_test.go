package postgres_test

import (
	"context"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/internal/pgxquerier"
)

// inTx runs fn in a transaction of the fixture's pgx pool, committed when fn
// succeeds: the Recorder's methods run as they do in the transaction DBOS
// hands dbos.RunAsTransaction.
func (f *fixture) inTx(fn func(q dbos.Querier) error) error {
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(f.ctx)) }() // a no-op after Commit
	if err := fn(pgxquerier.New(tx)); err != nil {
		return err
	}
	return tx.Commit(f.ctx)
}

// onPool is the fixture's pool as a querier: each statement in a
// transaction of its own, as the engine's one-statement writes run.
func (f *fixture) onPool() dbos.Querier { return pgxquerier.New(f.pool) }

// rolledBack runs fn in a transaction of the fixture's pool that it then
// rolls back, whatever fn answers: nothing fn wrote, nor any notification it
// queued, outlives it.
func (f *fixture) rolledBack(fn func(q dbos.Querier) error) error {
	tx, err := f.pool.Begin(f.ctx)
	if err != nil {
		return err
	}
	err = fn(pgxquerier.New(tx))
	if rerr := tx.Rollback(f.ctx); rerr != nil {
		return rerr
	}
	return err
}
