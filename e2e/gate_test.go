package e2e

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// A gate is a TCP relay on loopback in front of an address. Armed, it holds
// every connection whose client sent more than a threshold: what the
// client sends next goes nowhere, as over a link that stalled, and held
// says so. Only a file transfer sends that much, so a held connection is
// one in the middle of an upload, held there for as long as the test
// needs, instead of a race against a transfer that takes milliseconds.
type gate struct {
	t         *testing.T
	ln        net.Listener
	upstream  string
	threshold int64
	// held receives once per connection held.
	held chan struct{}

	mu    sync.Mutex
	armed bool
	// release is closed by open: the held connections end.
	release chan struct{}
	conns   []net.Conn
}

func newGate(t *testing.T, upstream string, threshold int64) *gate {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{t: t, ln: ln, upstream: upstream, threshold: threshold, held: make(chan struct{}, 64), release: make(chan struct{})}
	go g.serve()
	t.Cleanup(g.close)
	return g
}

func (g *gate) port() int { return g.ln.Addr().(*net.TCPAddr).Port }

// arm holds, from now on, every connection past the threshold.
func (g *gate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = true
}

// open ends the connections held and relays every connection in full
// from now on.
func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed {
		g.armed = false
		close(g.release)
	}
}

func (g *gate) isArmed() (bool, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.armed, g.release
}

func (g *gate) serve() {
	for {
		c, err := g.ln.Accept()
		if err != nil {
			return // closed at the end of the test
		}
		u, err := net.Dial("tcp", g.upstream)
		if err != nil {
			_ = c.Close() // as a host that is down: the client sees it
			continue
		}
		g.mu.Lock()
		g.conns = append(g.conns, c, u)
		g.mu.Unlock()
		go func() {
			_, _ = io.Copy(c, u) // ends when either side closes
			_ = c.Close()
		}()
		go g.relay(c, u)
	}
}

// relay copies what the client sends upstream until the gate holds it.
func (g *gate) relay(c, u net.Conn) {
	defer func() { _ = u.Close() }() // the other direction then ends too
	buf := make([]byte, 32<<10)
	var sent int64
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if armed, release := g.isArmed(); armed && sent+int64(n) > g.threshold {
				g.held <- struct{}{}
				<-release
				_ = c.Close() // its client is gone, or will be told so
				return
			}
			if _, werr := u.Write(buf[:n]); werr != nil {
				return
			}
			sent += int64(n)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				_ = c.Close() // already broken
			}
			return
		}
	}
}

func (g *gate) close() {
	_ = g.ln.Close() // ends serve
	g.open()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		_ = c.Close() // the test is over
	}
}
