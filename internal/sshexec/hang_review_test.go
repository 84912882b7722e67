package sshexec_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshtest"
)

// stuckServer is a hostile or wedged SSH server: it completes the
// handshake and answers keepalives, then, per mode, never confirms a
// session ("open"), or confirms it and never answers its exec request
// ("noreply"), or accepts the exec request and then never sends anything
// ("exec", which the command timeout does end).
func stuckServer(t *testing.T, mode string) (addr string, knownHostsFile string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
				if err != nil {
					return
				}
				go ssh.DiscardRequests(reqs) // keepalives are answered
				for nch := range chans {
					if mode == "open" {
						continue // never accepted, never rejected
					}
					ch, creqs, err := nch.Accept()
					if err != nil {
						return
					}
					_ = ch
					go func() {
						for r := range creqs {
							if r.WantReply && mode != "noreply" {
								_ = r.Reply(r.Type == "exec" || r.Type == "subsystem", nil)
							}
						}
					}()
					// Nothing is ever written, no exit-status, no close.
				}
			}()
		}
	}()
	addr = ln.Addr().String()
	kh := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, signer.PublicKey())
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return addr, kh
}

// TestReviewCommandTimeoutHoldsAgainstAStuckServer: plugins.ssh's
// command_timeout (and the step's timeout, which only cancels the
// context) must end a command on a server that stops answering, but
// Client.Run waits for the server to confirm the close of the session
// after the timeout, and opens sessions without any bound.
func TestReviewCommandTimeoutHoldsAgainstAStuckServer(t *testing.T) {
	for _, mode := range []string{"exec", "open", "open, step timeout", "noreply", "noreply, step timeout"} {
		t.Run(mode, func(t *testing.T) {
			addr, kh := stuckServer(t, strings.Split(mode, ",")[0])
			host, portText, _ := net.SplitHostPort(addr)
			var port int
			for _, c := range portText {
				port = port*10 + int(c-'0')
			}
			pool := sshexec.NewPool(sshexec.Options{KnownHosts: kh, CommandTimeout: 500 * time.Millisecond})
			t.Cleanup(func() { _ = pool.Close() })
			_, key := sshtest.NewKey(t)
			c, err := pool.Client(t.Context(), sshexec.Endpoint{Host: host, Port: port, User: "deploy"}, sshexec.Auth{PrivateKey: key}, t.Logf)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			defer c.Close()
			done := make(chan error, 1)
			ctx := context.Background()
			if strings.HasSuffix(mode, "step timeout") {
				// The engine's step timeout only cancels the context.
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Second)
				defer cancel()
			}
			go func() {
				_, err := c.Run(ctx, sshexec.Command{Name: "probe", Line: "true"})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("Run: %v, want a timeout", err)
				}
			case <-time.After(4 * time.Second):
				t.Fatalf("Run with command_timeout 500ms has not returned after 4s against a server that stopped answering")
			}
		})
	}
}

// TestReviewUploadHasACommandTimeout: an sftp upload to a server that
// never answers is bounded by nothing but the caller's context.
func TestReviewUploadHasACommandTimeout(t *testing.T) {
	addr, kh := stuckServer(t, "exec")
	host, portText, _ := net.SplitHostPort(addr)
	var port int
	for _, c := range portText {
		port = port*10 + int(c-'0')
	}
	pool := sshexec.NewPool(sshexec.Options{KnownHosts: kh, CommandTimeout: 500 * time.Millisecond})
	t.Cleanup(func() { _ = pool.Close() })
	_, key := sshtest.NewKey(t)
	c, err := pool.Client(t.Context(), sshexec.Endpoint{Host: host, Port: port, User: "deploy"}, sshexec.Auth{PrivateKey: key}, t.Logf)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.Upload(context.Background(), bytes.NewReader([]byte("x")), "f")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Upload to a server that never answers succeeded")
		}
	case <-time.After(4 * time.Second):
		t.Fatalf("Upload with command_timeout 500ms has not returned after 4s against a server that never answers")
	}
}
