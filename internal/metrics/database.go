package metrics

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"manent.dev/manent/internal/dberr"
)

// The pools whose errors are counted (manent_database_errors_total).
const (
	PoolManent = "manent"
	PoolDBOS   = "dbos"
)

const (
	classUnavailable = "unavailable"
	classStatement   = "statement"
)

// dbError counts err of pool, when it is one: a missing row, the caller's
// own cancel and the rollback that follows a commit (bun's RunInTx makes
// one, which answers sql.ErrTxDone) are answers, not errors of the
// database.
func (m *Metrics) dbError(pool string, err error) {
	if err == nil || errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrTxDone) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	class := classStatement
	if dberr.Unavailable(err) {
		class = classUnavailable
	}
	m.dbErrors.WithLabelValues(pool, class).Inc()
}

// QueryHook counts the errors of the statements of a bun database.
func (m *Metrics) QueryHook(pool string) bun.QueryHook { return queryHook{m: m, pool: pool} }

type queryHook struct {
	m    *Metrics
	pool string
}

func (h queryHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h queryHook) AfterQuery(_ context.Context, e *bun.QueryEvent) { h.m.dbError(h.pool, e.Err) }

// Tracer counts the errors of the statements and connections of a pgx
// pool (set it as the pool's ConnConfig.Tracer).
func (m *Metrics) Tracer(pool string) pgx.QueryTracer { return tracer{m: m, pool: pool} }

type tracer struct {
	m    *Metrics
	pool string
}

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (t tracer) TraceQueryEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	t.m.dbError(t.pool, d.Err)
}

func (t tracer) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return ctx
}

func (t tracer) TraceConnectEnd(_ context.Context, d pgx.TraceConnectEndData) {
	t.m.dbError(t.pool, d.Err)
}
