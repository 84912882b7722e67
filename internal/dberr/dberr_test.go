package dberr

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"cannot connect now", fmt.Errorf("begin: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"disk full", &pgconn.PgError{Code: "53100"}, true},
		{"io error", &pgconn.PgError{Code: "58030"}, true},
		{"read-only during a failover", fmt.Errorf("record: %w", &pgconn.PgError{Code: "25006"}), true},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, true},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, true},
		{"lock timeout", &pgconn.PgError{Code: "55P03"}, true},
		{"statement timeout", &pgconn.PgError{Code: "57014"}, true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"invalid text", &pgconn.PgError{Code: "22021"}, false},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, false},
		{"check violation", &pgconn.PgError{Code: "23514"}, false},
		{"bad conn", fmt.Errorf("query: %w", driver.ErrBadConn), true},
		{"eof", io.ErrUnexpectedEOF, true},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"cancelled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{"other", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Unavailable(tt.err); got != tt.want {
				t.Errorf("Unavailable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
