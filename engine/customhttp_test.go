package engine_test

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// hookServer is an HTTP API on TLS that records the requests custom steps
// send it; answer decides each answer, by the path and the count so far.
type hookServer struct {
	*httptest.Server
	mu     sync.Mutex
	keys   map[string][]string
	auth   []string
	bodies []string
	answer func(w http.ResponseWriter, r *http.Request, n int)
}

func newHookServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *hookServer {
	t.Helper()
	h := &hookServer{keys: map[string][]string{}, answer: answer}
	h.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.keys[r.URL.Path] = append(h.keys[r.URL.Path], r.Header.Get("Idempotency-Key"))
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		h.bodies = append(h.bodies, string(body))
		n := len(h.keys[r.URL.Path])
		h.mu.Unlock()
		h.answer(w, r, n)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) roots() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(h.Certificate())
	return pool
}

func (h *hookServer) keysOf(path string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.keys[path]...)
}

// customAudit is the step.custom.run entries of a deploy, in order.
func (e *env) customAudit(id string) []map[string]any {
	e.t.Helper()
	conn, err := pgx.Connect(e.ctx, e.url)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = conn.Close(e.ctx) }()
	rows, err := conn.Query(e.ctx, "SELECT actor, details FROM manent.audit WHERE action = 'step.custom.run' AND target = $1 ORDER BY id", id)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for rows.Next() {
		var actor string
		var raw []byte
		if err := rows.Scan(&actor, &raw); err != nil {
			e.t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			e.t.Fatal(err)
		}
		d["actor"] = actor
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	return out
}

const hookToken = "hook-token-0f3a9c1e5b7d42a8"

// httpStepEnv is an engine whose pipeline has the HTTP step hook (its run
// and dry run given as YAML) after deploy, and app/prod's environment
// configuration gives it a zone and the cdn-token secret.
func httpStepEnv(t *testing.T, h *hookServer, hook string) *env {
	t.Helper()
	return httpStepEnvWith(t, hook, envOptions{rootCAs: h.roots()})
}

