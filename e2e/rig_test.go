package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A rig is one manent-server on a minimal manent.yml written for the test
// (no freeze, no promotion rule: nothing that depends on the day), with
// the hello artifact, driven by the CLI and REST. Its database lives as
// long as the test, so a restart is only a new process: start() does not
// rebuild anything.
type rig struct {
	t   *testing.T
	dir string
	srv *server
	cli string
}

// rigOptions are what the tests of recovery vary in manent.yml.
type rigOptions struct {
	// steps are the names of pipeline.steps, in order; deploy and artifacts
	// are mandatory, the others optional. A step written as a flow mapping
	// ({name: db-migrate, type: command, ...}) is taken as it is.
	steps []string
	// pipeline is more YAML of the pipeline section (custom,
	// descriptor_policy), indented by two.
	pipeline string
	// maxRecovery is engine.max_recovery_attempts.
	maxRecovery int
	// governance is the YAML of the governance section, indented by two.
	governance string
	// extra is more top-level YAML (plugins, say).
	extra string
	// engine is more YAML of the engine section, indented by two.
	engine string
}

// The rig's tokens: demo-ci submits, demo-admin approves and reads all,
// demo-outsider works on other/* and may read nothing of hello.
// acme-ci submits in another tenant (acme); demo-reader reads hello and
// submits to its staging only.
const (
	tokenReader = "demo-reader"

	tokenCI       = "demo-ci"
	tokenAdmin    = "demo-admin"
	tokenOutsider = "demo-outsider"
	tokenAcme     = "acme-ci"
)

func tokenSHA(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	serverBin, cliBin := binaries(t)
	dir := rigConfig(t, o)
	r := &rig{t: t, dir: dir, cli: cliBin}
	r.srv = newServer(t, serverBin, dir)
	return r
}

// rigConfig writes the rig's manent.yml into a new directory and returns it.
func rigConfig(t *testing.T, o rigOptions) string {
	t.Helper()
	dir := t.TempDir()
	var steps strings.Builder
	for _, s := range o.steps {
		if strings.HasPrefix(s, "{") {
			fmt.Fprintf(&steps, "    - %s\n", s)
			continue
		}
		mode := "optional"
		if s == "artifacts" || s == "deploy" {
			mode = "mandatory"
		}
		fmt.Fprintf(&steps, "    - {name: %s, mode: %s}\n", s, mode)
	}
	cfg := fmt.Sprintf(`server:
  executor_id: local
  default_tenant: demo
  work_dir: work
auth:
  tokens:
    - {name: %s, sha256: %s}
    - {name: %s, sha256: %s, groups: [ci]}
    - {name: %s, sha256: %s}
    - {name: %s, sha256: %s}
    - {name: %s, sha256: %s}
rbac:
  policy: |
    p, admin,    *,    *,       admin
    p, deployer, demo, hello/*, deployment.submit
    p, deployer, demo, hello/*, deployment.read
    p, deployer, demo, hello/*, deployment.cancel
    p, outsider, demo, other/*, deployment.submit
    p, outsider, demo, other/*, deployment.read
    p, outsider, demo, other/*, deployment.cancel
    p, outsider, demo, other/*, deployment.approve
    p, deployer, acme, *,       deployment.submit
    p, deployer, acme, *,       deployment.read
    p, reader,   demo, hello/*, deployment.read
    p, reader,   demo, hello/staging, deployment.submit
    g, token:demo-admin,    admin,    *
    g, token:demo-reader,   reader,   demo
    g, group:ci,            deployer, demo
    g, token:demo-outsider, outsider, demo
    g, token:acme-ci,       deployer, acme
envconfig:
  dir: envconfig
artifacts:
  sources: ["file:", "http://127.0.0.1:"]
  file_root: artifacts
pipeline:
  steps:
%s  retry_interval: 50ms
  retry_max_interval: 100ms
%squeues:
  poll_interval: 50ms
  worker_concurrency: 16
engine:
  application_version: manent-2
  max_recovery_attempts: %d
%s`, tokenAdmin, tokenSHA(tokenAdmin), tokenCI, tokenSHA(tokenCI), tokenOutsider, tokenSHA(tokenOutsider), tokenAcme, tokenSHA(tokenAcme), tokenReader, tokenSHA(tokenReader), steps.String(), o.pipeline, o.maxRecovery, o.engine)
	if o.governance != "" {
		cfg += "governance:\n" + o.governance
	}
	cfg += o.extra
	write(t, filepath.Join(dir, "manent.yml"), cfg)
	return dir
}

