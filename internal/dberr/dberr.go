package dberr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err, an error of a call to PostgreSQL (never
// one of a target or of an HTTP peer), means the database cannot serve the
// call now: out of reach or restarting (a refused or broken connection, a
// server shutting down or starting up, too many connections), read-only
// during a failover, out of resources (disk full, out of memory, an I/O
// error), or a conflict that ended the transaction (deadlock,
// serialization failure, lock or statement timeout). Such errors are
// infrastructure faults, not the caller's: the call can be made again, in a
// new transaction, once the database can serve it.
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // admin, crash shutdown, cannot connect now
			return true
		case strings.HasPrefix(pgErr.Code, "53"): // insufficient resources: disk full, out of memory, too many connections
			return true
		case strings.HasPrefix(pgErr.Code, "58"): // system error: an I/O error of the server
			return true
		case pgErr.Code == "40001", pgErr.Code == "40P01": // serialization failure, deadlock
			return true
		case pgErr.Code == "25006": // read-only transaction: a standby, or a primary being failed over
			return true
		case pgErr.Code == "25P03": // idle-in-transaction timeout
			return true
		case pgErr.Code == "55P03": // lock not available (lock_timeout)
			return true
		case pgErr.Code == "57014": // statement timeout (a cancel of the caller's own context is excluded above)
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	if pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return true
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "failed to connect")
}

// Internal reports whether err comes from PostgreSQL or the database driver
// itself (a server error, a refused connection, a closed transaction): text
// for the operator's log, never for a deploy's readers.
func Internal(err error) bool {
	var pgErr *pgconn.PgError
	var connectErr *pgconn.ConnectError
	return errors.As(err, &pgErr) || errors.As(err, &connectErr) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, sql.ErrTxDone) || errors.Is(err, driver.ErrBadConn)
}
