package sshcommand

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshfleet"
)

// fleetUsers are the logins of the OpenSSH tests, the same as the other
// fleets' so that no test adds accounts of its own to the machine.
var fleetUsers = []string{"manent-e2e-a", "manent-e2e-b"}

// openSSH is a host on OpenSSH's sshd (internal/sshfleet), as one of its
// logins, which is not root.
type openSSH struct {
	fleet *sshfleet.Fleet
	pool  *sshexec.Pool
	key   []byte
	// scratch and secretsDir are shared by the logins.
	scratch, secretsDir string
}

func newOpenSSH(t *testing.T) *openSSH {
	t.Helper()
	sshfleet.Require(t)
	dir := tempDir(t, "", "manent-sshcommand-fleet-")
	fl, err := sshfleet.Start(sshfleet.Config{Dir: dir, Users: fleetUsers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.Stop() })
	key, err := os.ReadFile(fl.DeployKey())
	if err != nil {
		t.Fatal(err)
	}
	pool := sshexec.NewPool(sshexec.Options{KnownHosts: fl.KnownHosts()})
	t.Cleanup(func() { _ = pool.Close() })
	// The secrets live in memory, as with the default secrets_dir, in a
	// directory of this test's that every login may write to, as
	// /dev/shm.
	shm := tempDir(t, "/dev/shm", "manent-sshcommand-")
	if err := os.Chmod(shm, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return &openSSH{fleet: fl, pool: pool, key: key, scratch: tempDir(t, "", "manent-sshcommand-"),
		secretsDir: filepath.Join(shm, "manent")}
}

// tempDir is a directory every login can reach, removed after the test.
func tempDir(t *testing.T, parent, pattern string) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// as is the host of one of the fleet's logins.
func (o *openSSH) as(i int) *host {
	u := o.fleet.Users[i]
	return &host{
		client: func(t *testing.T) *sshexec.Client {
			t.Helper()
			c, err := Connect(t.Context(), o.pool, deploy.Target{Host: "127.0.0.1", Port: o.fleet.Port, User: "root"},
				&deploy.CustomSSH{User: u.Name, KeySecret: "ssh-migrate"},
				func(context.Context, string) (string, error) { return string(o.key), nil }, t.Logf)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			t.Cleanup(c.Close)
			return c
		},
		scratch: o.scratch, secretsDir: o.secretsDir, uid: u.UID, home: u.Home,
		// The fleet records the first 500 bytes of each command line.
		commands: func() []string {
			cmds, err := o.fleet.Commands(u.Name)
			if err != nil {
				return nil
			}
			return cmds
		},
	}
}

// TestOpenSSH runs the suite on a real sshd, as a login that is not root,
// then the runs of two logins on one host.
func TestOpenSSH(t *testing.T) {
	o := newOpenSSH(t)
	suite(t, o.as(0))
	t.Run("two logins one after the other", func(t *testing.T) {
		a, b := o.as(0), o.as(1)
		p := a.place(t)
		prog := p.program("step", "exit 0")
		first := a.request(t, prog)
		if _, err := Run(t.Context(), first); err != nil {
			t.Fatalf("the first login's run: %v", err)
		}
		second := b.request(t, prog)
		second.DeploymentID, second.Step = first.DeploymentID, "cache-warm"
		if _, err := Run(t.Context(), second); err != nil {
			t.Fatalf("the second login's run after the first's: %v", err)
		}
	})
	t.Run("two logins at once, in a secrets_dir of the first's", func(t *testing.T) {
		a, b := o.as(0), o.as(1)
		p := a.place(t)
		fifo := p.fifo("fifo")
		first := a.request(t, p.program("first", blockOn(fifo)))
		done, _ := runUntilReady(t, first)
		second := b.request(t, p.program("second", "exit 0"))
		_, err := Run(t.Context(), second)
		release(t, fifo)
		want := o.secretsDir + " belongs to another user (uid " + fmt.Sprint(o.fleet.Users[0].UID) + ")"
		if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "make secrets_dir root's, mode 1777") {
			t.Errorf("the second login's run: %v, want a permanent refusal that says %q and what to do", err, want)
		}
		if err := <-done; err != nil {
			t.Errorf("the first login's run: %v", err)
		}
	})
	t.Run("two logins at once, in a secrets_dir of root's", func(t *testing.T) {
		shared := filepath.Join(filepath.Dir(o.secretsDir), "roots")
		if err := os.Mkdir(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
			t.Fatal(err)
		}
		a, b := o.as(0), o.as(1)
		a.secretsDir, b.secretsDir = shared, shared
		p := a.place(t)
		fifo := p.fifo("fifo")
		first := a.request(t, p.program("first", `printf '%s' "$MANENT_SECRETS_DIR/db-admin" >"$here/secret-path"
`+blockOn(fifo)))
		first.Secrets = map[string]string{"db-admin": "hunter2"}
		done, _ := runUntilReady(t, first)
		// The second is another step of the same deploy: the deploy's
		// directory is the first login's, and refused (see above); a step
		// of another deploy shares secrets_dir only.
		second := b.request(t, p.program("second", `if cat "$(cat "$here/secret-path")" >"$here/stolen" 2>/dev/null; then
	echo read >"$here/verdict"
else
	echo refused >"$here/verdict"
fi`))
		_, err := Run(t.Context(), second)
		release(t, fifo)
		if err != nil {
			t.Errorf("the second login's run beside the first's: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("the first login's run: %v", err)
		}
		if v := strings.TrimSpace(p.read("verdict")); v != "refused" {
			t.Errorf("the second login could read the first's secret (%q: %q)", v, p.read("stolen"))
		}
		entries, err := os.ReadDir(shared)
		if err != nil || len(entries) != 0 {
			t.Errorf("root's secrets_dir holds %v after both runs (%v), want it there and empty", entries, err)
		}
	})
}

// runUntilReady starts req, whose command says "ready" and blocks, and
// returns once it is ready; done gives Run's error.
func runUntilReady(t *testing.T, req Request) (<-chan error, *sink) {
	t.Helper()
	out := newSink("ready")
	req.Stdout = out
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), req)
		done <- err
	}()
	await(t, out.seen("ready"), done)
	return done, out
}
