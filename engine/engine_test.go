package engine_test

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/governance"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/specsig"
	"manent.dev/manent/service"
)

// testPlugin is a hand-written plugin whose Deploy behaviour each test
// chooses: fail, block, record when it ran.
type testPlugin struct {
	mu     sync.Mutex
	deploy func(ctx context.Context, req deploy.PluginRequest) error
	// rollback, when set, is what Rollback does.
	rollback func(ctx context.Context, req deploy.PluginRequest) error
	calls    map[string]int
	spans    map[string][2]time.Time
	// activations counts Activate calls per deploy.
	activations map[string]int
	// outputs, when set, are what Deploy returns.
	outputs map[string]string
	// succeeded is PluginRequest.Succeeded of each deploy's Activate.
	succeeded map[string][]string
}

func (p *testPlugin) Name() string { return "test" }
func (p *testPlugin) ValidateTargets([]deploy.Target, map[string]string) []deploy.FieldError {
	return nil
}

func (p *testPlugin) Deploy(ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	p.mu.Lock()
	p.calls[req.DeploymentID]++
	fn := p.deploy
	p.mu.Unlock()
	start := time.Now()
	var err error
	if fn != nil {
		err = fn(ctx, req)
	}
	p.mu.Lock()
	p.spans[req.DeploymentID] = [2]time.Time{start, time.Now()}
	p.mu.Unlock()
	out := map[string]string{"ran": "yes"}
	if p.outputs != nil {
		out = p.outputs
	}
	return deploy.Result{Outputs: out}, err
}

func (p *testPlugin) Activate(_ context.Context, req deploy.PluginRequest) (deploy.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.activations[req.DeploymentID]++
	p.succeeded[req.DeploymentID] = req.Succeeded
	return deploy.Result{}, nil
}
func (p *testPlugin) Checkpoint(context.Context, deploy.PluginRequest) (deploy.Checkpoint, error) {
	return deploy.Checkpoint{}, nil
}
func (p *testPlugin) Rollback(ctx context.Context, req deploy.PluginRequest, _ deploy.Checkpoint) (deploy.Result, error) {
	p.mu.Lock()
	fn := p.rollback
	p.mu.Unlock()
	if fn != nil {
		return deploy.Result{}, fn(ctx, req)
	}
	return deploy.Result{}, nil
}

func (p *testPlugin) callCount(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

func (p *testPlugin) activationCount(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.activations[id]
}

func (p *testPlugin) span(id string) [2]time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spans[id]
}

// core is the service with its engine, as the server wires them: tests
// call the service's methods and the engine's (Shutdown, Drain) on it.
type core struct {
	*service.Service
	*engine.Engine
}

type env struct {
	t      *testing.T
	eng    core
	store  *postgres.Store
	events *postgres.Events
	plugin *testPlugin
	dir    string
	url    string
	ctx    context.Context
}

func newTestPlugin() *testPlugin {
	return &testPlugin{calls: map[string]int{}, spans: map[string][2]time.Time{}, activations: map[string]int{},
		succeeded: map[string][]string{}}
}

const policy = `
p, role:deployer, demo, *, deployment.submit
p, role:deployer, demo, *, deployment.dry-run
p, role:deployer, demo, *, deployment.read
p, role:deployer, demo, *, deployment.cancel
p, role:viewer, demo, *, deployment.read
p, role:approver, demo, *, deployment.approve
p, role:approver, demo, *, deployment.read
g, token:ci, role:deployer, demo
g, token:ci, role:approver, demo
g, token:ops1, role:approver, demo
g, token:ops2, role:approver, demo
p, role:lead, demo, *, deployment.approve
p, role:lead, demo, *, deployment.read
g, token:lead, role:lead, demo
p, role:admin, *, *, admin
g, token:admin, role:admin, *
g, token:viewer, role:viewer, demo
p, role:deployer, acme, *, deployment.submit
p, role:deployer, acme, *, deployment.read
g, token:mallory, role:deployer, acme
p, role:releaser, demo, *, deployment.submit
p, role:releaser, demo, *, deployment.read
p, role:releaser, demo, *, deployment.rollback
g, token:rel, role:releaser, demo
`

// newEnv starts an engine on a fresh database with two environments
// (staging, prod) of application app on the test plugin, and web/staging
// on the local plugin.
func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, envOptions{})
}

