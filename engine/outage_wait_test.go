package engine_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/embeddedpg"
)

// TestWaitCutMidTimerThenRestart: the connection of a wait is cut in the
// middle of the transaction that records its durable timer, as a crash of
// PostgreSQL does, and the worker stops before the wait ends. The next
// worker replays the wait: the wait made after the cut left the same
// recorded steps as any other, so DBOS replays them, and the deploy runs
// once its dependency succeeded. (The chaos run of e2e found it: the
// failed timer's wait was made again with new step IDs, DBOS refused the
// replay, and the deploy ended ERROR.)
func TestWaitCutMidTimerThenRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	pg, err := embeddedpg.Start(ctx, embeddedpg.Options{
		DataDir: filepath.Join(os.TempDir(), "manent-wait-cut-"+strconv.Itoa(os.Getpid())), Ephemeral: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop() })
	admin, err := pgx.Connect(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE waits"); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close(ctx)
	t.Cleanup(func() {
		if t.Failed() {
			logWait(t, pg.URL("waits"), "w-child:wait")
		}
	})
	cut := newCutProxy(t, pg.Port())
	through, err := url.Parse(pg.URL("waits"))
	if err != nil {
		t.Fatal(err)
	}
	through.Host = cut.addr

	const pollEvery = "chains: {poll_interval: 100ms}"
	first := newEnvWith(t, envOptions{url: through.String(), executorID: "waits", engineYAML: pollEvery})
	gates := blockDeploys(first, "w-dep")
	first.submit("w-dep", "app", "prod")
	<-gates["w-dep:started"]
	// The first timer that w-child's wait records is cut.
	cut.arm([]byte("w-child:wait"), []byte("DBOS.sleep"))
	if _, err := first.eng.Submit(first.ctx, []byte(withAfter(descriptorFor("w-child", "app", "staging"), "w-dep")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cut.done:
	case <-ctx.Done():
		t.Fatal("the wait never recorded a timer")
	}
	// The wait goes on after the cut (DBOS records its next steps, after the
	// two IDs of the Recv that failed), then the worker stops with the
	// dependency still running.
	waitRecorded(t, pg.URL("waits"), "w-child:wait", 4)
	_ = first.eng.Shutdown(time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "waits", plugin: first.plugin, engineYAML: pollEvery})
	close(gates["w-dep"])
	second.waitState("w-dep", deploy.StateSuccess)
	second.waitState("w-child", deploy.StateSuccess)
	if n := second.plugin.callCount("w-child"); n != 1 {
		t.Errorf("w-child ran %d times, want once", n)
	}
}

// cutProxy forwards TCP connections to PostgreSQL on 127.0.0.1 and, once
// armed, cuts the first connection whose client sends a message holding
// every one of the marks (a statement's parameters are sent as text): the
// message reaches the server, its answer never reaches the client, and the
// server ends the session, rolling its transaction back.
type cutProxy struct {
	addr string
	done chan struct{}

	mu    sync.Mutex
	marks [][]byte
	fired bool
}

func newCutProxy(t *testing.T, port int) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{addr: ln.Addr().String(), done: make(chan struct{})}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				_ = client.Close()
				continue
			}
			go p.pipe(client, server)
			go func() {
				_, _ = io.Copy(client, server) // ends when either side closes
				_ = client.Close()
			}()
		}
	}()
	return p
}

func (p *cutProxy) arm(marks ...[]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marks = marks
}

// pipe copies what the client sends to the server, and cuts both when an
// armed mark set shows up.
func (p *cutProxy) pipe(client, server net.Conn) {
	defer func() { _ = client.Close(); _ = server.Close() }()
	buf := make([]byte, 64<<10)
	var tail []byte // the end of the previous read: a message may span two
	for {
		n, err := client.Read(buf)
		if n > 0 {
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
			window := append(tail, buf[:n]...)
			if p.matches(window) {
				return
			}
			tail = append([]byte(nil), window[max(0, len(window)-512):]...)
		}
		if err != nil {
			return
		}
	}
}

func (p *cutProxy) matches(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fired || len(p.marks) == 0 {
		return false
	}
	for _, m := range p.marks {
		if !bytes.Contains(b, m) {
			return false
		}
	}
	p.fired = true
	close(p.done)
	return true
}

// waitRecorded waits until DBOS recorded a step of workflow id at step ID
// n or after: the workflow went on that far. DBOS's table is read every
// 10ms: the steps have no event.
func waitRecorded(t *testing.T, dbURL, id string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	for {
		var last int
		if err := conn.QueryRow(ctx, "SELECT coalesce(max(function_id), -1) FROM dbos.operation_outputs WHERE workflow_uuid = $1", id).Scan(&last); err != nil {
			t.Fatalf("the steps of %s: %v", id, err)
		}
		if last >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s recorded nothing at step %d or after in a minute (last %d)", id, n, last)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// logWait logs the status of a wait workflow and the steps DBOS recorded
// of it, for the failure of a test of its replay.
func logWait(t *testing.T, dbURL, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Logf("read the wait: %v", err)
		return
	}
	defer func() { _ = conn.Close(ctx) }()
	var status, failure string
	_ = conn.QueryRow(ctx, "SELECT status, coalesce(error, '') FROM dbos.workflow_status WHERE workflow_uuid = $1", id).Scan(&status, &failure)
	t.Logf("workflow %s: %s %s", id, status, failure)
	rows, err := conn.Query(ctx, "SELECT function_id, function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id", id)
	if err != nil {
		t.Logf("read the steps of the wait: %v", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		var name string
		if rows.Scan(&n, &name) == nil {
			t.Logf("  step %d: %s", n, name)
		}
	}
}
