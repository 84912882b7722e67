package sshexec_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshtest"
)

// fixture is a server with one user who logs in with a key, and a pool
// that trusts the server's key.
type fixture struct {
	srv  *sshtest.Server
	user *sshtest.User
	auth sshexec.Auth
	opts sshexec.Options
	pool *sshexec.Pool
}

func newFixture(t *testing.T, tune func(*sshexec.Options)) *fixture {
	t.Helper()
	srv := sshtest.Start(t)
	f := &fixture{srv: srv}
	f.user, f.auth = addUser(t, srv, "deploy")
	f.opts = sshexec.Options{KnownHosts: filepath.Join(t.TempDir(), "known_hosts")}
	srv.WriteKnownHosts(f.opts.KnownHosts)
	if tune != nil {
		tune(&f.opts)
	}
	f.pool = sshexec.NewPool(f.opts)
	t.Cleanup(func() { _ = f.pool.Close() })
	return f
}

func addUser(t *testing.T, srv *sshtest.Server, name string) (*sshtest.User, sshexec.Auth) {
	t.Helper()
	u := srv.AddUser(name)
	pub, key := sshtest.NewKey(t)
	srv.AuthorizeKey(u, pub)
	return u, sshexec.Auth{PrivateKey: key}
}

func (f *fixture) endpoint(u *sshtest.User) sshexec.Endpoint {
	return sshexec.Endpoint{Host: f.srv.Host(), Port: f.srv.Port(), User: u.Name}
}

func (f *fixture) client(t *testing.T) *sshexec.Client {
	t.Helper()
	c, err := f.pool.Client(t.Context(), f.endpoint(f.user), f.auth, t.Logf)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// lines collects what a command streams.
type lines struct {
	mu  sync.Mutex
	got []string
}

func (l *lines) add(s sshexec.Stream, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, string(s)+": "+line)
}

func (l *lines) of(s sshexec.Stream) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, g := range l.got {
		if v, ok := strings.CutPrefix(g, string(s)+": "); ok {
			out = append(out, v)
		}
	}
	return out
}

func TestRunStreamsLinesUnderTheCaps(t *testing.T) {
	f := newFixture(t, nil)
	c := f.client(t)
	long := strings.Repeat("x", sshexec.MaxLine+100)
	tests := []struct {
		name       string
		line       string
		stdout     []string
		stderr     []string
		truncated  bool
		lastStderr string
	}{{
		name:   "lines of both streams, in the order of each",
		line:   `echo one; echo two >&2; printf 'three\nfour'`,
		stdout: []string{"one", "three", "four"},
		stderr: []string{"two"},
	}, {
		name:   "a line over the limit is cut, the next is whole",
		line:   fmt.Sprintf(`printf '%%s\nnext\n' %s`, long),
		stdout: []string{strings.Repeat("x", sshexec.MaxLine) + fmt.Sprintf(" [line cut at %d bytes]", sshexec.MaxLine), "next"},
	}, {
		name:       "a run over the limit is cut, and says so",
		line:       `i=0; while [ $i -lt 2100 ]; do printf '%0511d\n' $i; i=$((i+1)); done`,
		truncated:  true,
		lastStderr: fmt.Sprintf("[output cut: more than %d bytes]", sshexec.MaxOutput),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l lines
			res, err := c.Run(t.Context(), sshexec.Command{Name: "test", Line: tt.line, Output: l.add})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if res.Truncated != tt.truncated {
				t.Errorf("truncated %v, want %v", res.Truncated, tt.truncated)
			}
			if tt.truncated {
				out := l.of(sshexec.Stdout)
				total := 0
				for _, o := range out {
					total += len(o)
				}
				if total > sshexec.MaxOutput || total < sshexec.MaxOutput-512 {
					t.Errorf("streamed %d bytes of output, want just under %d", total, sshexec.MaxOutput)
				}
				if errs := l.of(sshexec.Stderr); len(errs) != 1 || errs[0] != tt.lastStderr {
					t.Errorf("stderr %q, want %q", errs, tt.lastStderr)
				}
				return
			}
			if got := l.of(sshexec.Stdout); !equal(got, tt.stdout) {
				t.Errorf("stdout %q, want %q", got, tt.stdout)
			}
			if got := l.of(sshexec.Stderr); !equal(got, tt.stderr) {
				t.Errorf("stderr %q, want %q", got, tt.stderr)
			}
		})
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n") && len(a) == len(b)
}