// envOptions lets a test start a second worker on the same database.
type envOptions struct {
	url, dir   string
	executorID string
	engineYAML string
	plugin     *testPlugin
	governor   deploy.Governor
	changes    map[string]deploy.ChangeConnector
	// rules builds the governance of the configuration (engineYAML's governance section).
	rules bool
	// steps replaces the pipeline's steps (YAML flow mappings, one per line).
	steps []string
	// plugins are added to the test and local plugins.
	plugins []deploy.Plugin
	// workerConcurrency is queues.worker_concurrency (16 unless set).
	workerConcurrency int
	// rootCAs are trusted by the steps' outbound requests (a TLS test
	// server's certificate).
	rootCAs *x509.CertPool
	// httpStepRoots are the only authorities HTTP steps trust, as the
	// server gives them (the system's and pipeline.custom.ca_file's).
	httpStepRoots *x509.CertPool
	// custom is pipeline.custom, a YAML flow mapping.
	custom string
	// specs checks the custom steps' specifications (service and engine).
	specs *specsig.Keyring
	// noWorker starts a process that only submits: what it enqueues stays
	// in DBOS until a worker takes it.
	noWorker bool
	// chat is the chat side of the events, given before Launch.
	chat engine.ChatNotifier
}

func newEnvWith(t *testing.T, o envOptions) *env {
	t.Helper()
	dir := o.dir
	if dir == "" {
		dir = t.TempDir()
	}
	if o.executorID == "" {
		o.executorID = "test"
	}
	for _, e := range []string{"staging", "prod", "qa"} {
		writeFile(t, filepath.Join(dir, "envconfig/demo/app", e+".yml"), "plugin: test\ntargets: [{path: /nowhere}]\n")
	}
	writeFile(t, filepath.Join(dir, "envconfig/demo/web/staging.yml"), "plugin: local\ntargets: [{path: targets/web}]\n")
	// chain: no targets of its own, for deploys that import theirs.
	writeFile(t, filepath.Join(dir, "envconfig/demo/app/chain.yml"), "plugin: test\n")
	writeArtifact(t, filepath.Join(dir, "artifacts/app-1.tar.gz"))
	cfgText := fmt.Sprintf(`
server: {default_tenant: demo, work_dir: %q, executor_id: %s}
%s
artifacts: {sources: ["file:"], file_root: artifacts}
pipeline:
  retry_interval: 10ms
  retry_max_interval: 20ms
  custom: %s
  steps:
%s
queues: {poll_interval: 20ms, worker_concurrency: %d, environments: {"demo/app/qa": 2}}
`, filepath.Join(dir, "work", o.executorID), o.executorID, o.engineYAML, cmp.Or(o.custom, "{}"), pipelineSteps(o.steps),
		cmp.Or(o.workerConcurrency, 16))
	cfg, err := config.Parse([]byte(cfgText), dir)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	url := o.url
	if url == "" {
		url = pgtest.URL(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	db := pgtest.Migrated(t, url)
	store := postgres.NewStore(db)
	events := postgres.NewEvents(url, slog.Default())
	t.Cleanup(events.Close)
	az, err := authz.New("", policy)
	if err != nil {
		t.Fatal(err)
	}
	if o.rules {
		gov, err := governance.FromConfig(cfg.Governance, store)
		if err != nil {
			t.Fatal(err)
		}
		o.governor = gov
	}
	plugin := o.plugin
	if plugin == nil {
		plugin = newTestPlugin()
	}
	plugins := append([]deploy.Plugin{plugin, local.New(dir)}, o.plugins...)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("executor", o.executorID)
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Governor: o.governor,
		Changes: o.changes, Plugins: plugins, Specs: o.specs, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(ctx, engine.Options{
		Config: cfg, Store: store, Recorder: postgres.NewRecorder(), DatabaseURL: url, Worker: !o.noWorker, Changes: o.changes,
		Plugins: plugins, Specs: o.specs, Logger: logger, RootCAs: o.rootCAs, HTTPStepRootCAs: o.httpStepRoots,
	})
	if err != nil {
		t.Fatal(err)
	}
	svc.Use(eng)
	eng.Use(svc)
	if o.chat != nil {
		eng.UseChat(o.chat)
	}
	if err := eng.Launch(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Shutdown(3 * time.Second) })
	return &env{t: t, eng: core{svc, eng}, store: store, events: events, plugin: plugin, dir: dir, url: url,
		ctx: deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:ci"})}
}

// defaultSteps is the pipeline of the tests unless they give theirs.
var defaultSteps = []string{
	"{name: secrets, mode: mandatory}",
	"{name: artifacts, mode: mandatory}",
	"{name: qa, mode: mandatory}",
	"{name: deploy, mode: mandatory, max_retries: 2}",
	"{name: post-test, mode: optional}",
	"{name: activation, mode: optional}",
}

func pipelineSteps(steps []string) string {
	if steps == nil {
		steps = defaultSteps
	}
	var b strings.Builder
	for _, s := range steps {
		b.WriteString("    - " + s + "\n")
	}
	return b.String()
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func descriptorFor(id, app, environment string) string {
	return fmt.Sprintf(`apiVersion: manent/v1
id: %s
application: %s
environment: %s
artifact: {type: application, name: %s, version: "1.0.0", source: "file:app-1.tar.gz"}
`, id, app, environment, app)
}

func (e *env) submit(id, app, environment string) *deploy.Deployment {
	e.t.Helper()
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor(id, app, environment)), deploy.SubmitOptions{})
	if err != nil {
		e.t.Fatalf("submit %s: %v", id, err)
	}
	return &sub.Deployment
}

// wait blocks until the deploy satisfies cond, woken by its events.
func (e *env) wait(id string, cond func(*deploy.Deployment) bool) *deploy.Deployment {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 90*time.Second)
	defer cancel()
	ch := e.events.Subscribe(ctx, id)
	for {
		d, err := e.store.Get(ctx, id)
		if err == nil && cond(d) {
			return d
		}
		select {
		case <-ch:
		case <-ctx.Done():
			e.t.Fatalf("deploy %s: condition not reached (last: %+v, %v)", id, d, err)
		}
	}
}

