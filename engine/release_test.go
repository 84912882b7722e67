package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// member is one deploy of a test release, on its own application in prod
// (test plugin), so that independent deploys run side by side.
type member struct {
	name, typ, version string
	after              []string
}

func releaseDoc(id, onFailure string, members ...member) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: manent/v1\nkind: Release\nid: %s\nonFailure: %s\ndeploys:\n", id, onFailure)
	for _, m := range members {
		typ, version := m.typ, m.version
		if typ == "" {
			typ = "application"
		}
		if version == "" {
			version = "2.0.0"
		}
		fmt.Fprintf(&b, "  - name: %s\n    descriptor: {apiVersion: manent/v1, application: %s, environment: prod, "+
			"artifact: {type: %s, name: %s, version: %q, source: \"file:app-1.tar.gz\"}}\n", m.name, m.name, typ, m.name, version)
		if len(m.after) > 0 {
			fmt.Fprintf(&b, "    after: [%s]\n", strings.Join(m.after, ", "))
		}
	}
	return b.String()
}

// shop is the spec's release: db → (api, worker), api → web.
func shop(db member) []member {
	db.name = "db"
	return []member{db, {name: "api", after: []string{"db"}}, {name: "worker", after: []string{"db"}}, {name: "web", after: []string{"api"}}}
}

// newReleaseEnv is an engine whose safety polls are too slow to matter:
// only the wake-ups move releases and their deploys on.
func newReleaseEnv(t *testing.T, apps ...string) *env {
	t.Helper()
	e := newEnvWith(t, envOptions{engineYAML: "chains: {poll_interval: 5m}"})
	for _, app := range apps {
		writeFile(t, filepath.Join(e.dir, "envconfig/demo", app, "prod.yml"), "plugin: test\ntargets: [{path: /nowhere}]\n")
	}
	return e
}

// gates holds plugin deploys until a test opens them, and fails the deploys
// it was told to fail.
type gates struct {
	mu      sync.Mutex
	hold    map[string]chan struct{}
	started map[string]chan struct{}
	fail    map[string]bool
	order   []string
}

func newGates(e *env, hold []string, fail ...string) *gates {
	g := &gates{hold: map[string]chan struct{}{}, started: map[string]chan struct{}{}, fail: map[string]bool{}}
	for _, id := range hold {
		g.hold[id] = make(chan struct{})
		g.started[id] = make(chan struct{})
	}
	for _, id := range fail {
		g.fail[id] = true
	}
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		g.mu.Lock()
		g.order = append(g.order, req.DeploymentID)
		h, s := g.hold[req.DeploymentID], g.started[req.DeploymentID]
		g.mu.Unlock()
		if h != nil {
			select {
			case <-s:
			default:
				close(s)
			}
			<-h
		}
		if g.fail[req.DeploymentID] {
			return deploy.Permanentf("broken on purpose")
		}
		return nil
	}
	return g
}

func (g *gates) ran() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.order)
}

// waitRelease blocks until the release ends, woken by its events and those
// of its deploys.
func (e *env) waitRelease(id string) *deploy.Release {
	e.t.Helper()
	return e.waitReleaseFor(id, func(r *deploy.Release) bool { return r.State.Terminal() })
}

// waitReleaseFor blocks until the release satisfies cond.
func (e *env) waitReleaseFor(id string, cond func(*deploy.Release) bool) *deploy.Release {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 90*time.Second)
	defer cancel()
	ch := e.events.Subscribe(ctx, "")
	for {
		r, err := e.store.GetRelease(ctx, id)
		if err == nil && cond(r) {
			return r
		}
		select {
		case <-ch:
		case <-ctx.Done():
			e.t.Fatalf("release %s: condition not reached (last: %+v, %v)", id, r, err)
		}
	}
}

func memberStates(r *deploy.Release) map[string]string {
	out := map[string]string{}
	for _, m := range r.Deploys {
		out[m.Name] = string(m.State)
		if m.RollbackState != "" {
			out[m.Name+".rollback"] = m.RollbackState
		}
	}
	return out
}

func (e *env) submitRelease(doc string) *deploy.ReleaseSubmission {
	e.t.Helper()
	sub, err := e.eng.SubmitRelease(e.ctx, []byte(doc))
	if err != nil {
		e.t.Fatalf("submit release: %v", err)
	}
	return sub
}

