package postgres_test

import (
	"context"
	"errors"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"
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
	if err := fn(txQuerier{tx}); err != nil {
		return err
	}
	return tx.Commit(f.ctx)
}

// txQuerier is a pgx transaction as a dbos.Querier.
type txQuerier struct{ tx pgx.Tx }

func (q txQuerier) Exec(ctx context.Context, sql string, args ...any) (dbos.Result, error) {
	tag, err := q.tx.Exec(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return affected(tag.RowsAffected()), nil
}

func (q txQuerier) Query(ctx context.Context, sql string, args ...any) (dbos.Rows, error) {
	rows, err := q.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return txRows{rows}, nil
}

func (q txQuerier) QueryRow(ctx context.Context, sql string, args ...any) dbos.Row {
	return txRow{q.tx.QueryRow(ctx, sql, args...)}
}

type affected int64

func (n affected) RowsAffected() (int64, error) { return int64(n), nil }

type txRows struct{ r pgx.Rows }

func (r txRows) Next() bool             { return r.r.Next() }
func (r txRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r txRows) Err() error             { return r.r.Err() }
func (r txRows) Close() error           { r.r.Close(); return nil }

// txRow maps pgx's no-rows error to DBOS's, as DBOS's own adapter does.
type txRow struct{ r pgx.Row }

func (r txRow) Scan(dest ...any) error {
	if err := r.r.Scan(dest...); errors.Is(err, pgx.ErrNoRows) {
		return dbos.ErrNoRows
	} else if err != nil {
		return err
	}
	return nil
}