func (e *env) waitState(id string, s deploy.State) *deploy.Deployment {
	return e.wait(id, func(d *deploy.Deployment) bool {
		if d.State.Terminal() && d.State != s {
			e.t.Fatalf("deploy %s ended %s (%s), want %s", id, d.State, d.Error, s)
		}
		return d.State == s
	})
}

func step(d *deploy.Deployment, name string) deploy.Step {
	for _, s := range d.Steps {
		if s.Name == name {
			return s
		}
	}
	return deploy.Step{}
}

func TestDeployReachesSuccess(t *testing.T) {
	e := newEnv(t)
	writeArtifact(t, filepath.Join(e.dir, "artifacts/web-1.tar.gz"))
	sub, err := e.eng.Submit(e.ctx, []byte(`apiVersion: manent/v1
id: web-1
application: web
environment: staging
artifact: {type: application, name: web, version: "1.0.0", source: "file:web-1.tar.gz"}
`), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Created || sub.Deployment.State != deploy.StateEnqueued {
		t.Fatalf("submission = %+v", sub)
	}
	d := e.waitState("web-1", deploy.StateSuccess)
	for _, name := range []string{"config", "secrets", "artifacts", "qa", "deploy", "post-test", "activation", "cleanup"} {
		s := step(d, name)
		if s.State != deploy.StepSuccess || s.Attempts != 1 {
			t.Errorf("step %s: state %s attempts %d", name, s.State, s.Attempts)
		}
	}
	if d.SHA256 == "" || step(d, "artifacts").Output["sha256"] != d.SHA256 {
		t.Errorf("sha256 %q not recorded", d.SHA256)
	}
	cur, err := os.Readlink(filepath.Join(e.dir, "targets/web/current"))
	if err != nil || cur != "releases/1.0.0" {
		t.Fatalf("current -> %q, %v", cur, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "work", "web-1")); !os.IsNotExist(err) {
		t.Errorf("working directory not removed: %v", err)
	}
	inv, err := e.store.Inventory(e.ctx, "demo")
	if err != nil || len(inv) != 1 || inv[0].DeploymentID != "web-1" || inv[0].SHA256 != d.SHA256 {
		t.Fatalf("inventory = %+v, %v", inv, err)
	}
	lines, err := e.store.Logs(e.ctx, "web-1", 0, 1000)
	if err != nil || len(lines) == 0 {
		t.Fatalf("logs: %d lines, %v", len(lines), err)
	}
}

func TestPermanentErrorFailsAtOnce(t *testing.T) {
	e := newEnv(t)
	e.plugin.deploy = func(context.Context, deploy.PluginRequest) error {
		return deploy.Permanentf("bad parameter")
	}
	e.submit("perm-1", "app", "staging")
	d := e.waitState("perm-1", deploy.StateError)
	if s := step(d, "deploy"); s.State != deploy.StepError || s.Attempts != 1 || !strings.Contains(s.Error, "bad parameter") {
		t.Fatalf("deploy step = %+v", s)
	}
	if n := e.plugin.callCount("perm-1"); n != 1 {
		t.Fatalf("plugin called %d times, want 1", n)
	}
	if s := step(d, "activation"); s.State != deploy.StepSkipped {
		t.Fatalf("activation = %s, want SKIPPED", s.State)
	}
	if !strings.Contains(d.Error, "bad parameter") {
		t.Fatalf("error = %q", d.Error)
	}
}

func TestTemporaryErrorIsRetried(t *testing.T) {
	e := newEnv(t)
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "flaky" && e.plugin.callCount("flaky") < 3 {
			return errors.New("connection reset")
		}
		if req.DeploymentID == "broken" {
			return errors.New("connection reset")
		}
		return nil
	}
	e.submit("flaky", "app", "staging")
	e.submit("broken", "app", "prod")
	d := e.waitState("flaky", deploy.StateSuccess)
	if s := step(d, "deploy"); s.Attempts != 3 || s.State != deploy.StepSuccess {
		t.Fatalf("flaky deploy step = %+v, want 3 attempts", s)
	}
	d = e.waitState("broken", deploy.StateError)
	// max_retries 2: one run and two retries.
	if s := step(d, "deploy"); s.Attempts != 3 || s.State != deploy.StepError {
		t.Fatalf("broken deploy step = %+v, want 3 attempts", s)
	}
	if n := e.plugin.callCount("broken"); n != 3 {
		t.Fatalf("plugin called %d times, want 3", n)
	}
}

