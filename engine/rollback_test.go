package engine_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"manent.dev/manent/deploy"
)

// rollbackSteps puts post-test after activation: the health check looks at
// the release in service, and its failure has activation to undo.
var rollbackSteps = []string{
	"{name: secrets, mode: mandatory}",
	"{name: artifacts, mode: mandatory}",
	"{name: qa, mode: mandatory}",
	"{name: deploy, mode: mandatory, max_retries: 0}",
	"{name: activation, mode: optional}",
	"{name: post-test, mode: optional, max_retries: 0}",
}

// writeRelease writes the artifact web-<version>.tar.gz with an index.html
// of its own.
func writeRelease(t *testing.T, dir, version string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("<h1>web " + version + "</h1>\n")
	if err := tw.WriteHeader(&tar.Header{Name: "index.html", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "artifacts", "web-"+version+".tar.gz"), buf.String())
}

func webDescriptor(id, environment, version, extra string) string {
	return fmt.Sprintf(`apiVersion: manent/v1
id: %s
application: web
environment: %s
artifact: {type: application, name: web, version: %q, source: "file:web-%s.tar.gz"}
%s`, id, environment, version, version, extra)
}

// rollbackEnv is an engine whose environment web/<name> deploys to two
// local targets, with a health check that answers what status holds (and
// runs before, when set, before answering).
type rollbackEnv struct {
	*env
	name    string
	status  atomic.Int32
	before  atomic.Pointer[func()]
	targets []string
}

func newRollbackEnv(t *testing.T, name, rollback string) *rollbackEnv {
	t.Helper()
	r := &rollbackEnv{name: name}
	r.status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if f := r.before.Load(); f != nil {
			(*f)()
		}
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(srv.Close)
	r.env = newEnvWith(t, envOptions{steps: rollbackSteps})
	r.targets = []string{filepath.Join(r.dir, "targets", name, "a"), filepath.Join(r.dir, "targets", name, "b")}
	conf := fmt.Sprintf("plugin: local\ntargets: [{path: %q}, {path: %q}]\nhealth: [{url: %q}]\n%s",
		r.targets[0], r.targets[1], srv.URL+"/health", rollback)
	writeFile(t, filepath.Join(r.dir, "envconfig/demo/web", name+".yml"), conf)
	for _, v := range []string{"1.0.0", "2.0.0"} {
		writeRelease(t, r.dir, v)
	}
	return r
}

func (r *rollbackEnv) deploy(id, version, extra string, want deploy.State) *deploy.Deployment {
	r.t.Helper()
	if _, err := r.eng.Submit(r.ctx, []byte(webDescriptor(id, r.name, version, extra)), deploy.SubmitOptions{}); err != nil {
		r.t.Fatalf("submit %s: %v", id, err)
	}
	return r.waitState(id, want)
}

// current is the release each target has in service.
func (r *rollbackEnv) current() []string {
	r.t.Helper()
	var out []string
	for _, dir := range r.targets {
		link, err := os.Readlink(filepath.Join(dir, "current"))
		if err != nil {
			out = append(out, "")
			continue
		}
		out = append(out, filepath.Base(link))
	}
	return out
}

func (r *rollbackEnv) releasePresent(version string) bool {
	for _, dir := range r.targets {
		if _, err := os.Stat(filepath.Join(dir, "releases", version)); err == nil {
			return true
		}
	}
	return false
}

func (r *rollbackEnv) inventory() deploy.InventoryEntry {
	r.t.Helper()
	inv, err := r.store.Inventory(r.ctx, "demo")
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range inv {
		if e.Application == "web" && e.Environment == r.name {
			return e
		}
	}
	return deploy.InventoryEntry{}
}

func names(steps []deploy.Step) []string {
	out := []string{}
	for _, s := range steps {
		out = append(out, s.Key().Name()+"="+string(s.State))
	}
	return out
}

