package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/dberr"
)

// inTx runs fn in a transaction of DBOS's pool outside any workflow (the
// API cancels a queued deploy), with the Recorder's own SQL; it waits for
// the database while it is unavailable.
func (e *Engine) inTx(ctx context.Context, fn func(q dbos.Querier) error) error {
	_, err := untilAvailable(ctx, func() (struct{}, error) {
		err := e.inTxOnce(ctx, fn)
		if err != nil && dberr.Unavailable(err) {
			err = fmt.Errorf("%w: %w", deploy.ErrUnavailable, err)
		}
		return struct{}{}, err
	})
	return err
}

func (e *Engine) inTxOnce(ctx context.Context, fn func(q dbos.Querier) error) error {
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(pgxQuerier{tx}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// onPool runs fn on DBOS's pool outside any transaction, waiting for the
// database while it is unavailable: for a write that is one statement,
// atomic on its own (Recorder.AdvancesAtOnce).
func (e *Engine) onPool(ctx context.Context, fn func(q dbos.Querier) error) error {
	_, err := untilAvailable(ctx, func() (struct{}, error) {
		err := fn(pgxQuerier{e.pool})
		if err != nil && dberr.Unavailable(err) {
			err = fmt.Errorf("%w: %w", deploy.ErrUnavailable, err)
		}
		return struct{}{}, err
	})
	return err
}

// pgxQuerier is a pgx transaction (or the pool, for a statement on its own)
// as the portable querier DBOS hands RunAsTransaction callbacks, so the
// Recorder has one implementation.
type pgxQuerier struct{ tx pgxRunner }

// pgxRunner is what pgx's transactions and pools share.
type pgxRunner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (q pgxQuerier) Exec(ctx context.Context, sql string, args ...any) (dbos.Result, error) {
	tag, err := q.tx.Exec(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rowsAffected(tag.RowsAffected()), nil
}

func (q pgxQuerier) Query(ctx context.Context, sql string, args ...any) (dbos.Rows, error) {
	rows, err := q.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgxRows{rows}, nil
}

func (q pgxQuerier) QueryRow(ctx context.Context, sql string, args ...any) dbos.Row {
	return pgxRow{q.tx.QueryRow(ctx, sql, args...)}
}

type rowsAffected int64

func (n rowsAffected) RowsAffected() (int64, error) { return int64(n), nil }

type pgxRows struct{ r pgx.Rows }

func (r pgxRows) Next() bool             { return r.r.Next() }
func (r pgxRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r pgxRows) Err() error             { return r.r.Err() }
func (r pgxRows) Close() error           { r.r.Close(); return nil }

type pgxRow struct{ r pgx.Row }

func (r pgxRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return dbos.ErrNoRows
	}
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
