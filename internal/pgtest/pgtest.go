package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/internal/embeddedpg"
)

// shared is the PostgreSQL of this test binary, chosen by the first URL call:
// DATABASE_URL then, or an embedded one started for the binary. Later changes
// of DATABASE_URL (tests that t.Setenv it to their own database) do not move it.
var shared struct {
	once sync.Once
	url  string
	inst *embeddedpg.Instance
	err  error
}

// URL returns the URL of a new, empty database, dropped when the test ends.
// The database is created on the PostgreSQL of DATABASE_URL when it is set
// (`make test` sets it to one embedded PostgreSQL shared by every package),
// otherwise on an embedded PostgreSQL started once for this test binary.
// Safe for parallel tests.
func URL(t testing.TB) string {
	t.Helper()
	base, err := serverURL()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	name := dbName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := admin(ctx, base, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		// FORCE ends the sessions a test left open (pools, listeners).
		if err := admin(ctx, base, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	u, err := withDatabase(base, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// Main runs the tests of a package, then each of after (what the tests
// left outside their temporary directories), and then stops its embedded
// PostgreSQL, if URL started one. Use it as
// `func TestMain(m *testing.M) { pgtest.Main(m) }`. Without it the server
// still ends with the test binary (the kernel stops it), and the next run
// removes its files.
func Main(m *testing.M, after ...func()) {
	code := m.Run()
	for _, f := range after {
		f()
	}
	if shared.inst != nil {
		if err := shared.inst.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stop embedded PostgreSQL:", err)
		}
	}
	os.Exit(code)
}

func serverURL() (string, error) {
	shared.once.Do(func() {
		if shared.url = os.Getenv("DATABASE_URL"); shared.url != "" {
			return
		}
		root := clustersRoot()
		removeStale(root)
		// One cluster per test binary: `go test ./...` runs packages in
		// parallel, each in its own process.
		opts := embeddedpg.Options{
			DataDir:   filepath.Join(root, strconv.Itoa(os.Getpid())),
			Ephemeral: true,
			Logger:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		shared.inst, shared.err = embeddedpg.Start(ctx, opts)
		if shared.err == nil {
			shared.url = shared.inst.URL("postgres")
		}
	})
	if shared.err != nil {
		return "", fmt.Errorf("start embedded PostgreSQL (or set DATABASE_URL): %w", shared.err)
	}
	return shared.url, nil
}

// clustersRoot holds the embedded clusters of test binaries: <pid> for the
// shared one, <pid>-<n> for the Servers of tests.
func clustersRoot() string { return filepath.Join(os.TempDir(), "manent-pgtest") }

// removeStale removes the clusters of test binaries that ended without
// Main (killed, or a package without TestMain), or without the cleanup of
// a test's Server.
func removeStale(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		owner, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(owner)
		if err != nil || pid == os.Getpid() || processExists(pid) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = embeddedpg.Shutdown(ctx, embeddedpg.Options{DataDir: filepath.Join(root, e.Name()), Ephemeral: true})
		cancel()
	}
}

func processExists(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// admin runs one statement on the server's own database.
func admin(ctx context.Context, serverURL, sql string) error {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// dbName is unique and recognisable: t_<test name>_<random>, within
// PostgreSQL's 63 bytes.
func dbName(test string) string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	slug := strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(test), "_"), "_")
	if len(slug) > 40 {
		slug = slug[:40]
	}
	return "t_" + slug + "_" + hex.EncodeToString(b[:])
}

// withDatabase returns base pointing at database name. base is a URL
// (postgres://...) or a keyword/value string (host=... dbname=...).
func withDatabase(base, name string) (string, error) {
	if strings.HasPrefix(base, "postgres://") || strings.HasPrefix(base, "postgresql://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("DATABASE_URL: %w", err)
		}
		u.Path = "/" + name
		u.RawPath = ""
		return u.String(), nil
	}
	fields := strings.Fields(base)
	out := fields[:0]
	for _, f := range fields {
		if !strings.HasPrefix(f, "dbname=") {
			out = append(out, f)
		}
	}
	return strings.Join(append(out, "dbname="+name), " "), nil
}

// Strings runs a query of one text column on the database at url and
// returns its rows: black-box tests read what the server stored (the audit
// log has no API) without a driver of their own.
func Strings(t testing.TB, url, query string, args ...any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to the test database: %v", err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