func TestAutomaticRollback(t *testing.T) {
	const on = "rollback: {enabled: true, on: [deploy, activation, post-test]}\n"
	tests := []struct {
		name     string
		rollback string
		// broken, when set, runs in the failing deploy's health check.
		broken        func(r *rollbackEnv)
		wantRollback  string
		wantSteps     []string
		wantCurrent   string
		wantInService string
	}{
		{
			name: "a failing post-test undoes activation, then deploy", rollback: on,
			wantRollback: deploy.RollbackCompleted,
			wantSteps:    []string{"rollback:activation=SUCCESS", "rollback:deploy=SUCCESS"},
			wantCurrent:  "1.0.0", wantInService: "one",
		},
		{
			name: "a failing compensation stops the sequence", rollback: on,
			// The checkpoint's release disappears: activation cannot be undone.
			broken: func(r *rollbackEnv) {
				if err := os.RemoveAll(filepath.Join(r.targets[0], "releases", "1.0.0")); err != nil {
					r.t.Error(err)
				}
			},
			wantRollback: deploy.RollbackFailed,
			wantSteps:    []string{"rollback:activation=ERROR"},
			// What is live is the new release, and so says the inventory.
			wantCurrent: "2.0.0", wantInService: "two",
		},
		{
			name: "rollback off", rollback: "",
			wantRollback: deploy.RollbackDisabled, wantSteps: []string{},
			wantCurrent: "2.0.0", wantInService: "two",
		},
		{
			name: "a step not in rollback.on", rollback: "rollback: {enabled: true, on: [deploy]}\n",
			wantRollback: deploy.RollbackNotNeeded, wantSteps: []string{},
			wantCurrent: "2.0.0", wantInService: "two",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRollbackEnv(t, fmt.Sprintf("rb%d", i), tt.rollback)
			first := r.deploy("one", "1.0.0", "", deploy.StateSuccess)
			if first.Rollback != deploy.RollbackNotNeeded {
				t.Errorf("a success: rollback %q, want not_needed", first.Rollback)
			}
			r.status.Store(http.StatusNotFound)
			if tt.broken != nil {
				f := func() { tt.broken(r) }
				r.before.Store(&f)
			}
			d := r.deploy("two", "2.0.0", "", deploy.StateError)
			if d.Rollback != tt.wantRollback {
				t.Errorf("rollback = %q, want %q", d.Rollback, tt.wantRollback)
			}
			if got := names(d.Compensations()); strings.Join(got, ",") != strings.Join(tt.wantSteps, ",") {
				t.Errorf("compensations = %v, want %v", got, tt.wantSteps)
			}
			for _, cur := range r.current() {
				if cur != tt.wantCurrent {
					t.Errorf("current = %v, want %s on every target", r.current(), tt.wantCurrent)
					break
				}
			}
			if tt.wantRollback == deploy.RollbackCompleted && r.releasePresent("2.0.0") {
				t.Errorf("release 2.0.0 still on a target after rollback:deploy")
			}
			inv := r.inventory()
			if inv.DeploymentID != tt.wantInService {
				t.Errorf("inventory names %q, want %q", inv.DeploymentID, tt.wantInService)
			}
			lf := inv.LastFailure
			if lf == nil || lf.DeploymentID != "two" || lf.Step != deploy.StepPostTest || lf.Rollback != tt.wantRollback || lf.Error == "" {
				t.Errorf("last failure = %+v", lf)
			}
			st := deploy.NewStatus(d)
			if st.Rollback == nil || st.Rollback.State != tt.wantRollback || len(st.Rollback.Steps) != len(tt.wantSteps) {
				b, _ := json.Marshal(st.Rollback)
				t.Errorf("status rollback = %s", b)
			}
			checkpoints := 0
			for _, s := range st.Steps {
				if s.Kind == deploy.KindCheckpoint {
					checkpoints++
				}
			}
			if want := map[bool]int{true: 2, false: 0}[tt.rollback != ""]; checkpoints != want {
				t.Errorf("%d checkpoints in the status, want %d", checkpoints, want)
			}
		})
	}
}

// TestExportsCheckedBeforeActivation: a value outside its pattern fails the
// deploy before anything is switched, with or without rollback: the targets
// and the inventory keep the release in service.
func TestExportsCheckedBeforeActivation(t *testing.T) {
	exports := "exports:\n  release: {from: deploy.release, pattern: \"9\\\\..*\"}\n"
	for _, tt := range []struct {
		name, rollback, want string
	}{
		{"rollback on", "rollback: {enabled: true}\n", deploy.RollbackCompleted},
		{"rollback off", "", deploy.RollbackDisabled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRollbackEnv(t, "ex"+strings.ReplaceAll(tt.name, " ", ""), tt.rollback)
			r.deploy("one", "1.0.0", "", deploy.StateSuccess)
			d := r.deploy("two", "2.0.0", exports, deploy.StateError)
			if !strings.Contains(d.Error, "pattern") {
				t.Errorf("error = %q", d.Error)
			}
			if d.Rollback != tt.want {
				t.Errorf("rollback = %q, want %q", d.Rollback, tt.want)
			}
			if a := step(d, deploy.StepActivation); a.State != deploy.StepSkipped {
				t.Errorf("activation %s, want SKIPPED", a.State)
			}
			for _, cur := range r.current() {
				if cur != "1.0.0" {
					t.Fatalf("current = %v, want 1.0.0", r.current())
				}
			}
			if inv := r.inventory(); inv.DeploymentID != "one" || inv.LastFailure == nil || inv.LastFailure.Step != "exports" {
				t.Errorf("inventory = %+v (last failure %+v)", inv, inv.LastFailure)
			}
		})
	}
}

