package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"manent.dev/manent/migrations"
)

// Pool sizes: DBOS keeps a pool of its own and the embedded PostgreSQL
// allows 300 connections, shared by every process and test. As many stay
// idle as may be open: a burst of readers (fifty screens following fifty
// deploys) would otherwise close and reopen connections at every burst, and
// each opening costs a SCRAM exchange (4,096 rounds of PBKDF2) on both
// sides; an idle connection is closed after five minutes anyway.
const (
	maxOpenConns = 20
	maxIdleConns = maxOpenConns
)

// inlinedConnector makes the pool's connections inlinedConns.
type inlinedConnector struct{ driver.Connector }

func (c inlinedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	conn, ok := dc.(*stdlib.Conn)
	// bun's quoting of the values it inlines is right only where a
	// backslash is no escape: elsewhere the queries keep the extended
	// protocol, which refuses a second statement in one query.
	if !ok || conn.Conn().PgConn().ParameterStatus("standard_conforming_strings") != "on" {
		return dc, nil
	}
	return inlinedConn{conn}, nil
}

// inlinedConn sends a query without arguments (bun writes its arguments
// into the text) in one round trip of the simple protocol. pgx would
// otherwise prepare it first, a round trip and a parse and plan of its own
// on the server, and cache a statement that is almost never sent again (its
// arguments are in its text), pushing out those that are. A query with
// arguments, and every Exec, is sent as before.
type inlinedConn struct{ *stdlib.Conn }

func (c inlinedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) == 0 {
		args = []driver.NamedValue{{Ordinal: 1, Value: pgx.QueryExecModeSimpleProtocol}}
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// DB is the connection pool of the manent schema.
type DB struct {
	bun *bun.DB
}

// Open connects to url (postgres://...) and checks the connection.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	// pgx's default exec mode stays: bun inlines its arguments, but DBOS
	// enqueues on our *sql.Tx with real ones, and only a mode that asks the
	// server for parameter types stores its []byte in text columns as text.
	// The queries that bun inlined are sent as they are (inlined).
	sqldb := sql.OpenDB(inlinedConnector{stdlib.GetConnector(*cfg)})
	sqldb.SetMaxOpenConns(maxOpenConns)
	sqldb.SetMaxIdleConns(maxIdleConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	sqldb.SetConnMaxLifetime(time.Hour)
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return &DB{bun: db}, nil
}

// Limit bounds the pool's connections (database.max_connections gives it
// its share), idle ones included.
func (db *DB) Limit(conns int) {
	db.bun.SetMaxOpenConns(conns)
	db.bun.SetMaxIdleConns(min(conns, maxIdleConns))
}

// Observe adds hook to the statements of db, from the stores made from it
// afterwards (the metrics count their errors): call it before NewStore.
func (db *DB) Observe(hook bun.QueryHook) { db.bun = db.bun.WithQueryHook(hook) }

// Bun is the bun handle, for packages that query the manent schema themselves.
func (db *DB) Bun() *bun.DB { return db.bun }

// SQL is the database/sql pool under bun.
func (db *DB) SQL() *sql.DB { return db.bun.DB }

// Close closes the pool.
func (db *DB) Close() error { return db.bun.Close() }

// Migrate applies the migrations of the manent schema (see migrations.Migrate).
func Migrate(ctx context.Context, db *DB) error {
	return migrations.Migrate(ctx, db.bun)
}
