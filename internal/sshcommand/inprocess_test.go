package sshcommand

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
	"manent.dev/manent/internal/sshtest"
)

// inProcess is a host on the in-process server of sshtest, whose commands
// run as the test's user; sftp can be turned off, and PATH set.
type inProcess struct {
	*host
	srv  *sshtest.Server
	pool *sshexec.Pool
}

func newInProcess(t *testing.T) *inProcess {
	t.Helper()
	srv := sshtest.Start(t)
	u := srv.AddUser("deploy")
	pub, key := sshtest.NewKey(t)
	srv.AuthorizeKey(u, pub)
	known := filepath.Join(t.TempDir(), "known_hosts")
	srv.WriteKnownHosts(known)
	pool := sshexec.NewPool(sshexec.Options{KnownHosts: known})
	t.Cleanup(func() { _ = pool.Close() })
	var mu sync.Mutex
	var cmds []string
	srv.OnExec(func(_, command string) bool {
		mu.Lock()
		defer mu.Unlock()
		cmds = append(cmds, command)
		return false
	})
	ip := &inProcess{srv: srv, pool: pool}
	ip.host = &host{
		client: func(t *testing.T) *sshexec.Client {
			t.Helper()
			c, err := Connect(t.Context(), pool, deploy.Target{Host: srv.Host(), Port: srv.Port(), User: "someone-else"},
				&deploy.CustomSSH{User: u.Name, KeySecret: "ssh-migrate"},
				func(_ context.Context, name string) (string, error) { return string(key), nil }, t.Logf)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			t.Cleanup(c.Close)
			return c
		},
		scratch:    t.TempDir(),
		secretsDir: filepath.Join(t.TempDir(), "manent"),
		signals:    true,
		uid:        os.Getuid(),
		home:       u.Home,
		commands: func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), cmds...)
		},
	}
	return ip
}

func TestInProcess(t *testing.T) {
	suite(t, newInProcess(t).host)
}

// Without sftp, the files go through the standard input of cat, into the
// files the prepare script made 0600.
func TestInProcessWithoutSFTP(t *testing.T) {
	ip := newInProcess(t)
	ip.srv.DisableSFTP()
	testDirectoryAndContract(t, ip.host)
}

// pathWith is a PATH of a directory that holds only tools.
func pathWith(t *testing.T, tools ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range tools {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The tools the scripts need on every target, and a test program's touch.
var baseTools = []string{"id", "ls", "mkdir", "rm", "rmdir", "wc", "od", "dirname", "touch", "sleep"}

func TestToolsOfTheTarget(t *testing.T) {
	ip := newInProcess(t)
	p := ip.place(t)
	prog := p.program("tool", `touch "$here/ran"`)
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	tests := []struct {
		name  string
		tools []string
		want  string // "" when the run succeeds
		log   string
	}{
		{name: "shasum where sha256sum is missing", tools: []string{"shasum", "timeout"}},
		{name: "neither sha256sum nor shasum", tools: []string{"timeout"},
			want: "neither sha256sum nor shasum is installed: run.sha256 cannot be checked"},
		{name: "no timeout(1): the run goes on, and the log says what that means", tools: []string{"sha256sum"},
			log: "timeout(1) is not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip.srv.SetPath(pathWith(t, append(slices.Clone(baseTools), tt.tools...)...))
			t.Cleanup(func() { ip.srv.SetPath("") })
			_ = os.Remove(filepath.Join(p.dir, "ran"))
			req := ip.request(t, prog)
			req.SHA256 = hex.EncodeToString(sum[:])
			var logged []string
			req.Log = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
			_, err := Run(t.Context(), req)
			if tt.want != "" {
				if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("run: %v, want a permanent error that says %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if !exists(t, filepath.Join(p.dir, "ran")) {
				t.Error("the program did not run")
			}
			if tt.log != "" && !strings.Contains(strings.Join(logged, "\n"), tt.log) {
				t.Errorf("log %q, want it to say %q", logged, tt.log)
			}
		})
	}
}

// Without timeout(1) on the target, the step's timeout still ends the
// run, as a temporary error that says the command may go on there.
func TestTimeoutWithoutTimeoutOnTheTarget(t *testing.T) {
	ip := newInProcess(t)
	ip.srv.SetPath(pathWith(t, baseTools...))
	p := ip.place(t)
	req := ip.request(t, p.program("slow", "exec sleep 600"))
	req.Timeout = time.Second
	_, err := Run(t.Context(), req)
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "timed out after 1s") ||
		!strings.Contains(err.Error(), "no timeout(1) there: it may still be running") {
		t.Fatalf("run: %v, want a temporary timeout that says the command may still run", err)
	}
	if exists(t, stepDir(req)) {
		t.Errorf("%s is still there after the timeout", stepDir(req))
	}
}

// A deadline of the caller's that comes before the step's timeout
// shortens the command's, so that the outputs are read and the directory
// removed before the caller gives up.
func TestCallersDeadlineShortensTheTimeout(t *testing.T) {
	ip := newInProcess(t)
	p := ip.place(t)
	req := ip.request(t, p.program("slow", "exec sleep 600"))
	req.Timeout = time.Hour
	ctx, cancel := context.WithTimeout(t.Context(), killAfter+reportSlack+3*time.Second)
	defer cancel()
	_, err := Run(ctx, req)
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "timeout(1) stopped it") {
		t.Fatalf("run: %v, want timeout(1) to have stopped the command", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the run ended after the caller's deadline")
	}
	if exists(t, stepDir(req)) {
		t.Errorf("%s is still there after the timeout", stepDir(req))
	}
}

func TestConnectionLostIsTemporary(t *testing.T) {
	ip := newInProcess(t)
	p := ip.place(t)
	fifo := p.fifo("fifo")
	req := ip.request(t, p.program("step", blockOn(fifo)))
	out := newSink("ready")
	req.Stdout = out
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), req)
		done <- err
	}()
	await(t, out.seen("ready"), done)
	ip.srv.DropConnections()
	if err := <-done; err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "connection was lost") {
		t.Fatalf("run: %v, want a temporary error that says the connection was lost", err)
	}
}