// TestReleaseRollbackUndoesMembers: a release with onFailure: rollback
// whose first deploy succeeded (with checkpoints: its environment's
// rollback is on) and whose second failed undoes the first with its own
// compensations: its environment gets exactly what it had before, here the
// release in service before the release began.
func TestReleaseRollbackUndoesMembers(t *testing.T) {
	r := newRollbackEnv(t, "first", "rollback: {enabled: true}\n")
	r.ctx = deploy.WithIdentity(r.ctx, deploy.Identity{Subject: "token:admin"})
	r.deploy("before", "1.0.0", "", deploy.StateSuccess)
	// The second member's environment fails its health check.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	t.Cleanup(bad.Close)
	second := filepath.Join(r.dir, "targets", "second")
	writeFile(t, filepath.Join(r.dir, "envconfig/demo/web/second.yml"), fmt.Sprintf(
		"plugin: local\ntargets: [{path: %q}]\nhealth: [{url: %q}]\nrollback: {enabled: true}\n", second, bad.URL))
	member := func(name, env, after string) string {
		m := fmt.Sprintf("  - name: %s\n    descriptor: {apiVersion: manent/v1, id: rel-%s, application: web, environment: %s, "+
			"artifact: {type: application, name: web, version: \"2.0.0\", source: \"file:web-2.0.0.tar.gz\"}}\n", name, name, env)
		if after != "" {
			m += "    after: [" + after + "]\n"
		}
		return m
	}
	doc := "apiVersion: manent/v1\nkind: Release\nid: rel\nonFailure: rollback\ndeploys:\n" +
		member("one", "first", "") + member("two", "second", "one")
	if _, err := r.eng.SubmitRelease(r.ctx, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	rel := waitRelease(t, r.env, "rel")
	if rel.State != deploy.ReleaseError {
		t.Fatalf("release %s (%s)", rel.State, rel.Error)
	}
	states := map[string]string{}
	for _, m := range rel.Deploys {
		states[m.Name] = string(m.State) + "/" + m.RollbackState
	}
	if states["one"] != "SUCCESS/SUCCESS" || !strings.HasPrefix(states["two"], "ERROR") {
		t.Fatalf("members = %v", states)
	}
	one, err := r.store.Get(r.ctx, "rel-one")
	if err != nil {
		t.Fatal(err)
	}
	if one.Rollback != deploy.RollbackCompleted || strings.Join(names(one.Compensations()), ",") != "rollback:activation=SUCCESS,rollback:deploy=SUCCESS" {
		t.Fatalf("rel-one: rollback %q, compensations %v", one.Rollback, names(one.Compensations()))
	}
	for _, cur := range r.current() {
		if cur != "1.0.0" {
			t.Fatalf("current = %v, want 1.0.0 back", r.current())
		}
	}
	if r.releasePresent("2.0.0") {
		t.Error("the release's 2.0.0 is still on the targets")
	}
	if inv := r.inventory(); inv.DeploymentID != "before" {
		t.Errorf("inventory names %q, want the deploy in service before the release", inv.DeploymentID)
	}
}

// releaseMember is a member of a release of web 2.0.0 in env.
func releaseMember(name, env, artifactType, after string) string {
	m := fmt.Sprintf("  - name: %s\n    descriptor: {apiVersion: manent/v1, id: rel-%s, application: web, environment: %s, "+
		"artifact: {type: %s, name: web, version: \"2.0.0\", source: \"file:web-2.0.0.tar.gz\"}}\n", name, name, env, artifactType)
	if after != "" {
		m += "    after: [" + after + "]\n"
	}
	return m
}

// failingSecond writes the environment web/second, whose health check
// answers 404 once failNow is closed (at once when it is nil).
func failingSecond(t *testing.T, e *env, failNow chan struct{}) {
	t.Helper()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if failNow != nil {
			<-failNow
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(bad.Close)
	t.Cleanup(func() {
		if failNow != nil {
			select {
			case <-failNow:
			default:
				close(failNow)
			}
		}
	})
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/web/second.yml"), fmt.Sprintf(
		"plugin: local\ntargets: [{path: %q}]\nhealth: [{url: %q}]\nrollback: {enabled: true}\n",
		filepath.Join(e.dir, "targets", "second"), bad.URL))
}