// httpStepEnvWith is httpStepEnv with the engine's options (the
// authorities it trusts).
func httpStepEnvWith(t *testing.T, hook string, o envOptions) *env {
	t.Helper()
	t.Setenv("MANENT_SECRET_CDN_TOKEN", hookToken)
	o.steps = []string{
		"{name: artifacts, mode: mandatory}",
		"{name: deploy, mode: mandatory}",
		hook,
		"{name: activation, mode: optional}",
	}
	e := newEnvWith(t, o)
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: [{path: /a}, {path: /b}]
step_params:
  hook: {zone: z42}
secrets:
  - {name: cdn-token, ref: "env:MANENT_SECRET_CDN_TOKEN"}
`)
	return e
}

// TestHTTPStepThroughTheEngine: an HTTP step after deploy posts with its
// credential and idempotency key, waits for the operation it started, and
// its outputs reach the step's record; a retry sends the same key; every
// attempt is audited with the requester, the spec hash and the targets;
// the log shows no secret.
func TestHTTPStepThroughTheEngine(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.URL.Path == "/zones/z42/purge" && n == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == "/zones/z42/purge":
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"result": {"id": "op-9"}}`)
		case r.URL.Path == "/purges/op-9" && n < 2:
			_, _ = io.WriteString(w, `{"status": "running"}`)
		case r.URL.Path == "/purges/op-9":
			_, _ = io.WriteString(w, `{"status": "done", "files": 3}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	e := httpStepEnv(t, h, `{name: hook, mode: mandatory, type: http, max_retries: 2, timeout: 1m, secrets: [cdn-token], `+
		`params: {zone: {pattern: "[a-z0-9]+", required: true}}, `+
		`outputs: {purge_id: {pattern: "op-[0-9]+", path: "$.result.id"}, files: {pattern: "[0-9]+", path: "$.files"}}, `+
		`run: {url: "`+h.URL+`/zones/{{ .Params.zone }}/purge", auth: {type: bearer, secret: cdn-token}, json: {app: "{{ .Application }}"}, `+
		`poll: {url: "`+h.URL+`/purges/{{ .Response.result.id }}", interval: 1s, until: {path: "$.status", in: [done]}, fail: {path: "$.status", in: [failed]}}}}`)
	e.submit("hk-1", "app", "prod")
	d := e.waitState("hk-1", deploy.StateSuccess)
	s := step(d, "hook")
	if s.State != deploy.StepSuccess || s.Attempts != 2 || s.Output["purge_id"] != "op-9" || s.Output["files"] != "3" || s.Type != "http" {
		t.Fatalf("hook step %+v", s)
	}
	if keys := h.keysOf("/zones/z42/purge"); len(keys) != 2 || keys[0] != "hk-1:hook" || keys[1] != keys[0] {
		t.Fatalf("keys of the request %q: the same on every attempt", keys)
	}
	if polls := h.keysOf("/purges/op-9"); len(polls) != 2 || polls[0] != "hk-1:hook" {
		t.Fatalf("keys of the polls %q", polls)
	}
	h.mu.Lock()
	auth, body := h.auth[0], h.bodies[0]
	h.mu.Unlock()
	if auth != "Bearer "+hookToken || body != `{"app":"app"}` {
		t.Fatalf("request: Authorization %q, body %q", auth, body)
	}
	entries := e.customAudit("hk-1")
	if outcomes(entries) != "started failed started success" {
		t.Fatalf("audit %+v", entries)
	}
	plan := d.Plan.Steps
	var hash string
	for _, p := range plan {
		if p.Name == "hook" {
			hash = p.SpecHash
		}
	}
	for _, a := range entries {
		if a["actor"] != "token:ci" || a["step"] != "hook" || a["spec_hash"] != hash || hash == "" ||
			!strings.Contains(toJSON(a["targets"]), `"/a","/b"`) {
			t.Errorf("audit entry %+v (spec_hash %s)", a, hash)
		}
		if strings.Contains(toJSON(a), "op-9") {
			t.Errorf("an output in the audit: %+v", a)
		}
	}
	lines, err := e.store.Logs(e.ctx, "hk-1", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for _, l := range lines {
		log.WriteString(l.Step + " " + l.Message + "\n")
	}
	u := strings.TrimPrefix(h.URL, "https://")
	if !strings.Contains(log.String(), "hook POST "+u+"/zones/z42/purge: 202") || strings.Contains(log.String(), hookToken) {
		t.Fatalf("log:\n%s", log.String())
	}
}

// TestHTTPStepInARollout: between deploy and activation the step runs once
// per batch, with the batch's targets, each with a key of its own.
func TestHTTPStepInARollout(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	e := httpStepEnv(t, h, `{name: hook, mode: mandatory, type: http, secrets: [cdn-token], `+
		`params: {zone: {pattern: "[a-z0-9]+"}}, run: {url: "`+h.URL+`/hook"}}`)
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: [{path: /a}, {path: /b}]
rollout: {waves: [{name: all, batch: 1}]}
step_params:
  hook: {zone: z42}
secrets:
  - {name: cdn-token, ref: "env:MANENT_SECRET_CDN_TOKEN"}
`)
	e.submit("hk-2", "app", "prod")
	e.waitState("hk-2", deploy.StateSuccess)
	keys := h.keysOf("/hook")
	if strings.Join(keys, " ") != "hk-2:hook:p1:b1:run hk-2:hook:p1:b2:run" {
		t.Fatalf("keys %q", keys)
	}
	entries := e.customAudit("hk-2")
	if outcomes(entries) != "started success started success" || toJSON(entries[1]["targets"]) != `["/a"]` ||
		toJSON(entries[3]["targets"]) != `["/b"]` {
		t.Fatalf("audit %+v", entries)
	}
}