func TestReleaseReachesSuccess(t *testing.T) {
	e := newReleaseEnv(t, "db", "api", "worker", "web")
	g := newGates(e, nil)
	sub := e.submitRelease(releaseDoc("shop-ok", "stop", shop(member{})...))
	if !sub.Created || sub.Release.State != deploy.ReleasePending || len(sub.Release.Deploys) != 4 {
		t.Fatalf("submission = %+v", sub)
	}
	r := e.waitRelease("shop-ok")
	want := map[string]string{"db": "SUCCESS", "api": "SUCCESS", "worker": "SUCCESS", "web": "SUCCESS"}
	if got := memberStates(r); fmt.Sprint(got) != fmt.Sprint(want) || r.State != deploy.ReleaseSuccess || r.Error != "" {
		t.Fatalf("release %s %q, deploys %v, want SUCCESS %v", r.State, r.Error, got, want)
	}
	// Each deploy ran after its predecessors.
	ran := g.ran()
	pos := func(id string) int { return slices.Index(ran, id) }
	if pos("shop-ok.db") != 0 || pos("shop-ok.api") < 0 || pos("shop-ok.web") < pos("shop-ok.api") || pos("shop-ok.worker") < 0 {
		t.Fatalf("plugin ran %v", ran)
	}
	d, err := e.store.Get(e.ctx, "shop-ok.web")
	if err != nil || d.Release != "shop-ok" || !slices.Equal(d.Descriptor.After, []string{"shop-ok.api"}) {
		t.Fatalf("web = %+v, %v", d, err)
	}
	// Resubmitting returns the existing release and runs nothing again.
	again, err := e.eng.SubmitRelease(e.ctx, []byte(releaseDoc("shop-ok", "stop", shop(member{})...)))
	if err != nil || again.Created || again.Release.State != deploy.ReleaseSuccess {
		t.Fatalf("resubmit = %+v, %v", again, err)
	}
	if n := e.plugin.callCount("shop-ok.db"); n != 1 {
		t.Fatalf("db ran %d times", n)
	}
	page, err := e.eng.ListReleases(e.ctx, deploy.ReleaseFilter{})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != "shop-ok" {
		t.Fatalf("list = %+v, %v", page, err)
	}
	viewer := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:nobody"})
	if _, err := e.eng.GetRelease(viewer, "shop-ok"); deploy.ErrorCode(err) != deploy.ENOTFOUND {
		t.Fatalf("unreadable release: %v", err)
	}
}

// TestReleaseOnFailure: api fails in db → (api, worker) → web, while worker
// runs (held by its gate), under each onFailure value.
func TestReleaseOnFailure(t *testing.T) {
	tests := []struct {
		onFailure string
		want      map[string]string
	}{
		{deploy.OnFailureStop, map[string]string{"db": "SUCCESS", "api": "ERROR", "worker": "SUCCESS", "web": "CANCELLED"}},
		{deploy.OnFailureContinue, map[string]string{"db": "SUCCESS", "api": "ERROR", "worker": "SUCCESS", "web": "DEPENDENCY_FAILED"}},
		// The succeeded deploys are rolled back, most dependent first.
		{deploy.OnFailureRollback, map[string]string{"db": "SUCCESS", "db.rollback": "SUCCESS", "api": "ERROR",
			"worker": "SUCCESS", "worker.rollback": "SUCCESS", "web": "CANCELLED"}},
	}
	for _, tt := range tests {
		t.Run(tt.onFailure, func(t *testing.T) {
			e := newReleaseEnv(t, "db", "api", "worker", "web")
			e.ctx = deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:admin"})
			// Releases in service to roll back to.
			newGates(e, nil)
			for _, app := range []string{"db", "worker"} {
				e.submit(app+"-v1", app, "prod")
				e.waitState(app+"-v1", deploy.StateSuccess)
			}
			id := "shop-" + tt.onFailure
			g := newGates(e, []string{id + ".api", id + ".worker"}, id+".api")
			e.submitRelease(releaseDoc(id, tt.onFailure, shop(member{})...))
			<-g.started[id+".worker"]
			<-g.started[id+".api"]
			close(g.hold[id+".api"])
			// web ends (CANCELLED or DEPENDENCY_FAILED) while worker still runs.
			e.wait(id+".web", func(d *deploy.Deployment) bool { return d.State.Terminal() })
			close(g.hold[id+".worker"])
			r := e.waitRelease(id)
			if got := memberStates(r); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("deploys %v, want %v", got, tt.want)
			}
			if r.State != deploy.ReleaseError || !strings.Contains(r.Error, "api ended ERROR") {
				t.Fatalf("release %s %q", r.State, r.Error)
			}
			if n := e.plugin.callCount(id + ".web"); n != 0 {
				t.Fatalf("web ran")
			}
			if tt.onFailure == deploy.OnFailureRollback {
				// worker (most dependent) first, then db, back to their v1 artifact.
				ran := g.ran()
				w, d := slices.Index(ran, id+".rollback.worker"), slices.Index(ran, id+".rollback.db")
				if w < 0 || d < w {
					t.Fatalf("rollback order %v", ran)
				}
				rb, err := e.store.Get(e.ctx, id+".rollback.db")
				if err != nil || rb.Artifact.Version != "1.0.0" || rb.Release != id || len(rb.Descriptor.After) != 0 {
					t.Fatalf("db rollback = %+v, %v", rb, err)
				}
			}
		})
	}
}

