package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
)

// demo writes a manent.yml with the three demo tokens, one environment on
// the local plugin with a health check at healthURL, and the hello artifact.
func demo(t *testing.T, healthURL string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	root := repoRoot()
	cfg, err := os.ReadFile(filepath.Join(root, "examples/manent.yml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "manent.yml"), string(cfg)+"\n")
	art, err := os.ReadFile(filepath.Join(root, "examples/artifacts/hello-1.0.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "artifacts/hello-1.0.0.tar.gz"), string(art))
	env := "plugin: local\ntargets:\n  - path: targets/hello\n"
	if healthURL != "" {
		env += fmt.Sprintf("health:\n  - url: %s\n", healthURL)
	}
	write(t, filepath.Join(dir, "envconfig/demo/hello/staging.yml"), env)
	return dir
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newServer(t *testing.T, bin, dir string) *server {
	s := &server{t: t, bin: bin, config: filepath.Join(dir, "manent.yml"), dbURL: pgtest.URL(t),
		port: freePort(t), log: &bytes.Buffer{}, mu: &sync.Mutex{}}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("manent-server output:\n%s", s.output())
		}
	})
	return s
}

const helloDescriptor = `apiVersion: manent/v1
id: %s
application: hello
environment: staging
artifact:
  type: application
  name: hello
  version: 1.0.0
  source: file:hello-1.0.0.tar.gz
`

// journal counts the operations the local plugin performed on the target.
func journal(t *testing.T, target string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(target, ".manent/journal"))
	if err != nil {
		t.Fatalf("read target journal: %v", err)
	}
	ops := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			ops[f[1]]++
		}
	}
	return ops
}

type statusJSON struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Artifact struct {
		SHA256 *string `json:"sha256"`
	} `json:"artifact"`
	Steps []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Attempts int    `json:"attempts"`
	} `json:"steps"`
}

// TestCrashResumes kills manent-server with SIGKILL while a deploy is in
// its post-test step, rebuilds the binary, restarts it with the same
// executor ID, and checks that the deploy ends SUCCESS with every completed
// step run exactly once on the target.
func TestCrashResumes(t *testing.T) {
	serverBin, cliBin := binaries(t)

	// The health endpoint blocks the first call until the server dies, so
	// the deploy is mid-step when it is killed.
	inHealth := make(chan struct{}, 1)
	var mu sync.Mutex
	calls := 0
	health := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			inHealth <- struct{}{}
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hport := ln.Addr().(*net.TCPAddr).Port
	go func() { _ = health.Serve(ln) }()
	t.Cleanup(func() { _ = health.Close() })

	dir := demo(t, fmt.Sprintf("http://127.0.0.1:%d/health", hport))
	srv := newServer(t, serverBin, dir)
	srv.start()

	write(t, filepath.Join(dir, "deploy.yml"), fmt.Sprintf(helloDescriptor, "hello-crash"))
	// The CLI follows the deploy through the whole crash and restart.
	follow := exec.Command(cliBin, "deploy", "-f", filepath.Join(dir, "deploy.yml"), "-o", "json", "--timeout", "3m")
	follow.Env = append(os.Environ(), "MANENT_SERVER="+srv.URL(), "MANENT_TOKEN=demo-ci")
	var out, errOut bytes.Buffer
	follow.Stdout, follow.Stderr = &out, &errOut
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()

	select {
	case <-inHealth:
	case err := <-done:
		t.Fatalf("manent deploy ended before post-test: %v\n%s\n%s", err, out.String(), errOut.String())
	case <-time.After(2 * time.Minute):
		t.Fatalf("post-test never called the health endpoint\n%s", srv.output())
	}
	srv.kill()

	// A rebuilt binary must still recover the deploys in flight.
	srv.bin = build(t, "./cmd/manent-server", "manent-server-rebuilt", "two")
	srv.start()

	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("manent deploy: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
		}
	case <-time.After(3 * time.Minute):
		_ = follow.Process.Kill()
		t.Fatalf("manent deploy did not end\nstderr:\n%s", errOut.String())
	}
	var st statusJSON
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, out.String())
	}
	if st.State != "SUCCESS" || st.ID != "hello-crash" || st.Artifact.SHA256 == nil {
		t.Fatalf("final status = %+v", st)
	}
	for _, s := range st.Steps {
		if s.State != "SUCCESS" {
			t.Errorf("step %s: %s", s.Name, s.State)
		}
		if s.Name != "post-test" && s.Attempts != 1 {
			t.Errorf("step %s ran %d times, want once", s.Name, s.Attempts)
		}
	}
	ops := journal(t, filepath.Join(dir, "targets/hello"))
	if ops["deploy"] != 1 || ops["activate"] != 1 {
		t.Fatalf("target journal = %v, want exactly one deploy and one activate", ops)
	}
	cur, err := os.Readlink(filepath.Join(dir, "targets/hello/current"))
	if err != nil || cur != "releases/1.0.0" {
		t.Fatalf("current -> %q, %v", cur, err)
	}
}

// TestViewerCannotSubmit: demo-viewer gets exit code 3 and nothing is stored.
func TestViewerCannotSubmit(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := demo(t, "")
	srv := newServer(t, serverBin, dir)
	srv.start()
	write(t, filepath.Join(dir, "deploy.yml"), fmt.Sprintf(helloDescriptor, "hello-viewer"))

	_, stderr, code := cli(t, cliBin, srv.URL(), "demo-viewer", "deploy", "-f", filepath.Join(dir, "deploy.yml"))
	if code != 3 {
		t.Fatalf("exit code %d, want 3; stderr:\n%s", code, stderr)
	}
	_, _, code = cli(t, cliBin, srv.URL(), "demo-admin", "status", "hello-viewer")
	if code == 0 {
		t.Fatal("the refused deploy was stored")
	}
	stdout, _, code := cli(t, cliBin, srv.URL(), "demo-admin", "list", "-o", "json")
	if code != 0 || strings.Contains(stdout, "hello-viewer") {
		t.Fatalf("list after refusal (exit %d): %s", code, stdout)
	}
	_, _, code = cli(t, cliBin, srv.URL(), "wrong-token", "list")
	if code != 3 {
		t.Fatalf("unknown token: exit %d, want 3", code)
	}
	_, _, code = cli(t, cliBin, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "demo-admin", "list")
	if code != 4 {
		t.Fatalf("unreachable server: exit %d, want 4", code)
	}
}