func TestOneDeployPerEnvironment(t *testing.T) {
	e := newEnv(t)
	started := map[string]chan struct{}{}
	for _, id := range []string{"s1", "s2", "p1"} {
		started[id] = make(chan struct{})
	}
	release := make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		close(started[req.DeploymentID])
		switch req.DeploymentID {
		case "s1":
			// s1 holds staging until prod's deploy has started: two
			// environments run side by side or this never returns.
			select {
			case <-started["p1"]:
			case <-time.After(60 * time.Second):
				return deploy.Permanentf("p1 never started while s1 ran")
			}
			<-release
		case "p1":
			<-release
		}
		return nil
	}
	e.submit("s1", "app", "staging")
	<-started["s1"]
	e.submit("s2", "app", "staging")
	e.submit("p1", "app", "prod")
	<-started["p1"]
	if d, _ := e.store.Get(e.ctx, "s2"); d.State != deploy.StateEnqueued {
		t.Fatalf("s2 is %s while s1 runs on the same environment", d.State)
	}
	close(release)
	for _, id := range []string{"s1", "s2", "p1"} {
		e.waitState(id, deploy.StateSuccess)
	}
	s1, s2, p1 := e.plugin.span("s1"), e.plugin.span("s2"), e.plugin.span("p1")
	d1, _ := e.store.Get(e.ctx, "s1")
	d2, _ := e.store.Get(e.ctx, "s2")
	if !d1.FinishedAt.Before(*d2.StartedAt) && !d1.FinishedAt.Equal(*d2.StartedAt) {
		t.Fatalf("staging deploys overlap: s1 %v–%v, s2 started %v", d1.StartedAt, d1.FinishedAt, d2.StartedAt)
	}
	if !s1[1].Before(s2[0]) {
		t.Fatalf("staging plugin calls overlap: s1 %v, s2 %v", s1, s2)
	}
	if !p1[0].Before(s1[1]) || !s1[0].Before(p1[1]) {
		t.Fatalf("staging and prod did not run in parallel: s1 %v, p1 %v", s1, p1)
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t)
	running := make(chan struct{})
	release := make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "c1" {
			close(running)
			<-release
		}
		return nil
	}
	e.submit("c1", "app", "staging")
	<-running
	e.submit("c2", "app", "staging")

	// Queued: cancelled at once, never runs.
	d, err := e.eng.Cancel(e.ctx, "c2")
	if err != nil || d.State != deploy.StateCancelled {
		t.Fatalf("cancel queued: %+v, %v", d, err)
	}
	if d.CancelledBy != "token:ci" || d.Error != "cancelled by token:ci while ENQUEUED" {
		t.Fatalf("cancelled queued deploy: by %q, error %q", d.CancelledBy, d.Error)
	}
	// Running: stops at the start of the next step; the current one
	// completes. Who cancelled it, and where, is in its status and in the
	// audit log of its end.
	admin := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:admin"})
	d, err = e.eng.Cancel(admin, "c1")
	if err != nil || d.State != deploy.StatePending || !d.CancelRequested || d.CancelledBy != "token:admin" {
		t.Fatalf("cancel running: %+v, %v", d, err)
	}
	close(release)
	d = e.waitState("c1", deploy.StateCancelled)
	if want := "cancelled by token:admin after step deploy, before post-test"; d.Error != want || d.CancelledBy != "token:admin" {
		t.Fatalf("cancelled run: error %q, by %q; want %q by token:admin", d.Error, d.CancelledBy, want)
	}
	if by := e.auditActors("deployment.finish", "c1"); len(by) != 1 || by[0] != "token:admin" {
		t.Fatalf("deployment.finish of c1 by %q, want token:admin", by)
	}
	if s := step(d, "deploy"); s.State != deploy.StepSuccess {
		t.Fatalf("deploy step = %s, want SUCCESS (the step in progress completes)", s.State)
	}
	for _, name := range []string{"post-test", "activation"} {
		if s := step(d, name); s.State != deploy.StepCancelled {
			t.Fatalf("%s = %s, want CANCELLED", name, s.State)
		}
	}
	if s := step(d, "cleanup"); s.State != deploy.StepSuccess {
		t.Fatalf("cleanup = %s, want SUCCESS", s.State)
	}
	if n := e.plugin.callCount("c2"); n != 0 {
		t.Fatalf("cancelled queued deploy ran %d times", n)
	}
	if _, err := e.eng.Cancel(e.ctx, "c1"); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("cancel finished deploy: %v, want CONFLICT", err)
	}
	viewer := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:viewer"})
	e.submit("c3", "app", "prod")
	if _, err := e.eng.Cancel(viewer, "c3"); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("viewer cancel: %v, want FORBIDDEN", err)
	}
	e.waitState("c3", deploy.StateSuccess)
}