// TestReleaseRollbackOrder: smoke, which nothing depends on, fails last:
// web, api and db are rolled back in that order; a migration cannot be
// rolled back and the sequence stops there.
func TestReleaseRollbackOrder(t *testing.T) {
	tests := []struct {
		name   string
		apiTyp string
		want   map[string]string
		order  []string
	}{
		{"all", "application", map[string]string{"db": "SUCCESS", "db.rollback": "SUCCESS", "api": "SUCCESS", "api.rollback": "SUCCESS",
			"web": "SUCCESS", "web.rollback": "SUCCESS", "smoke": "ERROR"}, []string{"web", "api", "db"}},
		{"migration", "migration", map[string]string{"db": "SUCCESS", "db.rollback": deploy.RollbackSkipped, "api": "SUCCESS",
			"api.rollback": deploy.RollbackRefused, "web": "SUCCESS", "web.rollback": "SUCCESS", "smoke": "ERROR"}, []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newReleaseEnv(t, "db", "api", "web", "smoke")
			e.ctx = deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:admin"})
			newGates(e, nil)
			for _, app := range []string{"db", "api", "web"} {
				typ := "application"
				if app == "api" {
					typ = tt.apiTyp
				}
				doc := strings.Replace(descriptorFor(app+"-v1", app, "prod"), "type: application", "type: "+typ, 1)
				if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
					t.Fatal(err)
				}
				e.waitState(app+"-v1", deploy.StateSuccess)
			}
			id := "order-" + tt.name
			g := newGates(e, nil, id+".smoke")
			e.submitRelease(releaseDoc(id, deploy.OnFailureRollback, member{name: "db"}, member{name: "api", typ: tt.apiTyp, after: []string{"db"}},
				member{name: "web", after: []string{"api"}}, member{name: "smoke", after: []string{"web"}}))
			r := e.waitRelease(id)
			if got := memberStates(r); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("deploys %v, want %v", got, tt.want)
			}
			var order []string
			for _, ran := range g.ran() {
				if name, ok := strings.CutPrefix(ran, id+".rollback."); ok {
					order = append(order, name)
				}
			}
			if !slices.Equal(order, tt.order) {
				t.Fatalf("rollbacks ran %v, want %v", order, tt.order)
			}
		})
	}
}

func TestReleaseRefusals(t *testing.T) {
	e := newReleaseEnv(t, "db", "api")
	ok := []member{{name: "db"}, {name: "api", after: []string{"db"}}}
	tests := []struct {
		name string
		ctx  context.Context
		doc  string
		code deploy.Code
		want string
	}{
		{"cycle", e.ctx, releaseDoc("r1", "stop", member{name: "db", after: []string{"api"}}, member{name: "api", after: []string{"db"}}), deploy.EINVALID, "cycle"},
		{"rollback needs deployment.rollback", e.ctx, releaseDoc("r2", "rollback", ok...), deploy.EFORBIDDEN, "deploys[1]: onFailure rollback"},
		{"every deploy is checked", e.ctx, strings.Replace(releaseDoc("r3", "stop", ok...), "application: api, environment: prod", "application: api, environment: nowhere", 1),
			deploy.EUNPROCESSABLE, "no environment configuration for demo/api/nowhere"},
		{"external dependency", e.ctx, strings.Replace(releaseDoc("r4", "stop", ok...), "application: db,", "application: db, after: [missing],", 1),
			deploy.EUNPROCESSABLE, `deploys[0].descriptor.after[0]: dependencies refused: no deploy "missing"`},
		{"anonymous", context.Background(), releaseDoc("r5", "stop", ok...), deploy.EUNAUTHENTICATED, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.eng.SubmitRelease(tt.ctx, []byte(tt.doc))
			if deploy.ErrorCode(err) != tt.code || !strings.Contains(deploy.ErrorMessage(err), tt.want) {
				t.Fatalf("got %v (%v), want %s with %q", deploy.ErrorCode(err), err, tt.code, tt.want)
			}
		})
	}
	page, err := e.store.ListReleases(e.ctx, deploy.ReleaseFilter{})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("refused releases stored: %+v, %v", page, err)
	}
}

func TestCancelRelease(t *testing.T) {
	e := newReleaseEnv(t, "db", "api")
	g := newGates(e, []string{"can.db"})
	e.submitRelease(releaseDoc("can", "stop", member{name: "db"}, member{name: "api", after: []string{"db"}}))
	<-g.started["can.db"]
	r, err := e.eng.CancelRelease(e.ctx, "can")
	if err != nil || r.State != deploy.ReleaseCancelled {
		t.Fatalf("cancel = %+v, %v", r, err)
	}
	close(g.hold["can.db"])
	e.waitState("can.db", deploy.StateCancelled)
	e.waitState("can.api", deploy.StateCancelled)
	if _, err := e.eng.CancelRelease(e.ctx, "can"); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("second cancel: %v", err)
	}
}

