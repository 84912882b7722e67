//go:build unix

package main

import (
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"manent.dev/manent/internal/devoidc"
)

// lockProbe is a transport that, at the revocation of a logout, tries
// the login's lock without waiting: logout must hold it then.
type lockProbe struct {
	lockPath string
	probed   bool
	held     bool
}

func (p *lockProbe) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "revo") {
		p.probed = true
		f, err := os.OpenFile(p.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err == nil {
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == syscall.EWOULDBLOCK {
				p.held = true
			} else if err == nil {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
			_ = f.Close()
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestLogoutHoldsTheLoginLock: logout revokes and removes the login under
// its lock, as a refresh does, so that a command refreshing at the same
// time cannot store new tokens after logout.
func TestLogoutHoldsTheLoginLock(t *testing.T) {
	idp, err := devoidc.Start(devoidc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close() })
	srv := startManent(t, idp.Issuer())
	l := newLoginRun(t, srv)
	l.onWait = approver(t, idp, "alice", true)
	if r := l.run("login"); r.code != 0 {
		t.Fatalf("login: exit %d\n%s", r.code, r.stderr)
	}
	probe := &lockProbe{lockPath: strings.TrimSuffix(l.file(), ".json") + ".lock"}
	l.http = &http.Client{Transport: probe}
	if r := l.run("logout"); r.code != 0 || !strings.Contains(r.stderr, "Signed out of "+srv) {
		t.Fatalf("logout: exit %d\n%s", r.code, r.stderr)
	}
	if !probe.probed || !probe.held {
		t.Fatalf("revocation seen %v, lock held during it %v", probe.probed, probe.held)
	}
}