func TestResubmitSameID(t *testing.T) {
	e := newEnv(t)
	first := e.submit("same", "app", "staging")
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("same", "app", "staging")), deploy.SubmitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Created || sub.Deployment.ID != first.ID || !sub.Deployment.CreatedAt.Equal(first.CreatedAt) {
		t.Fatalf("resubmit = %+v, want the existing deploy", sub)
	}
	e.waitState("same", deploy.StateSuccess)
	if n := e.plugin.callCount("same"); n != 1 {
		t.Fatalf("deploy ran %d times, want once", n)
	}
}

func TestSubmitRefusals(t *testing.T) {
	e := newEnv(t)
	viewer := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:viewer"})
	tests := []struct {
		name string
		ctx  context.Context
		doc  string
		code deploy.Code
	}{
		{"invalid", e.ctx, "apiVersion: manent/v2\nbogus: 1\n", deploy.EINVALID},
		{"anonymous", context.Background(), descriptorFor("r1", "app", "staging"), deploy.EUNAUTHENTICATED},
		{"viewer", viewer, descriptorFor("r2", "app", "staging"), deploy.EFORBIDDEN},
		{"source", e.ctx, strings.Replace(descriptorFor("r3", "app", "staging"), "file:app-1.tar.gz", "https://evil.example/x.tgz", 1), deploy.EUNPROCESSABLE},
		{"no envconfig", e.ctx, descriptorFor("r4", "app", "nowhere"), deploy.EUNPROCESSABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.eng.Submit(tt.ctx, []byte(tt.doc), deploy.SubmitOptions{})
			if got := deploy.ErrorCode(err); got != tt.code {
				t.Fatalf("got %v (%v), want %s", got, err, tt.code)
			}
		})
	}
	page, err := e.store.List(e.ctx, deploy.ListFilter{})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("refused submits stored %d deploys (%v)", len(page.Items), err)
	}
}

func TestValidateOnlyStoresNothing(t *testing.T) {
	e := newEnv(t)
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("v1", "app", "staging")), deploy.SubmitOptions{ValidateOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Validated || len(sub.Deployment.Plan.Steps) != 8 || sub.Deployment.Effective.Plugin != "test" {
		t.Fatalf("validation = %+v", sub)
	}
	if _, err := e.store.Get(e.ctx, "v1"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Fatalf("validated deploy stored: %v", err)
	}
}