func TestManualRollback(t *testing.T) {
	e := newEnv(t)
	admin := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:admin"})
	if _, err := e.eng.RollbackTo(admin, deploy.RollbackRequest{Application: "app", Environment: "staging"}); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
		t.Fatalf("nothing in service: %v", err)
	}
	e.submit("v1", "app", "staging")
	e.waitState("v1", deploy.StateSuccess)
	doc := strings.Replace(descriptorFor("v2", "app", "staging"), `"1.0.0"`, `"2.0.0"`, 1)
	if _, err := e.eng.Submit(e.ctx, []byte(doc), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitState("v2", deploy.StateSuccess)
	if _, err := e.eng.RollbackTo(e.ctx, deploy.RollbackRequest{Application: "app", Environment: "staging"}); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("without deployment.rollback: %v", err)
	}
	sub, err := e.eng.RollbackTo(admin, deploy.RollbackRequest{Application: "app", Environment: "staging", ID: "rb-1"})
	if err != nil || !sub.Created || sub.Deployment.ID != "rb-1" {
		t.Fatalf("rollback = %+v, %v", sub, err)
	}
	d := e.waitState("rb-1", deploy.StateSuccess)
	if d.Artifact.Version != "1.0.0" {
		t.Fatalf("rolled back to %s, want 1.0.0", d.Artifact.Version)
	}
	// --to names the target; a deploy of another environment is refused.
	if _, err := e.eng.RollbackTo(admin, deploy.RollbackRequest{Application: "app", Environment: "prod", To: "v1"}); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
		t.Fatalf("to a deploy of another environment: %v", err)
	}
}

// TestReleaseSurvivesRestart: the server stops while the release runs and
// starts again with the same executor ID: the release and its deploys go on
// from where they were, and nothing runs twice but the step interrupted.
func TestReleaseSurvivesRestart(t *testing.T) {
	first := newReleaseEnv(t, "db", "api", "worker", "web")
	g := newGates(first, []string{"again.db"})
	first.submitRelease(releaseDoc("again", "stop", shop(member{})...))
	<-g.started["again.db"]
	close(g.hold["again.db"])
	_ = first.eng.Shutdown(5 * time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "test", plugin: first.plugin,
		engineYAML: "chains: {poll_interval: 5m}"})
	r := second.waitRelease("again")
	if r.State != deploy.ReleaseSuccess {
		t.Fatalf("release %s %q, deploys %v", r.State, r.Error, memberStates(r))
	}
	for _, name := range []string{"api", "worker", "web"} {
		if n := second.plugin.callCount("again." + name); n != 1 {
			t.Errorf("%s ran %d times, want once", name, n)
		}
	}
}

// TestReleaseMemberRefusedWhenQueued: a freeze starts between the release's
// acceptance and the queuing of its deploys: the refused deploy is ERROR,
// the following ones CANCELLED, the release ERROR, and nothing runs.
func TestReleaseMemberRefusedWhenQueued(t *testing.T) {
	// The governor accepts the four deploys when the release is checked,
	// then a freeze starts: every later decision refuses.
	calls := 0
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		calls++
		if calls <= 4 {
			return deploy.Decision{}, nil
		}
		return deploy.Decision{}, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "refused by governance",
			Fields: []deploy.FieldError{{Path: "governance.freeze", Message: "prod is frozen by window \"sale\""}}}
	}}
	e := newEnvWith(t, envOptions{governor: gov, engineYAML: "chains: {poll_interval: 5m}"})
	for _, app := range []string{"db", "api", "worker", "web"} {
		writeFile(t, filepath.Join(e.dir, "envconfig/demo", app, "prod.yml"), "plugin: test\ntargets: [{path: /nowhere}]\n")
	}
	sub := e.submitRelease(releaseDoc("frozen", "stop", shop(member{})...))
	if sub.Release.State != deploy.ReleasePending {
		t.Fatalf("release = %+v", sub.Release)
	}
	r := e.waitRelease("frozen")
	got := memberStates(r)
	if r.State != deploy.ReleaseError || got["db"] != "ERROR" || got["api"] != "CANCELLED" || got["web"] != "CANCELLED" ||
		!strings.Contains(r.Error, "frozen") {
		t.Fatalf("release %s %q, deploys %v", r.State, r.Error, got)
	}
	for _, name := range []string{"db", "api", "worker", "web"} {
		if n := e.plugin.callCount("frozen." + name); n != 0 {
			t.Errorf("%s ran %d times", name, n)
		}
	}
}
