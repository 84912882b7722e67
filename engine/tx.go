package engine

import (
	"context"
	"fmt"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/dberr"
	"manent.dev/manent/internal/pgxquerier"
)

// inTx runs fn in a transaction of DBOS's pool outside any workflow (the
// API cancels a queued deploy), with the Recorder's own SQL; it waits for
// the database while it is unavailable.
func (e *Engine) inTx(ctx context.Context, fn func(q dbos.Querier) error) error {
	return untilServed(ctx, func() error { return e.inTxOnce(ctx, fn) })
}

func (e *Engine) inTxOnce(ctx context.Context, fn func(q dbos.Querier) error) error {
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(pgxquerier.New(tx)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// onPool runs fn on DBOS's pool outside any transaction, waiting for the
// database while it is unavailable: for a write that is one statement,
// atomic on its own (Recorder.AdvancesAtOnce).
func (e *Engine) onPool(ctx context.Context, fn func(q dbos.Querier) error) error {
	return untilServed(ctx, func() error { return fn(pgxquerier.New(e.pool)) })
}

// untilServed makes call until the database serves it (untilAvailable),
// its unavailability marked deploy.ErrUnavailable.
func untilServed(ctx context.Context, call func() error) error {
	_, err := untilAvailable(ctx, func() (struct{}, error) {
		err := call()
		if err != nil && dberr.Unavailable(err) {
			err = fmt.Errorf("%w: %w", deploy.ErrUnavailable, err)
		}
		return struct{}{}, err
	})
	return err
}

// restartable is the error a transaction DBOS runs (RunAsTransaction)
// returns for an error of the database that is not the step's: DBOS
// restarts the transaction, with a backoff, for the errors it knows as
// transient (a broken connection, a deadlock), and records any other as
// the step's outcome, which would end the workflow. A read-only database
// during a failover, a full disk or a lock timeout are as transient to
// manent: they are marked as what they are, a transaction that must be
// made again in a new one.
func restartable(err error) error {
	if err == nil || !dberr.Unavailable(err) {
		return err
	}
	return restartTx{err}
}

type restartTx struct{ cause error }

func (r restartTx) Error() string   { return r.cause.Error() }
func (r restartTx) Unwrap() []error { return []error{r.cause, pgx.ErrTxClosed} }
