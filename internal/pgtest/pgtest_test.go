package pgtest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func databaseExists(t *testing.T, name string) bool {
	t.Helper()
	base, err := serverURL()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := connect(t, base).QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// Each test gets its own empty database, gone once the test ends, also
// when it left connections open.
func TestURLGivesFreshDatabases(t *testing.T) {
	var mu sync.Mutex
	var names []string
	t.Run("parallel", func(t *testing.T) {
		for range 6 {
			t.Run("db", func(t *testing.T) {
				t.Parallel()
				conn := connect(t, URL(t))
				ctx := context.Background()
				var name string
				var tables int
				if err := conn.QueryRow(ctx, "SELECT current_database(), (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')").Scan(&name, &tables); err != nil {
					t.Fatal(err)
				}
				if tables != 0 {
					t.Errorf("database %s has %d tables", name, tables)
				}
				if _, err := conn.Exec(ctx, "CREATE TABLE mine (v int)"); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				names = append(names, name)
				mu.Unlock()
			})
		}
	})
	if len(names) != 6 {
		t.Fatalf("%d databases, want 6", len(names))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("database %s given twice", n)
		}
		seen[n] = true
		if databaseExists(t, n) {
			t.Errorf("database %s still exists after its test", n)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	tests := []struct{ base, want string }{
		{"postgres://u:p@127.0.0.1:5432/postgres?sslmode=disable", "postgres://u:p@127.0.0.1:5432/t_x?sslmode=disable"},
		{"postgresql://h/db", "postgresql://h/t_x"},
		{"postgres://h", "postgres://h/t_x"},
		{"host=h port=5 dbname=postgres user=u", "host=h port=5 user=u dbname=t_x"},
		{"host=h", "host=h dbname=t_x"},
	}
	for _, tt := range tests {
		got, err := withDatabase(tt.base, "t_x")
		if err != nil || got != tt.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tt.base, got, err, tt.want)
		}
	}
}

func TestDBName(t *testing.T) {
	tests := []string{"TestX", "TestList/page_of_7", strings.Repeat("VeryLong", 20), "Ünïcode/ and spaces"}
	for _, test := range tests {
		got := dbName(test)
		if len(got) > 63 || !strings.HasPrefix(got, "t_") || strings.Trim(got, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("dbName(%q) = %q", test, got)
		}
		if dbName(test) == got {
			t.Errorf("dbName(%q) is not unique", test)
		}
	}
}

// A test's own server commits what it acknowledged before a crash, and
// serves the same URL after its restart.
func TestServerSurvivesACrash(t *testing.T) {
	s := StartServer(t)
	url := s.Database(t, "own")
	ctx := context.Background()
	conn := connect(t, url)
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Crash(ctx); err != nil {
		t.Fatal(err)
	}
	if err := conn.Ping(ctx); err == nil {
		t.Fatal("the connection still answers after the crash")
	}
	if err := s.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := connect(t, url).QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the restart: %d rows, %v; want the row committed before the crash", n, err)
	}
}
