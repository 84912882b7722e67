package embeddedpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// start starts a cluster in a fresh directory and removes it when the test ends.
func start(t *testing.T, opts Options) *Instance {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	t.Cleanup(func() { destroy(t, opts.DataDir) })
	inst, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return inst
}

func destroy(t *testing.T, dataDir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Shutdown(ctx, Options{DataDir: dataDir, Ephemeral: true}); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	var out string
	if err := conn.QueryRow(ctx, sql).Scan(&out); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func execSQL(t *testing.T, url, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name      string
		ephemeral bool
		want      map[string]string
	}{
		{"durable", false, map[string]string{"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "max_connections": "300", "listen_addresses": "127.0.0.1", "server_encoding": "UTF8"}},
		{"ephemeral", true, map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "max_connections": "300"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := start(t, Options{Ephemeral: tt.ephemeral})
			for k, want := range tt.want {
				if got := query(t, inst.URL(""), "SHOW "+k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if os.Geteuid() == 0 {
				if got := query(t, inst.URL(""), "SELECT current_setting('data_directory')"); filepath.Dir(got) != inst.Dir() {
					t.Errorf("data_directory %s is not in the cluster directory %s", got, inst.Dir())
				}
			}
		})
	}
}

func TestStopEphemeralRemovesCluster(t *testing.T) {
	inst := start(t, Options{Ephemeral: true})
	dir, port := inst.Dir(), inst.Port()
	if err := inst.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	checkRemoved(t, dir, port)
}

// checkRemoved checks what Stop leaves of an Ephemeral cluster: nothing.
func checkRemoved(t *testing.T, dir string, port int) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster %s still exists after Stop: %v", dir, err)
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second); err == nil {
		_ = c.Close()
		t.Errorf("port %d still accepts connections after Stop", port)
	}
}

func TestRestartReusesCluster(t *testing.T) {
	dataDir := t.TempDir()
	first := start(t, Options{DataDir: dataDir})
	execSQL(t, first.URL(""), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)")
	if err := first.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	second := start(t, Options{DataDir: dataDir})
	if got := query(t, second.URL(""), "SELECT v::text FROM kept"); got != "42" {
		t.Errorf("row after restart = %q, want 42", got)
	}
	if second.URL("") == first.URL("") && first.Port() != second.Port() {
		t.Errorf("URL does not follow the port")
	}
}

// A postmaster.pid naming a live process that is not our postgres (PID reuse
// after a crash) must not block the start.
func TestStalePidFileIsIgnored(t *testing.T) {
	dataDir := t.TempDir()
	inst := start(t, Options{DataDir: dataDir})
	pgdata := filepath.Join(inst.Dir(), pgdataName)
	if err := inst.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	stale := fmt.Sprintf("%d\n%s\n1700000000\n5432\n%s\n127.0.0.1\n  1234   5678\nready   \n",
		os.Getpid(), pgdata, filepath.Join(inst.Dir(), runName))
	if err := os.WriteFile(filepath.Join(pgdata, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	again := start(t, Options{DataDir: dataDir})
	if got := query(t, again.URL(""), "SELECT 1::text"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
}

func TestKilledServerRestarts(t *testing.T) {
	dataDir := t.TempDir()
	inst := start(t, Options{DataDir: dataDir, Detach: true})
	execSQL(t, inst.URL(""), "CREATE TABLE survived (v int); INSERT INTO survived VALUES (7)")
	if err := syscall.Kill(inst.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, inst.pid)
	again := start(t, Options{DataDir: dataDir, Detach: true})
	if again.pid == inst.pid {
		t.Fatalf("attached to the killed server")
	}
	if got := query(t, again.URL(""), "SELECT v::text FROM survived"); got != "7" {
		t.Errorf("row after crash = %q, want 7", got)
	}
}

// An outage, as `pg_ctl stop -m immediate` (or a kill) then a start make it:
// held connections die, LISTEN ones included, new ones are refused while it
// is down, and the same URL serves the committed data after Restart.
func TestCrashAndRestart(t *testing.T) {
	immediate := "received immediate shutdown request"
	recovered := "automatic recovery in progress"
	tests := []struct {
		name    string
		detach  bool // Crash then polls the PID rather than wait for the child
		outage  func(t *testing.T, inst *Instance)
		wantLog []string
	}{
		{"crash", false, crash, []string{immediate, recovered}},
		{"crash detached", true, crash, []string{immediate, recovered}},
		{"killed", false, func(t *testing.T, inst *Instance) {
			if err := syscall.Kill(inst.pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			waitGone(t, inst.pid)
		}, []string{recovered}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := start(t, Options{Ephemeral: true, Detach: tt.detach})
			url, dir, port, pid := inst.URL(""), inst.Dir(), inst.Port(), inst.pid
			// Ephemeral commits are asynchronous: without this, the crash loses them.
			execSQL(t, url, "SET synchronous_commit = on; CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			held := connect(t, ctx, url)
			listening := connect(t, ctx, url)
			if _, err := listening.Exec(ctx, "LISTEN outage"); err != nil {
				t.Fatal(err)
			}

			tt.outage(t, inst)

			if c, err := pgx.Connect(ctx, url); err == nil {
				_ = c.Close(ctx)
				t.Errorf("connected while the server is down")
			} else if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("connect while down: %v, want connection refused", err)
			}
			if _, err := held.Exec(ctx, "SELECT 1"); err == nil {
				t.Errorf("a connection held across the outage still works")
			}
			// The server ends the session: no need to wait for the deadline.
			wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
			_, err := listening.WaitForNotification(wctx)
			wcancel()
			if err == nil || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("LISTEN connection across the outage: %v, want it closed", err)
			}

			if err := inst.Restart(ctx); err != nil {
				t.Fatalf("Restart: %v", err)
			}
			if inst.URL("") != url || inst.Port() != port {
				t.Errorf("URL changed across Restart (port %d, was %d)", inst.Port(), port)
			}
			if inst.pid == pid {
				t.Errorf("Restart kept pid %d", pid)
			}
			if got := query(t, url, "SELECT v::text FROM kept"); got != "42" {
				t.Errorf("row after Restart = %q, want 42", got)
			}
			log := inst.logSince(0)
			for _, want := range tt.wantLog {
				if !strings.Contains(log, want) {
					t.Errorf("postgres log lacks %q:\n%s", want, log)
				}
			}
			if err := inst.Stop(); err != nil {
				t.Fatalf("Stop after Restart: %v", err)
			}
			checkRemoved(t, dir, port)
		})
	}
}

func crash(t *testing.T, inst *Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := inst.Crash(ctx); err != nil {
		t.Fatalf("Crash: %v", err)
	}
}

// connect opens a connection closed when the test ends.
func connect(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// Clients hold the URL: Restart must not move to another port.
func TestRestartOnTakenPortFails(t *testing.T) {
	inst := start(t, Options{Ephemeral: true})
	url := inst.URL("")
	crash(t, inst)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(inst.Port())))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = inst.Restart(ctx)
	_ = l.Close()
	if !errors.Is(err, errPortInUse) {
		t.Fatalf("Restart on a taken port: %v, want %v", err, errPortInUse)
	}
	if inst.URL("") != url {
		t.Errorf("URL changed by a failed Restart")
	}
	if err := inst.Restart(ctx); err != nil {
		t.Fatalf("Restart once the port is free: %v", err)
	}
	if got := query(t, url, "SELECT 1::text"); got != "1" {
		t.Errorf("SELECT 1 = %q", got)
	}
}

// A crashed server left down has nothing to stop; an Ephemeral cluster is
// still removed.
func TestStopAfterCrash(t *testing.T) {
	inst := start(t, Options{Ephemeral: true})
	dir, port := inst.Dir(), inst.Port()
	crash(t, inst)
	crash(t, inst) // already down: nothing to do
	if _, err := os.Stat(filepath.Join(dir, pgdataName, "PG_VERSION")); err != nil {
		t.Errorf("Crash of an Ephemeral instance removed data: %v", err)
	}
	if err := inst.Stop(); err != nil {
		t.Fatalf("Stop after Crash: %v", err)
	}
	checkRemoved(t, dir, port)
}

func TestCrashAndRestartRefused(t *testing.T) {
	owner := func(t *testing.T) *Instance { return start(t, Options{Ephemeral: true}) }
	attached := func(t *testing.T) *Instance {
		first := owner(t)
		inst, err := Start(context.Background(), Options{DataDir: first.opts.DataDir, Ephemeral: true})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if inst.owned {
			t.Fatalf("second Start owns the server")
		}
		return inst
	}
	stopped := func(t *testing.T) *Instance {
		inst := owner(t)
		if err := inst.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		return inst
	}
	crashOp := func(ctx context.Context, inst *Instance) error { return inst.Crash(ctx) }
	restartOp := func(ctx context.Context, inst *Instance) error { return inst.Restart(ctx) }
	tests := []struct {
		name    string
		prepare func(t *testing.T) *Instance
		op      func(context.Context, *Instance) error
	}{
		{"crash attached", attached, crashOp},
		{"restart attached", attached, restartOp},
		{"restart running", owner, restartOp},
		{"crash stopped", stopped, crashOp},
		{"restart stopped", stopped, restartOp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst := tt.prepare(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := tt.op(ctx, inst); err == nil {
				t.Fatalf("succeeded")
			}
			if !inst.stopped {
				if got := query(t, inst.URL(""), "SELECT 1::text"); got != "1" {
					t.Errorf("server not serving after a refused call: %q", got)
				}
			}
		})
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two processes starting one cluster at once get one server: the second
// attaches, and its Stop leaves the server to the first.
func TestConcurrentStartsShareOneServer(t *testing.T) {
	dataDir := t.TempDir()
	t.Cleanup(func() { destroy(t, dataDir) })
	const n = 3
	insts := make([]*Instance, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { insts[i], errs[i] = Start(context.Background(), Options{DataDir: dataDir, Ephemeral: true}) })
	}
	wg.Wait()
	owners := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Start %d: %v", i, errs[i])
		}
		if insts[i].owned {
			owners++
		}
		if insts[i].Port() != insts[0].Port() {
			t.Errorf("start %d on port %d, start 0 on %d", i, insts[i].Port(), insts[0].Port())
		}
	}
	if owners != 1 {
		t.Fatalf("%d owners, want 1", owners)
	}
	for _, inst := range insts {
		if !inst.owned {
			if err := inst.Stop(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := query(t, insts[0].URL(""), "SELECT 1::text"); got != "1" {
		t.Errorf("server stopped by an attached Stop")
	}
	for _, inst := range insts {
		if inst.owned {
			if err := inst.Stop(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestHydrateSymlinks(t *testing.T) {
	pkg := t.TempDir()
	lib := filepath.Join(pkg, "native", "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "libx.so.1.2"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	links, _ := json.Marshal([]symlink{
		{Source: "native/lib/libx.so.1.2", Target: "native/lib/libx.so.1"},
		{Source: "native/lib/libx.so.1.2", Target: "native/lib/libx.so"},
	})
	if err := os.WriteFile(filepath.Join(pkg, "native", "pg-symlinks.json"), links, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // idempotent
		if err := hydrateSymlinks(filepath.Join(pkg, "native")); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"libx.so.1", "libx.so"} {
		got, err := os.Readlink(filepath.Join(lib, name))
		if err != nil || got != "libx.so.1.2" {
			t.Errorf("%s -> %q (%v), want a relative link to libx.so.1.2", name, got, err)
		}
	}
}

func TestMissingBinariesSayWhatToDo(t *testing.T) {
	_, err := Start(context.Background(), Options{DataDir: t.TempDir(), BinDir: filepath.Join(t.TempDir(), "nothing")})
	if err == nil {
		t.Fatal("Start with no binaries succeeded")
	}
}

// Binaries the PostgreSQL user cannot reach (under a private directory, as a
// checkout in /root is) are run from a copy, made once; the library symlinks
// are made whether npm ran the package's install script or not.
func TestUnreachableBinariesAreCopied(t *testing.T) {
	bin, err := findBinDir()
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(t.TempDir(), "native") // t.TempDir is 0700
	if err := os.Mkdir(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Dir(bin), private); err != nil {
		t.Fatal(err)
	}
	links, _ := filepath.Glob(filepath.Join(private, "lib", "*.so*"))
	for _, l := range links {
		if st, err := os.Lstat(l); err == nil && st.Mode()&os.ModeSymlink != 0 {
			_ = os.Remove(l) // as if the install script had not run
		}
	}
	acct, err := pgAccount()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var dirs []string
	for range 2 {
		b, err := resolveBinaries(ctx, filepath.Join(private, "bin"), acct, discard())
		if err != nil {
			t.Fatalf("resolveBinaries: %v", err)
		}
		if b.major() == "" || b.version == "" {
			t.Errorf("version %q", b.version)
		}
		dirs = append(dirs, b.dir)
	}
	if dirs[0] != dirs[1] {
		t.Errorf("second resolution used %s, first %s: want the same copy", dirs[1], dirs[0])
	}
	if acct == nil {
		if dirs[0] != filepath.Join(private, "bin") {
			t.Errorf("as the current user, binaries in %s were not used in place (%s)", private, dirs[0])
		}
		return
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(dirs[0])) })
	if strings.HasPrefix(dirs[0], private) {
		t.Errorf("as root, binaries in a private directory were used in place")
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Remove takes away a durable cluster, running or not, wherever it lives
// (as root, outside DataDir) and its pointer in DataDir: a deleted checkout
// leaves nothing behind once `make clean` ran. Removing it again is no error.
func TestRemoveDeletesADurableCluster(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "pg")
	inst := start(t, Options{DataDir: dataDir, Detach: true})
	execSQL(t, inst.URL(""), "CREATE TABLE kept (v int)")
	dir, port := inst.Dir(), inst.Port()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range 2 {
		if err := Remove(ctx, Options{DataDir: dataDir}); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		checkRemoved(t, dir, port)
		if _, err := os.Lstat(dataDir); !os.IsNotExist(err) {
			t.Errorf("the data directory %s (its pointer to the cluster) is still there: %v", dataDir, err)
		}
	}
	// A new start begins from nothing.
	again := start(t, Options{DataDir: dataDir})
	if got := query(t, again.URL(""), "SELECT count(*)::text FROM pg_tables WHERE tablename = 'kept'"); got != "0" {
		t.Errorf("the table of the removed cluster is back: %s", got)
	}
}

// RemoveBinaries takes away the copy of the binaries made for the
// PostgreSQL user; there is none when running as another user.
func TestRemoveBinaries(t *testing.T) {
	bin, err := findBinDir()
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(t.TempDir(), "native")
	if err := os.Mkdir(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Dir(bin), private); err != nil {
		t.Fatal(err)
	}
	acct, err := pgAccount()
	if err != nil {
		t.Fatal(err)
	}
	b, err := resolveBinaries(context.Background(), filepath.Join(private, "bin"), acct, discard())
	if err != nil {
		t.Fatalf("resolveBinaries: %v", err)
	}
	removed, err := RemoveBinaries(filepath.Join(private, "bin"))
	if err != nil {
		t.Fatalf("RemoveBinaries: %v", err)
	}
	if acct == nil {
		if removed != "" {
			t.Errorf("as the current user RemoveBinaries removed %s", removed)
		}
		return
	}
	if removed != filepath.Dir(b.dir) {
		t.Errorf("RemoveBinaries removed %q, want the copy %s", removed, filepath.Dir(b.dir))
	}
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("the copy %s is still there: %v", b.dir, err)
	}
	if again, err := RemoveBinaries(filepath.Join(private, "bin")); err != nil || again != "" {
		t.Errorf("second RemoveBinaries = %q, %v", again, err)
	}
}
