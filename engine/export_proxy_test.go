package engine

import (
	"net"
	"testing"
)

// ProxyTo listens on a loopback port of its own, the address it returns,
// until the test ends, and hands serve each connection accepted with its
// connection to target (for the tests of both packages that stand between
// the engine and PostgreSQL).
func ProxyTo(t *testing.T, target string, serve func(client, server net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			serve(client, server)
		}
	}()
	return ln.Addr().String()
}
