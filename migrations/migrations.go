package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// Schema is the PostgreSQL schema of manent's tables and of the migration
// bookkeeping.
const Schema = "manent"

const (
	table      = Schema + ".migrations"
	locksTable = Schema + ".migration_locks"
	// lockKey is the advisory lock that serialises migrations between
	// processes started at once (any constant unlikely to collide).
	lockKey = 0x6d616e656e74 // "manent"
)

// All returns the embedded migrations.
func All() (*migrate.Migrations, error) {
	m := migrate.NewMigrations()
	if err := m.Discover(files); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return m, nil
}

// Migrate applies the migrations not applied yet. It is idempotent and safe
// when several processes start at once: they take turns under an advisory
// lock, and each migration is recorded in the transaction that applies it,
// so a crash never leaves one applied but unrecorded.
func Migrate(ctx context.Context, db *bun.DB) error {
	return withLock(ctx, db, func() error {
		ms, err := All()
		if err != nil {
			return err
		}
		migrator := migrate.NewMigrator(db, ms,
			migrate.WithTableName(table), migrate.WithLocksTableName(locksTable),
			migrate.WithUpsert(true), migrate.WithMarkAppliedOnSuccess(true),
			migrate.AfterMigration(func(ctx context.Context, tx bun.IConn, m *migrate.Migration) error {
				_, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (name, group_id, migrated_at) VALUES (?, ?, now())", m.Name, m.GroupID)
				return err
			}),
		)
		if _, err := migrator.Migrate(ctx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return nil
	})
}

// Rollback undoes the last group of migrations (for development).
func Rollback(ctx context.Context, db *bun.DB) error {
	return withLock(ctx, db, func() error {
		ms, err := All()
		if err != nil {
			return err
		}
		migrator := migrate.NewMigrator(db, ms,
			migrate.WithTableName(table), migrate.WithLocksTableName(locksTable),
			migrate.WithUpsert(true), migrate.WithMarkAppliedOnSuccess(true))
		if _, err := migrator.Rollback(ctx); err != nil {
			return fmt.Errorf("rollback: %w", err)
		}
		return nil
	})
}

// withLock runs fn under the migration advisory lock, held by a connection
// of its own for fn's whole duration.
func withLock(ctx context.Context, db *bun.DB, fn func() error) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", int64(lockKey)); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer func() {
		// A fresh context: the lock must go even when ctx has ended.
		if _, uerr := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(?)", int64(lockKey)); uerr != nil && !errors.Is(uerr, sql.ErrConnDone) {
			err = errors.Join(err, fmt.Errorf("migration unlock: %w", uerr))
		}
	}()
	if _, err := db.ExecContext(ctx, bookkeeping); err != nil {
		return fmt.Errorf("create migration tables: %w", err)
	}
	return fn()
}

// bookkeeping creates bun's migration tables in the manent schema, in place
// of Migrator.Init, whose unique index name breaks on a schema-qualified table.
const bookkeeping = `
CREATE SCHEMA IF NOT EXISTS ` + Schema + `;
CREATE TABLE IF NOT EXISTS ` + table + ` (
    id          bigserial   PRIMARY KEY,
    name        varchar     NOT NULL UNIQUE,
    group_id    bigint      NOT NULL,
    migrated_at timestamptz NOT NULL DEFAULT current_timestamp
);
CREATE TABLE IF NOT EXISTS ` + locksTable + ` (
    id         bigserial PRIMARY KEY,
    table_name varchar   UNIQUE
);`