// artifact makes hello-<version>.tar.gz available as file:hello-<version>.tar.gz
// (the content of hello 1.0.0: the local plugin keys releases by version).
func (r *rig) artifact(version string) {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "examples/artifacts/hello-1.0.0.tar.gz"))
	if err != nil {
		r.t.Fatal(err)
	}
	write(r.t, filepath.Join(r.dir, "artifacts", "hello-"+version+".tar.gz"), string(b))
}

// env writes the environment configuration of hello in env.
func (r *rig) env(env, body string) {
	r.t.Helper()
	write(r.t, filepath.Join(r.dir, "envconfig/demo/hello", env+".yml"), body)
}

// target is the directory of a target path of an environment configuration.
func (r *rig) target(path string) string { return filepath.Join(r.dir, path) }

// descriptor writes the descriptor of a deploy of hello <version> to env,
// with extra YAML appended, and returns its path.
func (r *rig) descriptor(id, env, version, extra string) string {
	r.t.Helper()
	return r.descriptorFrom(id, env, version, "file:hello-"+version+".tar.gz", extra)
}

// descriptorFrom is descriptor with the artifact's source.
func (r *rig) descriptorFrom(id, env, version, source, extra string) string {
	r.t.Helper()
	body := fmt.Sprintf(`apiVersion: manent/v1
id: %s
application: hello
environment: %s
artifact:
  type: application
  name: hello
  version: %s
  source: %s
`, id, env, version, source) + extra
	path := filepath.Join(r.dir, "deploys", id+".yml")
	write(r.t, path, body)
	return path
}

// manent runs the CLI against the rig's server.
func (r *rig) manent(token string, args ...string) (string, string, int) {
	r.t.Helper()
	return cli(r.t, r.cli, r.srv.URL(), token, args...)
}

// submit submits a descriptor without following it and returns its ID.
func (r *rig) submit(path string) string {
	r.t.Helper()
	out, errOut, code := r.manent(tokenCI, "deploy", "-f", path, "--no-wait")
	if code != 0 {
		r.t.Fatalf("manent deploy -f %s --no-wait: exit %d\n%s", path, code, errOut)
	}
	return strings.TrimSpace(out)
}

// deployFollowed submits a descriptor and follows it to its end, as CI
// does; it fails the test unless the deploy ends SUCCESS.
func (r *rig) deployFollowed(path string) deployStatus {
	r.t.Helper()
	out, errOut, code := r.manent(tokenCI, "deploy", "-f", path, "-o", "json", "--timeout", "2m")
	if code != 0 {
		r.t.Fatalf("manent deploy -f %s: exit %d\nstdout:\n%s\nstderr:\n%s\nserver:\n%s", path, code, out, errOut, r.srv.output())
	}
	var st deployStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatalf("status JSON: %v\n%s", err, out)
	}
	return st
}

// followToEnd follows the log of a deploy to its end (manent logs -f,
// which reconnects across restarts) and returns its final status.
func (r *rig) followToEnd(id string) deployStatus {
	r.t.Helper()
	_, errOut, code := r.manent(tokenAdmin, "logs", "-f", id, "--timeout", "2m")
	if code != 0 && code != 1 {
		r.t.Fatalf("manent logs -f %s: exit %d\n%s\nserver:\n%s", id, code, errOut, r.srv.output())
	}
	st := r.status(id)
	if !terminal(st.State) {
		r.t.Fatalf("manent logs -f %s returned with the deploy %s", id, st.State)
	}
	return st
}

// background is a CLI command that runs while the test goes on.
type background struct {
	cmd      *exec.Cmd
	out, err bytes.Buffer
	done     chan struct{}
	code     int
}

// manentBackground starts the CLI and returns at once.
func (r *rig) manentBackground(token string, args ...string) *background {
	r.t.Helper()
	b := &background{done: make(chan struct{})}
	b.cmd = exec.Command(r.cli, args...)
	b.cmd.Env = append(os.Environ(), "MANENT_SERVER="+r.srv.URL(), "MANENT_TOKEN="+token)
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.err
	if err := b.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() {
		_ = b.cmd.Wait()
		b.code = b.cmd.ProcessState.ExitCode()
		close(b.done)
	}()
	r.t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			_ = b.cmd.Process.Kill()
			<-b.done
		}
	})
	return b
}

