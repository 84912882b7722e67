package pgtest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/internal/embeddedpg"
)

// A Server is a PostgreSQL of one test's own: an embedded cluster started
// for it alone, which the test may crash and restart (a database outage)
// without touching the PostgreSQL that the other tests share. It ignores
// DATABASE_URL on purpose: a shared server must never be restarted. It is
// stopped and removed when the test ends.
type Server struct {
	inst *embeddedpg.Instance
}

// servers numbers the Servers of this test binary.
var servers atomic.Int64

// StartServer starts a Server for t.
func StartServer(t testing.TB) *Server {
	t.Helper()
	root := clustersRoot()
	removeStale(root)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst, err := embeddedpg.Start(ctx, embeddedpg.Options{
		DataDir:   filepath.Join(root, strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(servers.Add(1), 10)),
		Ephemeral: true,
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("pgtest: start a PostgreSQL of the test's own: %v", err)
	}
	t.Cleanup(func() {
		if err := inst.Stop(); err != nil {
			t.Errorf("pgtest: stop the test's PostgreSQL: %v", err)
		}
	})
	return &Server{inst: inst}
}

// Database creates the database name and returns its URL. Its commits
// survive Crash: the test clusters commit asynchronously for speed, which
// would lose the last acknowledged commits in an immediate shutdown, as no
// real deployment of PostgreSQL does; this database commits synchronously.
func (s *Server) Database(t testing.TB, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := pgx.Identifier{name}.Sanitize()
	for _, q := range []string{"CREATE DATABASE " + id, "ALTER DATABASE " + id + " SET synchronous_commit = on"} {
		if err := admin(ctx, s.inst.URL("postgres"), q); err != nil {
			t.Fatalf("pgtest: %s: %v", q, err)
		}
	}
	return s.inst.URL(name)
}

// Crash shuts the server down at once, as `pg_ctl stop -m immediate` does:
// every session is cut, connecting is refused until Restart.
func (s *Server) Crash(ctx context.Context) error {
	if err := s.inst.Crash(ctx); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// Restart starts the server again after Crash, on the same port: the URLs
// stay valid. It returns once the server accepts connections.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.inst.Restart(ctx); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}
