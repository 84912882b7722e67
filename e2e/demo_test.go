package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/internal/pgtest"
)

// TestBrokenReleaseRollsBack is the demo of README's quick start with the
// real binaries in dev mode: hello 1.0.0 deploys to staging, then
// examples/deploys/hello-broken.yml, whose health check fails, ends ERROR
// with its automatic rollback completed, 1.0.0 still in service on the
// target and in the inventory, and the broken deploy as the environment's
// last failure; 1.0.0 deployed again has the first deploy as the release
// before it.
func TestBrokenReleaseRollsBack(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot(), "examples"), filepath.Join(dir, "examples"))
	port := freePort(t)
	// The demo's health check names the demo's address: this one's port.
	staging := filepath.Join(dir, "examples/envconfig/demo/hello/staging.yml")
	b, err := os.ReadFile(staging)
	if err != nil {
		t.Fatal(err)
	}
	write(t, staging, strings.ReplaceAll(string(b), "127.0.0.1:8080", fmt.Sprintf("127.0.0.1:%d", port)))
	url := startDev(t, serverBin, dir, port)

	deployFile := func(name string) (map[string]any, int) {
		t.Helper()
		stdout, stderr, code := cli(t, cliBin, url, "demo-ci", "deploy", "-f", filepath.Join(dir, "examples/deploys", name), "-o", "json", "--timeout", "2m")
		var st map[string]any
		if err := json.Unmarshal([]byte(stdout), &st); err != nil {
			t.Fatalf("deploy %s: exit %d, status JSON: %v\nstdout:\n%s\nstderr:\n%s", name, code, err, stdout, stderr)
		}
		return st, code
	}
	good, code := deployFile("hello.yml")
	if code != 0 || good["state"] != "SUCCESS" {
		t.Fatalf("hello.yml: exit %d, state %v, error %v, steps %v", code, good["state"], good["error"], good["steps"])
	}
	broken, code := deployFile("hello-broken.yml")
	if code != 1 || broken["state"] != "ERROR" {
		t.Fatalf("hello-broken.yml: exit %d, state %v", code, broken["state"])
	}
	rb, _ := broken["rollback"].(map[string]any)
	if rb == nil || rb["state"] != "completed" {
		t.Fatalf("rollback = %v", broken["rollback"])
	}
	steps, _ := rb["steps"].([]any)
	if len(steps) != 1 || steps[0].(map[string]any)["name"] != "rollback:deploy" || steps[0].(map[string]any)["state"] != "SUCCESS" {
		t.Fatalf("rollback steps = %v", steps)
	}

	target := filepath.Join(dir, ".manent/targets/hello/staging")
	if cur, err := os.Readlink(filepath.Join(target, "current")); err != nil || cur != "releases/1.0.0" {
		t.Fatalf("current -> %q, %v", cur, err)
	}
	if _, err := os.Stat(filepath.Join(target, "releases/1.1.0")); !os.IsNotExist(err) {
		t.Fatalf("the broken release is still on the target: %v", err)
	}
	stdout, stderr, code := cli(t, cliBin, url, "demo-ci", "inventory", "-o", "json")
	if code != 0 || !strings.Contains(stdout, good["id"].(string)) || !strings.Contains(stdout, broken["id"].(string)) {
		t.Fatalf("inventory: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// 1.0.0 again, by a new deploy: the one before it is the first, not
	// the broken one, whose release never went in service.
	again := filepath.Join(dir, "examples/deploys/hello-again.yml")
	hello, err := os.ReadFile(filepath.Join(dir, "examples/deploys/hello.yml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, again, strings.Replace(string(hello), "description: The demo application", "description: The demo application, again", 1))
	redeployed, code := deployFile("hello-again.yml")
	if code != 0 || redeployed["state"] != "SUCCESS" || redeployed["id"] == good["id"] {
		t.Fatalf("hello-again.yml: exit %d, id %v, state %v", code, redeployed["id"], redeployed["state"])
	}
	stdout, stderr, code = cli(t, cliBin, url, "demo-ci", "inventory", "-o", "json")
	var inv []struct {
		Environment  string `json:"environment"`
		DeploymentID string `json:"deployment_id"`
		Previous     *struct {
			DeploymentID string `json:"deployment_id"`
			Artifact     struct {
				Version string `json:"version"`
			} `json:"artifact"`
		} `json:"previous"`
		LastFailure *struct {
			DeploymentID string `json:"deployment_id"`
		} `json:"last_failure"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &inv) != nil || len(inv) != 1 {
		t.Fatalf("inventory: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if e := inv[0]; e.DeploymentID != redeployed["id"] || e.Previous == nil || e.Previous.DeploymentID != good["id"] ||
		e.Previous.Artifact.Version != "1.0.0" || e.LastFailure == nil || e.LastFailure.DeploymentID != broken["id"] {
		t.Fatalf("inventory of staging: %s\nwant %v in service, %v before it, %v the last failure", stdout, redeployed["id"], good["id"], broken["id"])
	}
	// The demo serves what it deploys.
	resp, err := http.Get(url + "/demo/hello/staging/current/index.html")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "Hello from manent") {
		t.Fatalf("GET /demo/hello/staging/current/: %d %s", resp.StatusCode, page)
	}
}

// startDev runs `manent-server dev` in dir (where it keeps .manent/) on
// port, with the test's database and the flags of extra, and waits until
// it is ready.
func startDev(t *testing.T, bin, dir string, port int, extra ...string) string {
	t.Helper()
	return startDevWatching(t, bin, dir, port, nil, extra...)
}

// startDevWatching is startDev that also copies the server's standard
// output to stdout (nil: nowhere).
func startDevWatching(t *testing.T, bin, dir string, port int, stdout io.Writer, extra ...string) string {
	t.Helper()
	var mu sync.Mutex
	var log bytes.Buffer
	args := append([]string{"dev", "-c", filepath.Join(dir, "examples/manent.yml"), "--listen", fmt.Sprintf("127.0.0.1:%d", port)}, extra...)
	// The demo CDN's port of the demo (8443) may be a developer's: a test
	// that wants the CDN gives its own.
	if !slices.ContainsFunc(extra, func(a string) bool { return strings.HasPrefix(a, "--demo-cdn-listen") }) {
		args = append(args, "--demo-cdn-listen=")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.URL(t))
	cmd.Stdout, cmd.Stderr = io.Writer(lockedWriter{&mu, &log}), lockedWriter{&mu, &log}
	if stdout != nil {
		cmd.Stdout = io.MultiWriter(cmd.Stdout, stdout)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	output := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("manent-server dev output:\n%s", output())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("manent-server dev exited at start:\n%s", output())
		default:
		}
		if resp, err := http.Get(url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("manent-server dev not ready after 60s:\n%s", output())
		}
		time.Sleep(50 * time.Millisecond) // polling a port that is not open yet: nothing to wait on
	}
}