// deployStatus is the part of the status JSON these tests read.
type deployStatus struct {
	ID         string     `json:"id"`
	State      string     `json:"state"`
	Error      *string    `json:"error"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	Release    *string    `json:"release"`
	Approval   *struct {
		Status string `json:"status"`
	} `json:"approval"`
	Steps    []stepStatus `json:"steps"`
	Rollback *struct {
		State string `json:"state"`
		Steps []struct {
			Name  string  `json:"name"`
			State string  `json:"state"`
			Error *string `json:"error"`
		} `json:"steps"`
	} `json:"rollback"`
}

// stepStatus is a step of the status JSON.
type stepStatus struct {
	Name     string  `json:"name"`
	Kind     string  `json:"kind"`
	State    string  `json:"state"`
	Attempts int     `json:"attempts"`
	Error    *string `json:"error"`
}

// step is the step of the status named name (zero when there is none).
func (s deployStatus) step(name string) stepStatus {
	for _, st := range s.Steps {
		if st.Name == name {
			return st
		}
	}
	return stepStatus{}
}

func (s deployStatus) errorText() string {
	if s.Error == nil {
		return ""
	}
	return *s.Error
}

func terminal(state string) bool {
	switch state {
	case "SUCCESS", "ERROR", "CANCELLED", "REJECTED", "EXPIRED", "DEPENDENCY_FAILED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED":
		return true
	}
	return false
}

// status reads GET /api/v1/deployments/{id}.
func (r *rig) status(id string) deployStatus {
	r.t.Helper()
	body, code := r.get("/api/v1/deployments/" + id)
	if code != http.StatusOK {
		r.t.Fatalf("GET status of %s: %d %s", id, code, body)
	}
	var st deployStatus
	if err := json.Unmarshal(body, &st); err != nil {
		r.t.Fatalf("status JSON of %s: %v\n%s", id, err, body)
	}
	return st
}

func (r *rig) get(path string) ([]byte, int) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodGet, r.srv.URL()+path, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tokenAdmin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("GET %s: %v", path, err)
	}
	return body, resp.StatusCode
}

// logText is the deploy log as `manent logs` prints it.
func (r *rig) logText(id string) string {
	r.t.Helper()
	out, errOut, code := r.manent(tokenAdmin, "logs", id)
	if code != 0 {
		r.t.Fatalf("manent logs %s: exit %d\n%s", id, code, errOut)
	}
	return out
}

// sseEvent is one Server-Sent Event of /api/v1/deployments/{id}/events.
type sseEvent struct {
	name string
	data []byte
}

// events streams the events of a deploy until the stream ends (the deploy
// ended, or the server went away) or ctx ends.
func (r *rig) events(ctx context.Context, id string) <-chan sseEvent {
	r.t.Helper()
	return deploymentEvents(ctx, r.t, r.srv.URL(), tokenAdmin, id)
}

// deploymentEvents streams the events of a deploy from the server at
// baseURL, read as token, until the stream or ctx ends.
func deploymentEvents(ctx context.Context, t *testing.T, baseURL, token, id string) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/v1/deployments/"+id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("events of %s: %v", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("events of %s: %d %s", id, resp.StatusCode, b)
	}
	ch := make(chan sseEvent)
	go readEvents(ctx, resp.Body, ch)
	return ch
}

// readEvents sends the events of an SSE stream on ch, then closes both.
func readEvents(ctx context.Context, body io.ReadCloser, ch chan<- sseEvent) {
	defer close(ch)
	defer func() { _ = body.Close() }()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = append(ev.data, strings.TrimPrefix(line, "data: ")...)
		}
	}
}

// waitState follows the events of a deploy until its state is want (the
// first event is its current state) and returns that status.
func (r *rig) waitState(id, want string) deployStatus {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	last := ""
	for ev := range r.events(ctx, id) {
		if ev.name != "state" {
			continue
		}
		var st deployStatus
		if err := json.Unmarshal(ev.data, &st); err != nil {
			r.t.Fatalf("state event of %s: %v\n%s", id, err, ev.data)
		}
		if st.State == want {
			return st
		}
		last = st.State
	}
	r.t.Fatalf("deploy %s never reached %s (last seen %s)\nserver:\n%s", id, want, last, r.srv.output())
	return deployStatus{}
}

// journalLines are the operations of a target's journal, "<op> <version>",
// in order.
func journalLines(t *testing.T, target string) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(target, ".manent/journal")); err != nil {
		t.Fatalf("read target journal: %v", err)
	}
	return readJournal(target)
}

// readJournal is journalLines of a journal that may not exist yet.
func readJournal(target string) []string {
	b, _ := os.ReadFile(filepath.Join(target, ".manent/journal"))
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// time, operation, deploy, target, version
		if f := strings.Fields(line); len(f) == 5 {
			out = append(out, f[1]+" "+f[4])
		}
	}
	return out
}

// currentLink is where a target's current link points ("" without one).
func currentLink(t *testing.T, target string) string {
	t.Helper()
	cur, err := os.Readlink(filepath.Join(target, "current"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// endpoint serves h on a free loopback port for the test and returns its URL.
func endpoint(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &http.Server{Handler: h}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return "http://" + ln.Addr().String()
}