func TestRunReportsTheExitCode(t *testing.T) {
	f := newFixture(t, nil)
	c := f.client(t)
	_, err := c.Run(t.Context(), sshexec.Command{Name: "fail on purpose", Line: `echo "no space left" >&2; exit 3`})
	var ee *sshexec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("run: %v, want an *ExitError", err)
	}
	// The caller names the target: the error does not repeat the address.
	want := `command "fail on purpose" exited with status 3: no space left`
	if ee.Code != 3 || err.Error() != want || ee.Host != f.endpoint(f.user).Addr() {
		t.Errorf("got %d %q, want 3 %q", ee.Code, err.Error(), want)
	}
}

func TestCommandTimeoutIsTemporary(t *testing.T) {
	f := newFixture(t, func(o *sshexec.Options) { o.CommandTimeout = 300 * time.Millisecond })
	c := f.client(t)
	_, err := c.Run(t.Context(), sshexec.Command{Name: "sleep", Line: "sleep 30"})
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), `command "sleep" timed out`) {
		t.Fatalf("run: %v, want a temporary timeout", err)
	}
	// The connection is still good for the next command.
	if _, err := c.Run(t.Context(), sshexec.Command{Name: "true", Line: "true"}); err != nil {
		t.Fatalf("run after a timeout: %v", err)
	}
}

func TestHostKeysAreChecked(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, f *fixture)
		want    string
	}{{
		name:    "unknown host",
		prepare: func(t *testing.T, f *fixture) { writeFile(t, f.opts.KnownHosts, "") },
		want:    "is not in known_hosts",
	}, {
		name:    "changed key",
		prepare: func(_ *testing.T, f *fixture) { f.srv.ChangeHostKey() },
		want:    "has changed",
	}, {
		name:    "no known_hosts file",
		prepare: func(t *testing.T, f *fixture) { _ = os.Remove(f.opts.KnownHosts) },
		want:    "does not exist",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			tt.prepare(t, f)
			_, err := f.pool.Client(t.Context(), f.endpoint(f.user), f.auth, t.Logf)
			if !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("client: %v, want a permanent error saying %q", err, tt.want)
			}
			if tt.name != "no known_hosts file" {
				fp := strings.TrimPrefix(fingerprint(f), "SHA256:")
				if !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), f.endpoint(f.user).Addr()) {
					t.Errorf("%q does not name the host and the offered key %s", err, fp)
				}
			}
			if n, s := f.srv.Execs(), f.srv.Sessions(); n != 0 || s != 0 {
				t.Errorf("the server saw %d exec requests and %d sessions, want none", n, s)
			}
		})
	}
}

func fingerprint(f *fixture) string {
	return sshFingerprint(f.srv)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every lease warns, a reused connection's too: each step that works on
// an unchecked connection says so in its own log.
func TestInsecureIgnoreHostKeyWarnsOnEveryLease(t *testing.T) {
	f := newFixture(t, func(o *sshexec.Options) { o.InsecureIgnoreHostKey = true; o.KnownHosts = "" })
	f.srv.ChangeHostKey()
	for step := range 2 {
		var warned []string
		c, err := f.pool.Client(t.Context(), f.endpoint(f.user), f.auth, func(format string, args ...any) {
			warned = append(warned, fmt.Sprintf(format, args...))
		})
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		if _, err := c.Run(t.Context(), sshexec.Command{Name: "true", Line: "true"}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if len(warned) != 1 || !strings.Contains(warned[0], "is not checked") {
			t.Errorf("lease %d: warnings %q, want one saying the key is not checked", step+1, warned)
		}
	}
	if n := f.srv.Connections(); n != 1 {
		t.Errorf("%d connections, want 1 reused by the second lease", n)
	}
}

func TestLoginRefusedIsPermanent(t *testing.T) {
	f := newFixture(t, nil)
	_, other := sshtest.NewKey(t)
	_, err := f.pool.Client(t.Context(), f.endpoint(f.user), sshexec.Auth{PrivateKey: other}, t.Logf)
	if !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "refused the login of deploy") {
		t.Fatalf("client: %v, want a permanent refusal", err)
	}
	_, err = f.pool.Client(t.Context(), f.endpoint(f.user), sshexec.Auth{PrivateKey: []byte("not a key")}, t.Logf)
	if !deploy.IsPermanent(err) || strings.Contains(err.Error(), "not a key") {
		t.Fatalf("client with a bad key: %v, want a permanent error that does not quote the key", err)
	}
}

func TestPasswordLogin(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.SetPassword(f.user, "s3cret pass")
	c, err := f.pool.Client(t.Context(), f.endpoint(f.user), sshexec.Auth{Password: "s3cret pass"}, t.Logf)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	defer c.Close()
	var l lines
	if _, err := c.Run(t.Context(), sshexec.Command{Name: "whoami", Line: `echo "$USER"`, Output: l.add}); err != nil {
		t.Fatal(err)
	}
	if got := l.of(sshexec.Stdout); !equal(got, []string{"deploy"}) {
		t.Errorf("ran as %q", got)
	}
}

func TestUpload(t *testing.T) {
	content := bytes.Repeat([]byte("manent\x00\xff"), 100_000)
	for _, sftp := range []bool{true, false} {
		t.Run(fmt.Sprintf("sftp %v", sftp), func(t *testing.T) {
			f := newFixture(t, nil)
			if !sftp {
				f.srv.DisableSFTP()
			}
			c := f.client(t)
			method, err := c.Upload(t.Context(), bytes.NewReader(content), "it's here.bin")
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			want := map[bool]string{true: "sftp", false: "stdin"}[sftp]
			if method != want {
				t.Errorf("uploaded through %s, want %s", method, want)
			}
			got, err := os.ReadFile(f.user.Path("it's here.bin"))
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("the file on the host: %d bytes, %v; want %d bytes", len(got), err, len(content))
			}
		})
	}
}

