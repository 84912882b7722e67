package server

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
)

// These tests run the whole server (config, PostgreSQL, DBOS, HTTP) on a
// fresh database and drive it over HTTP like a CI job would.

// outsider reads and deploys other/*, nothing of hello: what it asks of
// hello must answer as if hello's objects did not exist.
var demoTokens = map[string]string{"admin": "t-admin", "ci": "t-ci", "viewer": "t-viewer", "outsider": "t-outsider"}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// demoConfig writes a manent.yml, an environment configuration for
// demo/hello/staging on the local plugin, and the hello artifact; it
// returns the path of manent.yml and the target directory.
func demoConfig(t *testing.T) (configPath, target string) {
	t.Helper()
	dir := t.TempDir()
	target = filepath.Join(dir, "target")
	files := map[string]string{
		"manent.yml": fmt.Sprintf(`server:
  executor_id: test
  default_tenant: demo
  work_dir: work
auth:
  tokens:
    - {name: admin, sha256: %s}
    - {name: ci, sha256: %s, groups: [ci]}
    - {name: viewer, sha256: %s, groups: [viewers]}
    - {name: outsider, sha256: %s, groups: [outsiders]}
rbac:
  policy: |
    p, token:admin, *, *, admin
    p, group:ci, demo, hello/*, deployment.submit
    p, group:ci, demo, hello/*, deployment.read
    p, group:ci, demo, hello/*, deployment.cancel
    p, group:viewers, demo, *, deployment.read
    p, group:outsiders, demo, other/*, deployment.submit
    p, group:outsiders, demo, other/*, deployment.read
    p, group:outsiders, demo, other/*, deployment.cancel
    p, group:outsiders, demo, other/*, deployment.approve
envconfig:
  dir: envconfig
artifacts:
  sources: ["file:"]
  file_root: artifacts
pipeline:
  retry_interval: 10ms
  retry_max_interval: 100ms
queues:
  poll_interval: 20ms
`, hash(demoTokens["admin"]), hash(demoTokens["ci"]), hash(demoTokens["viewer"]), hash(demoTokens["outsider"])),
		"envconfig/demo/hello/staging.yml": "plugin: local\ntargets:\n  - path: " + target + "\n",
		"artifacts/hello-1.0.0.tar.gz":     string(tarball(t, map[string]string{"index.html": "<p>hello</p>", "VERSION": "1.0.0"})),
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "manent.yml"), target
}

func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// startServer runs server.Main on 127.0.0.1:0 against a fresh database.
func startServer(t *testing.T, configPath string) *Server {
	t.Helper()
	// config.Load takes DATABASE_URL over database.url: point it at this
	// test's database (pgtest.URL reads the shared server from it first).
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	return startRole(t, configPath, RoleAll)
}

// startRole runs server.Main on 127.0.0.1:0 against DATABASE_URL.
func startRole(t *testing.T, configPath, role string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(&testLog{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := Main(ctx, Config{ConfigPath: configPath, Listen: "127.0.0.1:0", Logger: log, Role: role})
	if err != nil {
		t.Fatalf("server.Main: %v", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// testLog sends the server's warnings to the test log, and stops when the
// test has ended (DBOS may still log while it shuts down).
type testLog struct{ t *testing.T }

func (l *testLog) Write(p []byte) (int, error) {
	defer func() { _ = recover() }()
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
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

func request(t *testing.T, method, url, token, body string) (reply, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return newReply(resp), b
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

func TestDeployOverRESTAndSSE(t *testing.T) {
	configPath, target := demoConfig(t)
	srv := startServer(t, configPath)
	base := srv.URL() + "/api/v1/deployments"

	resp, body := request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-rest-1"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	var sub submitted
	if err := json.Unmarshal(body, &sub); err != nil || sub.ID != "hello-rest-1" || !sub.Created {
		t.Fatalf("submit body %s (%v)", body, err)
	}

	resp, body = request(t, "GET", base+"/hello-rest-1", demoTokens["ci"], "")
	var st statusJSON
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &st) != nil || st.ID != "hello-rest-1" || len(st.Steps) == 0 {
		t.Fatalf("status: %d %s", resp.StatusCode, body)
	}

	// Follow it to the end over SSE.
	states := followSSE(t, base+"/hello-rest-1/events", demoTokens["ci"])
	if len(states) == 0 || states[len(states)-1] != "SUCCESS" {
		t.Fatalf("SSE states = %v, want to end with SUCCESS", states)
	}
	// Followed again once it ended, with its whole log: the snapshot
	// comes first (followSSE checks it) and the final state last.
	if again := followSSE(t, base+"/hello-rest-1/events", demoTokens["ci"]); len(again) == 0 || again[len(again)-1] != "SUCCESS" {
		t.Fatalf("SSE states of the ended deploy = %v, want the snapshot first and SUCCESS last", again)
	}

	resp, body = request(t, "GET", base+"/hello-rest-1", demoTokens["viewer"], "")
	st = statusJSON{}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &st) != nil {
		t.Fatalf("status: %d %s", resp.StatusCode, body)
	}
	if st.State != "SUCCESS" || st.Artifact.SHA256 == nil || *st.Artifact.SHA256 == "" {
		t.Errorf("final status %s", body)
	}
	for _, s := range st.Steps {
		if s.State != "SUCCESS" && s.State != "SKIPPED" {
			t.Errorf("step %s is %s", s.Name, s.State)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "current", "index.html")); err != nil {
		t.Errorf("release not in service on the target: %v", err)
	}

	// Submitting the same id again returns the existing deploy.
	resp, body = request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-rest-1"))
	sub = submitted{}
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &sub) != nil || sub.Created || sub.State != "SUCCESS" {
		t.Errorf("resubmit: %d %s", resp.StatusCode, body)
	}
}

// followSSE reads the events stream until the server ends it and returns
// the states of its state events.
func followSSE(t *testing.T, url, token string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	var states []string
	var event string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
			if first && event != "state" {
				t.Errorf("first event is %s, want the state snapshot", event)
			}
			first = false
		case strings.HasPrefix(line, "data: ") && event == "state":
			var st statusJSON
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &st); err != nil {
				t.Fatalf("state data %q: %v", line, err)
			}
			states = append(states, st.State)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read events: %v (states so far %v)", err, states)
	}
	return states
}

func TestRefusals(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)
	base := srv.URL() + "/api/v1/deployments"
	invalid := "apiVersion: manent/v2\nenvironment: staging\nartifact:\n  type: application\nbogus: true\n"
	tests := []struct {
		name, method, path, token, body string
		status                          int
		code                            deploy.Code
		minErrors                       int
	}{
		{"no token", "POST", "", "", fmt.Sprintf(helloDescriptor, "r-1"), 401, deploy.EUNAUTHENTICATED, 0},
		{"unknown token", "GET", "/r-1", "nope", "", 401, deploy.EUNAUTHENTICATED, 0},
		{"invalid descriptor", "POST", "", demoTokens["ci"], invalid, 422, deploy.EINVALID, 3},
		{"viewer submitting", "POST", "", demoTokens["viewer"], fmt.Sprintf(helloDescriptor, "r-viewer"), 403, deploy.EFORBIDDEN, 0},
		{"unknown deploy", "GET", "/r-none", demoTokens["ci"], "", 404, deploy.ENOTFOUND, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := request(t, tt.method, base+tt.path, tt.token, tt.body)
			var e restError
			if resp.StatusCode != tt.status || json.Unmarshal(body, &e) != nil || e.Error.Code != tt.code {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
			if len(e.Error.Errors) < tt.minErrors {
				t.Errorf("errors = %+v, want at least %d", e.Error.Errors, tt.minErrors)
			}
		})
	}
	// The refused submit of the viewer stored nothing.
	resp, body := request(t, "GET", base+"/r-viewer", demoTokens["admin"], "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after a refused submit: %d %s", resp.StatusCode, body)
	}
}