// A request that breaks the contract is refused before anything runs on
// the target.
func TestRequestsThatBreakTheContract(t *testing.T) {
	ip := newInProcess(t)
	tests := []struct {
		name string
		tune func(r *Request)
		want string
	}{
		{"no command", func(r *Request) { r.Argv = nil }, "no command to run"},
		{"a relative program", func(r *Request) { r.Argv = []string{"bin/migrate"} }, "must start with an absolute path"},
		{"a NUL in an argument", func(r *Request) { r.Argv = []string{"/bin/true", "a\x00b"} }, "argument 1 of the command holds a NUL byte"},
		{"a secret name with a slash", func(r *Request) { r.Secrets = map[string]string{"../x": "v"} }, `the secret name "../x" cannot name a file`},
		{"a deploy ID of ..", func(r *Request) { r.DeploymentID = ".." }, "the deploy ID cannot name a directory"},
		{"a step with a slash", func(r *Request) { r.Step = "a/b" }, "the step name cannot name a directory"},
		{"a relative secrets_dir", func(r *Request) { r.SecretsDir = "shm/manent" }, "secrets_dir must be a clean absolute path"},
		{"secrets_dir /", func(r *Request) { r.SecretsDir = "/" }, "secrets_dir must be a clean absolute path"},
		{"a short run.sha256", func(r *Request) { r.SHA256 = "abc" }, "run.sha256 must be 64 hexadecimal digits"},
		{"a variable outside the contract", func(r *Request) { r.Env = map[string]string{"PATH": "/tmp"} }, `the variable "PATH" is not MANENT_`},
		{"MANENT_OUTPUT set by the caller", func(r *Request) { r.Env = map[string]string{EnvOutput: "/etc/passwd"} }, "MANENT_OUTPUT is set by the run itself"},
		{"a NUL in a value", func(r *Request) { r.Env = map[string]string{"MANENT_PARAM_X": "s3cr3t\x00"} }, "the value of MANENT_PARAM_X holds a NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := ip.srv.Execs()
			req := ip.request(t, "/bin/true")
			tt.tune(&req)
			_, err := Run(t.Context(), req)
			if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run: %v, want a permanent error that says %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error shows a value: %v", err)
			}
			if n := ip.srv.Execs() - before; n != 0 {
				t.Errorf("%d commands ran on the target", n)
			}
		})
	}
}
