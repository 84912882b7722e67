package pgxquerier

import (
	"context"
	"errors"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Runner is what pgx's transactions, connections and pools share.
type Runner interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// New is r as a dbos.Querier: a row that is not there reads as
// dbos.ErrNoRows, as in DBOS's own transactions.
func New(r Runner) dbos.Querier { return querier{r} }

type querier struct{ r Runner }

func (q querier) Exec(ctx context.Context, sql string, args ...any) (dbos.Result, error) {
	tag, err := q.r.Exec(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rowsAffected(tag.RowsAffected()), nil
}

func (q querier) Query(ctx context.Context, sql string, args ...any) (dbos.Rows, error) {
	rows, err := q.r.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return dbosRows{rows}, nil
}

func (q querier) QueryRow(ctx context.Context, sql string, args ...any) dbos.Row {
	return dbosRow{q.r.QueryRow(ctx, sql, args...)}
}

type rowsAffected int64

func (n rowsAffected) RowsAffected() (int64, error) { return int64(n), nil }

type dbosRows struct{ r pgx.Rows }

func (r dbosRows) Next() bool             { return r.r.Next() }
func (r dbosRows) Scan(dest ...any) error { return r.r.Scan(dest...) }
func (r dbosRows) Err() error             { return r.r.Err() }
func (r dbosRows) Close() error           { r.r.Close(); return nil }

type dbosRow struct{ r pgx.Row }

func (r dbosRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return dbos.ErrNoRows
	}
	return err
}

// Unwrap is the pgx runner under q when New made q: the transaction DBOS's
// Enqueue and Send take to commit with it.
func Unwrap(q dbos.Querier) (Runner, bool) {
	p, ok := q.(querier)
	return p.r, ok
}
