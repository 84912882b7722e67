package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
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
	"manent.dev/manent/engine"
	"manent.dev/manent/internal/embeddedpg"
)

// TestWaitTimerRefusedThenRestart: the transaction that records the
// durable timer of a wait fails as on a primary that turned read-only in a
// failover (25006, an error DBOS does not retry itself, unlike a broken
// connection, so the wait sees it), and the worker stops before the wait
// ends. The next worker replays the wait: the wait made after the failure
// left the same recorded steps as any other, so DBOS replays them, and the
// deploy runs once its dependency succeeded. (The chaos run of e2e found
// it: the failed timer's wait was made again with new step IDs, DBOS
// refused the replay, and the deploy ended ERROR.)
func TestWaitTimerRefusedThenRestart(t *testing.T) {
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
	refuse := newRefusingProxy(t, pg.Port())
	through, err := url.Parse(pg.URL("waits"))
	if err != nil {
		t.Fatal(err)
	}
	through.Host = refuse.addr

	const pollEvery = "chains: {poll_interval: 100ms}"
	first := newEnvWith(t, envOptions{url: through.String(), executorID: "waits", engineYAML: pollEvery})
	gates := blockDeploys(first, "w-dep")
	first.submit("w-dep", "app", "prod")
	<-gates["w-dep:started"]
	// The first timer that w-child's wait records is refused.
	refuse.arm([]byte("w-child:wait"), []byte("DBOS.sleep"))
	if _, err := first.eng.Submit(first.ctx, []byte(withAfter(descriptorFor("w-child", "app", "staging"), "w-dep")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-refuse.done:
	case <-ctx.Done():
		t.Fatal("the wait never recorded a timer")
	}
	// The wait goes on after the failure (DBOS records its next steps, after
	// the two IDs of the Recv that failed), then the worker stops with the
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

// refusingProxy forwards TCP connections to PostgreSQL on 127.0.0.1 and,
// once armed, refuses the first statement a client sends holding every one
// of the marks (a statement's parameters are sent as text): the statement
// never reaches the server, and the client is answered as a read-only
// primary answers a write, 25006 and the end of the failed command in a
// transaction (the marked statements are in one), so its transaction fails
// and is rolled back like any other.
type refusingProxy struct {
	addr string
	done chan struct{}

	mu    sync.Mutex
	marks [][]byte
	fired bool
}

func newRefusingProxy(t *testing.T, port int) *refusingProxy {
	t.Helper()
	p := &refusingProxy{done: make(chan struct{})}
	p.addr = engine.ProxyTo(t, "127.0.0.1:"+strconv.Itoa(port), func(client, server net.Conn) {
		c := &lockedConn{Conn: client}
		go p.pipe(c, server)
		go func() {
			_, _ = io.Copy(c, server) // ends when either side closes
			_ = client.Close()
		}()
	})
	return p
}

func (p *refusingProxy) arm(marks ...[]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marks = marks
}

// lockedConn is the client's side of a proxied connection, written by the
// server's copy and by the refusal.
type lockedConn struct {
	net.Conn
	mu sync.Mutex
}

func (c *lockedConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Conn.Write(b)
}

// pipe copies what the client sends to the server message by message,
// but for the statement the armed marks pick, which it answers itself. An
// extended-protocol statement (Parse, Bind, Describe, Execute… up to its
// Sync) is held until its Sync and forwarded whole, or dropped whole and
// answered: the server never sees a piece of it, however the bytes were
// split between reads. A Flush, or any other message, forwards what is
// held with it.
func (p *refusingProxy) pipe(client *lockedConn, server net.Conn) {
	defer func() { _ = client.Close(); _ = server.Close() }()
	buf := make([]byte, 64<<10)
	var in []byte    // read, not yet a whole message
	var group []byte // the messages of the statement until its Sync
	untyped := true  // the startup message (and an SSL request) has no type byte
	for {
		n, err := client.Read(buf)
		in = append(in, buf[:n]...)
		for {
			msg, rest, ok := nextMessage(in, untyped)
			if !ok {
				break
			}
			in = rest
			var out []byte
			switch {
			case untyped:
				// An SSL or GSS request (8 bytes) is followed by the startup
				// message, also without a type byte.
				untyped = len(msg) == 8
				out = msg
			case bytes.IndexByte([]byte("PBDEC"), msg[0]) >= 0:
				group = append(group, msg...)
				continue
			case msg[0] == 'S':
				group = append(group, msg...)
				if p.matches(group) {
					group = nil
					if _, werr := client.Write(readOnlyRefusal()); werr != nil {
						return
					}
					continue
				}
				out, group = group, nil
			default:
				out, group = append(group, msg...), nil
			}
			if _, werr := server.Write(out); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// nextMessage splits the first whole message off b: a type byte and a
// length that counts itself, or a length alone for an untyped one.
func nextMessage(b []byte, untyped bool) (msg, rest []byte, ok bool) {
	head := 5
	if untyped {
		head = 4
	}
	if len(b) < head {
		return nil, b, false
	}
	size := head - 4 + int(binary.BigEndian.Uint32(b[head-4:head]))
	if size < head || len(b) < size {
		return nil, b, false
	}
	return b[:size:size], b[size:], true
}

// readOnlyRefusal is PostgreSQL's ErrorResponse for a write in a read-only
// transaction, then ReadyForQuery in a failed transaction block.
func readOnlyRefusal() []byte {
	var fields []byte
	for _, f := range []struct {
		code  byte
		value string
	}{{'S', "ERROR"}, {'V', "ERROR"}, {'C', "25006"}, {'M', "cannot execute INSERT in a read-only transaction"}} {
		fields = append(fields, f.code)
		fields = append(fields, f.value...)
		fields = append(fields, 0)
	}
	fields = append(fields, 0)
	msg := []byte{'E'}
	msg = binary.BigEndian.AppendUint32(msg, uint32(4+len(fields)))
	msg = append(msg, fields...)
	return append(msg, 'Z', 0, 0, 0, 5, 'E')
}

func (p *refusingProxy) matches(b []byte) bool {
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