func TestConnectionsAreReusedAndADroppedOneReplaced(t *testing.T) {
	f := newFixture(t, nil)
	c := f.client(t)
	for range 3 {
		if _, err := c.Run(t.Context(), sshexec.Command{Name: "true", Line: "true"}); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	c = f.client(t)
	if _, err := c.Run(t.Context(), sshexec.Command{Name: "true", Line: "true"}); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Connections(); n != 1 {
		t.Errorf("%d connections for four commands, want 1", n)
	}
	// Dropped mid-command: a temporary error; the next command of the
	// same lease gets a new connection.
	var once sync.Once
	f.srv.OnExec(func(_, _ string) bool {
		drop := false
		once.Do(func() { drop = true })
		return drop
	})
	_, err := c.Run(t.Context(), sshexec.Command{Name: "dropped", Line: "true"})
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "connection was lost") {
		t.Fatalf("run on a dropped connection: %v, want a temporary error", err)
	}
	c.Close()
	c = f.client(t)
	if _, err := c.Run(t.Context(), sshexec.Command{Name: "after", Line: "true"}); err != nil {
		t.Fatalf("run after the drop: %v", err)
	}
	// Dropped while idle in the pool: replaced without an error.
	c.Close()
	f.srv.DropConnections()
	c = f.client(t)
	if _, err := c.Run(t.Context(), sshexec.Command{Name: "after idle drop", Line: "true"}); err != nil {
		t.Fatalf("run after an idle drop: %v", err)
	}
}

func TestSessionsPerHostAreCapped(t *testing.T) {
	const limit, users, runs = 2, 3, 4
	f := newFixture(t, func(o *sshexec.Options) { o.MaxSessionsPerHost = limit })
	release := make(chan struct{})
	f.srv.OnExec(func(_, _ string) bool { <-release; return false })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, users*runs)
	for i := range users {
		u, auth := f.user, f.auth
		if i > 0 {
			u, auth = addUser(t, f.srv, fmt.Sprintf("user%d", i))
		}
		for range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := f.pool.Client(ctx, f.endpoint(u), auth, t.Logf)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				_, err = c.Run(ctx, sshexec.Command{Name: "held", Line: "true"})
				errs <- err
			}()
		}
	}
	for {
		open, changed := f.srv.OpenSessions()
		if open >= limit {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("only %d sessions opened", open)
		}
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if peak := f.srv.PeakSessions(); peak != limit {
		t.Errorf("at most %d sessions were open at once, want %d", peak, limit)
	}
	if n := f.srv.Execs(); n != users*runs {
		t.Errorf("%d commands ran, want %d", n, users*runs)
	}
}

func TestQuote(t *testing.T) {
	f := newFixture(t, nil)
	c := f.client(t)
	for _, s := range []string{"", "plain", "it's", `a "b" $HOME $(id) ` + "`id`", `back\slash`, "semi;colon && rm -rf /", "'", "''", "-n"} {
		var l lines
		if _, err := c.Run(t.Context(), sshexec.Command{Name: "quote", Line: "printf '%s\\n' " + sshexec.Quote(s), Output: l.add}); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := l.of(sshexec.Stdout); len(got) != 1 || got[0] != s {
			t.Errorf("the shell read %q as %q", s, got)
		}
	}
}