func TestValidateAndGraphQL(t *testing.T) {
	configPath, _ := demoConfig(t)
	srv := startServer(t, configPath)

	resp, body := request(t, "POST", srv.URL()+"/api/v1/deployments/plan", demoTokens["ci"], fmt.Sprintf(helloDescriptor, "v-1"))
	var p planned
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &p) != nil || !p.Validated || len(p.Plan) == 0 || p.Effective.Plugin != "local" {
		t.Fatalf("plan: %d %s", resp.StatusCode, body)
	}
	resp, body = request(t, "GET", srv.URL()+"/api/v1/deployments/v-1", demoTokens["admin"], "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a validation stored the deploy: %d %s", resp.StatusCode, body)
	}

	query := func(token, q string) (int, string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"query": q})
		req, _ := http.NewRequest("POST", srv.URL()+"/graphql", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	if code, out := query(demoTokens["viewer"], `{ viewer { subject groups } }`); code != 200 ||
		out != `{"data":{"viewer":{"subject":"token:viewer","groups":["viewers"]}}}` {
		t.Errorf("viewer: %d %s", code, out)
	}
	if code, out := query("", `{ viewer { subject } }`); code != 401 || !strings.Contains(out, `"code":"UNAUTHENTICATED"`) {
		t.Errorf("anonymous: %d %s", code, out)
	}
	if code, out := query(demoTokens["ci"], `{ deployment(id: "none") { id } }`); code != 200 || !strings.Contains(out, `"code":"NOT_FOUND"`) {
		t.Errorf("unknown deploy: %d %s", code, out)
	}
}

// TestAPIAndWorkerInOneProcess runs two servers on one database, an api and
// a worker: the deploy submitted to the first runs on the second, and the
// first streams its progress (the NOTIFY fan-out crosses processes).
func TestAPIAndWorkerInOneProcess(t *testing.T) {
	configPath, _ := demoConfig(t)
	workerConfig := filepath.Join(filepath.Dir(configPath), "worker.yml")
	b, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	// DBOS needs a distinct executor ID per process.
	if err := os.WriteFile(workerConfig, bytes.Replace(b, []byte("executor_id: test"), []byte("executor_id: worker"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	api := startRole(t, configPath, RoleAPI)
	worker := startRole(t, workerConfig, RoleWorker)

	resp, body := request(t, "GET", worker.URL()+"/readyz", "", "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("worker readyz: %d %s", resp.StatusCode, body)
	}
	resp, body = request(t, "POST", worker.URL()+"/api/v1/deployments", demoTokens["ci"], "")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a worker serves the API: %d %s", resp.StatusCode, body)
	}

	base := api.URL() + "/api/v1/deployments"
	resp, body = request(t, "POST", base, demoTokens["ci"], fmt.Sprintf(helloDescriptor, "hello-roles-1"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	if states := followSSE(t, base+"/hello-roles-1/events", demoTokens["ci"]); len(states) == 0 || states[len(states)-1] != "SUCCESS" {
		t.Fatalf("SSE states = %v, want to end with SUCCESS", states)
	}
}

func TestMigrateTwice(t *testing.T) {
	configPath, _ := demoConfig(t)
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for i := range 2 {
		if err := Migrate(t.Context(), Config{ConfigPath: configPath, Logger: log}); err != nil {
			t.Fatalf("migrate #%d: %v", i+1, err)
		}
	}
	_, err := Main(t.Context(), Config{ConfigPath: configPath, Logger: log, Role: "leader"})
	if err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Errorf("Main with an unknown role: %v", err)
	}
}
