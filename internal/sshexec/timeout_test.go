package sshexec_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshtest"
)

// rawServer is an SSH server on a loopback port, with a known_hosts file
// that lists it, whose connections serve hands over once the handshake
// is done.
func rawServer(t *testing.T, cfg *ssh.ServerConfig, serve func(chans <-chan ssh.NewChannel)) (ep sshexec.Endpoint, knownHostsFile string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
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
			t.Cleanup(func() { _ = nc.Close() })
			go func() {
				_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
				if err != nil {
					return
				}
				go ssh.DiscardRequests(reqs) // keepalives are answered
				serve(chans)
			}()
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(addr.String())}, signer.PublicKey())
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return sshexec.Endpoint{Host: addr.IP.String(), Port: addr.Port, User: "deploy"}, kh
}

// stuckServer is a hostile or wedged SSH server: it completes the
// handshake and answers keepalives, then, per mode, never confirms a
// session ("open"), or confirms it and never answers its exec request
// ("noreply"), or accepts the exec request and then never sends anything
// ("exec"), not even the confirmation of the session's close.
func stuckServer(t *testing.T, mode string) (sshexec.Endpoint, string) {
	return rawServer(t, &ssh.ServerConfig{NoClientAuth: true}, func(chans <-chan ssh.NewChannel) {
		for nch := range chans {
			if mode == "open" {
				continue // never accepted, never rejected
			}
			_, creqs, err := nch.Accept()
			if err != nil {
				return
			}
			go func() {
				for r := range creqs {
					if r.WantReply && mode != "noreply" {
						_ = r.Reply(r.Type == "exec" || r.Type == "subsystem", nil)
					}
				}
			}()
			// Nothing is ever written, no exit-status, no close.
		}
	})
}

// plugins.ssh's command_timeout, the step's timeout (which only ends the
// context) and a cancel each end a command on a server that stops
// answering, wherever it stops: at the session's open, at the exec
// request, or after it.
func TestCommandTimeoutHoldsAgainstAStuckServer(t *testing.T) {
	const timeout = 500 * time.Millisecond
	tests := []struct {
		server   string
		commandT time.Duration
		bound    string // "step timeout", "cancel" or "" (the command timeout)
		want     string
	}{
		{server: "exec", commandT: timeout, want: `command "probe" timed out after 500ms (plugins.ssh.command_timeout)`},
		{server: "open", commandT: timeout, want: `command "probe" timed out after 500ms (plugins.ssh.command_timeout)`},
		{server: "noreply", commandT: timeout, want: `command "probe" timed out after 500ms (plugins.ssh.command_timeout)`},
		{server: "exec", bound: "step timeout", want: `command "probe" timed out: context deadline exceeded`},
		{server: "open", bound: "step timeout", want: `command "probe" timed out: context deadline exceeded`},
		{server: "noreply", bound: "step timeout", want: `command "probe" timed out: context deadline exceeded`},
		{server: "open", bound: "cancel", want: `command "probe" cancelled: context canceled`},
		{server: "noreply", bound: "cancel", want: `command "probe" cancelled: context canceled`},
	}
	for _, tt := range tests {
		t.Run(tt.server+" "+tt.bound, func(t *testing.T) {
			ep, kh := stuckServer(t, tt.server)
			pool := sshexec.NewPool(sshexec.Options{KnownHosts: kh, CommandTimeout: tt.commandT})
			t.Cleanup(func() { _ = pool.Close() })
			_, key := sshtest.NewKey(t)
			c, err := pool.Client(t.Context(), ep, sshexec.Auth{PrivateKey: key}, t.Logf)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			switch tt.bound {
			case "step timeout":
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			case "cancel":
				time.AfterFunc(timeout, cancel)
			}
			done := make(chan error, 1)
			go func() {
				_, err := c.Run(ctx, sshexec.Command{Name: "probe", Line: "true"})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || deploy.IsPermanent(err) || err.Error() != tt.want {
					t.Errorf("Run: %v, want the temporary error %q", err, tt.want)
				}
			case <-time.After(4 * time.Second):
				t.Fatalf("Run bounded by 500ms has not returned after 4s against a server that stopped answering")
			}
		})
	}
}

// The command timeout bounds an upload too, through sftp or stdin, on a
// server that accepts it and then never answers.
func TestUploadIsBoundedByTheCommandTimeout(t *testing.T) {
	for _, mode := range []string{"exec", "open", "noreply"} {
		t.Run(mode, func(t *testing.T) {
			ep, kh := stuckServer(t, mode)
			pool := sshexec.NewPool(sshexec.Options{KnownHosts: kh, CommandTimeout: 500 * time.Millisecond})
			t.Cleanup(func() { _ = pool.Close() })
			_, key := sshtest.NewKey(t)
			c, err := pool.Client(t.Context(), ep, sshexec.Auth{PrivateKey: key}, t.Logf)
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
				want := `command "upload" timed out after 500ms (plugins.ssh.command_timeout)`
				if err == nil || deploy.IsPermanent(err) || err.Error() != want {
					t.Errorf("Upload: %v, want the temporary error %q", err, want)
				}
			case <-time.After(4 * time.Second):
				t.Fatalf("Upload with command_timeout 500ms has not returned after 4s against a server that never answers")
			}
		})
	}
}
