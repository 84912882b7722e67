package engine_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
	"manent.dev/manent/internal/pgtest"
)

// TestLogBatchCutAfterCommit: the connection that carries a batch of log
// lines is cut after PostgreSQL committed the batch and before its answer
// reached the worker, as when the server restarts or the network fails at
// that moment. The worker cannot tell that from a batch never written and
// sends it again; the lines are stored once, numbered without a gap.
func TestLogBatchCutAfterCommit(t *testing.T) {
	const marker = "line-cut-after-its-commit"
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cut := newCuttingProxy(t, u.Host, []byte(marker))
	u.Host = cut.addr
	q := u.Query()
	q.Set("sslmode", "disable") // the proxy reads the protocol's messages
	u.RawQuery = q.Encode()

	e := newEnvWith(t, envOptions{url: u.String()})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID != "cut" {
			return nil
		}
		req.Log("before")
		req.Log(marker)
		// The step goes on once the batch was cut: the deploy's outcome,
		// which takes the lines not yet written into its own transaction,
		// then waits for the batch sent again.
		select {
		case <-cut.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.submit("cut", "app", "staging")
	e.waitState("cut", deploy.StateSuccess)
	select {
	case <-cut.done:
	default:
		t.Fatal("no batch of log lines was cut")
	}
	lines, err := e.store.Logs(e.ctx, "cut", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, l := range lines {
		if l.Message == marker {
			n++
		}
		if l.Seq != int64(i+1) {
			t.Errorf("line %d has seq %d, want %d", i, l.Seq, i+1)
		}
	}
	if n != 1 {
		t.Errorf("the line of the cut batch is stored %d times, want once", n)
	}
}

// cuttingProxy forwards TCP connections to PostgreSQL and, once, cuts the
// connection whose client sends a message holding mark (a statement's
// parameters are sent as they are): the message reaches the server, the
// server's answers up to its next ReadyForQuery (by then an implicit
// transaction is committed) are dropped, and both sides are closed.
type cuttingProxy struct {
	addr  string
	mark  []byte
	done  chan struct{}
	fired atomic.Bool
}

func newCuttingProxy(t *testing.T, target string, mark []byte) *cuttingProxy {
	t.Helper()
	p := &cuttingProxy{mark: mark, done: make(chan struct{})}
	p.addr = engine.ProxyTo(t, target, func(client, server net.Conn) {
		c := &cutConn{client: client, server: server}
		go c.up(p)
		go c.down(p)
	})
	return p
}

// cutConn is one proxied connection; armed is set once the marked
// message went to the server.
type cutConn struct {
	client, server net.Conn
	armed          atomic.Bool
	closeOnce      sync.Once
}

func (c *cutConn) close() {
	c.closeOnce.Do(func() { _ = c.client.Close(); _ = c.server.Close() })
}

// up copies the client's messages to the server, whole, arming the cut
// before the marked one leaves.
func (c *cutConn) up(p *cuttingProxy) {
	defer c.close()
	buf := make([]byte, 64<<10)
	var in []byte
	untyped := true
	for {
		n, err := c.client.Read(buf)
		in = append(in, buf[:n]...)
		for {
			msg, rest, ok := nextMessage(in, untyped)
			if !ok {
				break
			}
			in = rest
			if untyped {
				untyped = len(msg) == 8 // an SSL request, then the startup message
			} else if bytes.Contains(msg, p.mark) && p.fired.CompareAndSwap(false, true) {
				c.armed.Store(true)
			}
			if _, werr := c.server.Write(msg); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// down copies the server's messages to the client until the cut: once
// armed, they are dropped up to a ReadyForQuery, and the connection ends.
func (c *cutConn) down(p *cuttingProxy) {
	defer c.close()
	buf := make([]byte, 64<<10)
	var in []byte
	for {
		n, err := c.server.Read(buf)
		in = append(in, buf[:n]...)
		for {
			msg, rest, ok := nextMessage(in, false)
			if !ok {
				break
			}
			in = rest
			if c.armed.Load() {
				if msg[0] == 'Z' {
					close(p.done)
					return
				}
				continue
			}
			if _, werr := c.client.Write(msg); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