// TestHTTPStepDryRun: a dry run runs the step's dry_run with its own
// secret only; a step without dry_run is skipped and says so.
func TestHTTPStepDryRun(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	t.Setenv("MANENT_SECRET_CDN_READ", "hook-read-7c1e5b7d42a8a1c3")
	e := httpStepEnv(t, h, `{name: hook, mode: mandatory, type: http, secrets: [cdn-token], `+
		`params: {zone: {pattern: "[a-z0-9]+"}}, run: {url: "`+h.URL+`/purge", auth: {type: bearer, secret: cdn-token}}, `+
		`dry_run: {url: "`+h.URL+`/plan", secrets: [cdn-read], auth: {type: bearer, secret: cdn-read}}}`)
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: [{path: /a}]
step_params:
  hook: {zone: z42}
secrets:
  - {name: cdn-token, ref: "env:MANENT_SECRET_NOT_SET"}
  - {name: cdn-read, ref: "env:MANENT_SECRET_CDN_READ"}
`)
	if _, err := e.eng.Submit(e.ctx, []byte(descriptorFor("hk-3", "app", "prod")+"dryRun: true\n"), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("hk-3", deploy.StateSuccess)
	if s := step(d, "hook"); s.State != deploy.StepSuccess {
		t.Fatalf("hook %+v", s)
	}
	h.mu.Lock()
	auth := strings.Join(h.auth, " ")
	h.mu.Unlock()
	if len(h.keysOf("/purge")) != 0 || len(h.keysOf("/plan")) != 1 || auth != "Bearer hook-read-7c1e5b7d42a8a1c3" {
		t.Fatalf("requests: purge %q, plan %q, auth %q", h.keysOf("/purge"), h.keysOf("/plan"), auth)
	}
	if a := e.customAudit("hk-3"); outcomes(a) != "started success" || a[1]["dry_run"] != true {
		t.Fatalf("audit %+v", a)
	}
}

// outcomes are the outcomes of audit entries, in order, space-separated.
func outcomes(entries []map[string]any) string {
	out := make([]string, len(entries))
	for i, a := range entries {
		out[i], _ = a["outcome"].(string)
	}
	return strings.Join(out, " ")
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// writeCert writes the PEM of h's certificate, for a worker process that
// must trust it.
func writeCert(t *testing.T, h *hookServer, path string) {
	t.Helper()
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestShortSecretRefusedBeforeAnythingChanges: a secret that a custom step
// of the plan receives and that is too short to be masked fails the
// secrets step, before deploy changes the targets (not the custom step
// after it, with a rollback to follow); the error names the secret and the
// step, never the value. A dry run is held to the secrets its dry_run
// receives only.
func TestShortSecretRefusedBeforeAnythingChanges(t *testing.T) {
	const short = "abc12"
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	t.Setenv("MANENT_SECRET_CDN_TOKEN", short)
	t.Setenv("MANENT_SECRET_CDN_READ", "hook-read-7c1e5b7d42a8a1c3")
	e := newEnvWith(t, envOptions{rootCAs: h.roots(), steps: []string{
		"{name: secrets, mode: mandatory}",
		"{name: artifacts, mode: mandatory}",
		"{name: deploy, mode: mandatory}",
		`{name: hook, mode: mandatory, type: http, secrets: [cdn-token], run: {url: "` + h.URL + `/purge", auth: {type: bearer, secret: cdn-token}}, ` +
			`dry_run: {url: "` + h.URL + `/plan", secrets: [cdn-read], auth: {type: bearer, secret: cdn-read}}}`,
	}})
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/prod.yml"), `plugin: test
targets: [{path: /a}]
secrets:
  - {name: cdn-token, ref: "env:MANENT_SECRET_CDN_TOKEN"}
  - {name: cdn-read, ref: "env:MANENT_SECRET_CDN_READ"}
`)
	e.submit("short-1", "app", "prod")
	d := e.waitState("short-1", deploy.StateError)
	s := step(d, "secrets")
	if s.State != deploy.StepError || !strings.Contains(s.Error, "secret cdn-token, which step hook receives, is shorter than 8 bytes") ||
		strings.Contains(s.Error, short) {
		t.Fatalf("secrets step %+v", s)
	}
	if n := e.plugin.callCount("short-1"); n != 0 {
		t.Fatalf("the plugin deployed %d time(s) before the short secret was refused", n)
	}
	if len(h.keysOf("/purge")) != 0 {
		t.Fatal("the hook was called")
	}

	if _, err := e.eng.Submit(e.ctx, []byte(descriptorFor("short-2", "app", "prod")+"dryRun: true\n"), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	d = e.waitState("short-2", deploy.StateSuccess)
	if s := step(d, "hook"); s.State != deploy.StepSuccess || len(h.keysOf("/plan")) != 1 {
		t.Fatalf("dry run: hook %+v, plan requests %q", s, h.keysOf("/plan"))
	}
}