// TestReleaseUndoRefusesAMigration: a migration is not rolled back by a
// release, with its compensations or otherwise: the sequence stops there.
func TestReleaseUndoRefusesAMigration(t *testing.T) {
	r := newRollbackEnv(t, "first", "rollback: {enabled: true}\n")
	r.ctx = deploy.WithIdentity(r.ctx, deploy.Identity{Subject: "token:admin"})
	r.deploy("before", "1.0.0", "", deploy.StateSuccess)
	failingSecond(t, r.env, nil)
	doc := "apiVersion: manent/v1\nkind: Release\nid: rel\nonFailure: rollback\ndeploys:\n" +
		releaseMember("one", "first", "migration", "") + releaseMember("two", "second", "application", "one")
	if _, err := r.eng.SubmitRelease(r.ctx, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	rel := waitRelease(t, r.env, "rel")
	one := rel.Deploys[0]
	if one.RollbackState != deploy.RollbackRefused || !strings.Contains(one.RollbackError, "artifact type migration cannot be rolled back") {
		t.Errorf("member one rollback %s (%s), want REFUSED for its artifact type", one.RollbackState, one.RollbackError)
	}
	d, err := r.store.Get(r.ctx, "rel-one")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Compensations()) != 0 || d.Rollback == deploy.RollbackCompleted {
		t.Errorf("rel-one compensated: rollback %q, %v", d.Rollback, names(d.Compensations()))
	}
	for _, cur := range r.current() {
		if cur != "2.0.0" {
			t.Errorf("current = %v, want the migration's 2.0.0 left in place", r.current())
		}
	}
}

// TestReleaseUndoOfADisplacedDeploy: a deploy of the environment put in
// service while the undo of a release's deploy waits for the environment
// leaves nothing to undo: the undo says so (SKIPPED), and the release ends.
func TestReleaseUndoOfADisplacedDeploy(t *testing.T) {
	// post-test before activation: the hotfix is not in service while its
	// health check holds it.
	steps := []string{
		"{name: secrets, mode: mandatory}",
		"{name: artifacts, mode: mandatory}",
		"{name: qa, mode: mandatory}",
		"{name: deploy, mode: mandatory, max_retries: 0}",
		"{name: post-test, mode: optional, max_retries: 0}",
		"{name: activation, mode: optional}",
	}
	var holdHot atomic.Bool
	hotGate := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-hotGate:
		default:
			close(hotGate)
		}
	})
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if holdHot.Load() {
			<-hotGate
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(health.Close)
	e := newEnvWith(t, envOptions{steps: steps})
	e.ctx = deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:admin"})
	first := filepath.Join(e.dir, "targets", "first")
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/web/first.yml"), fmt.Sprintf(
		"plugin: local\ntargets: [{path: %q}]\nhealth: [{url: %q}]\nrollback: {enabled: true}\n", first, health.URL))
	failNow := make(chan struct{})
	failingSecond(t, e, failNow)
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		writeRelease(t, e.dir, v)
	}
	submit := func(id, version string) {
		t.Helper()
		if _, err := e.eng.Submit(e.ctx, []byte(webDescriptor(id, "first", version, "")), deploy.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	submit("before", "1.0.0")
	e.waitState("before", deploy.StateSuccess)
	doc := "apiVersion: manent/v1\nkind: Release\nid: rel\nonFailure: rollback\ndeploys:\n" +
		releaseMember("one", "first", "application", "") + releaseMember("two", "second", "application", "one")
	if _, err := e.eng.SubmitRelease(e.ctx, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	e.waitState("rel-one", deploy.StateSuccess)
	// A hotfix of web/first holds in its health check, not yet in service.
	holdHot.Store(true)
	submit("hot", "3.0.0")
	e.wait("hot", func(d *deploy.Deployment) bool { return d.CurrentStep == deploy.StepPostTest })
	// rel-two fails: the release undoes rel-one, whose undo waits behind
	// the hotfix on the environment's partition.
	close(failNow)
	e.waitReleaseFor("rel", func(r *deploy.Release) bool { return r.Deploys[0].RollbackState == string(deploy.StatePending) })
	close(hotGate)
	e.waitState("hot", deploy.StateSuccess)
	rel := waitRelease(t, e, "rel")
	one := rel.Deploys[0]
	if rel.State != deploy.ReleaseError || one.RollbackState != deploy.RollbackSkipped ||
		!strings.Contains(one.RollbackError, "no longer the release in service") {
		t.Errorf("release %s, member one rollback %s (%s); want ERROR with one SKIPPED as displaced", rel.State, one.RollbackState, one.RollbackError)
	}
	d, err := e.store.Get(e.ctx, "rel-one")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Compensations()) != 0 {
		t.Errorf("rel-one compensated after the hotfix replaced it: %v", names(d.Compensations()))
	}
	if link, _ := os.Readlink(filepath.Join(first, "current")); filepath.Base(link) != "3.0.0" {
		t.Errorf("current of web/first is %q, want the hotfix 3.0.0", link)
	}
}
