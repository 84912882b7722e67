package engine_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"manent.dev/manent/deploy"
)

// TestRolloutRequestsWithNothingLeft: a pause or an abort the rollout could
// never act on is refused (CONFLICT, saying why) rather than stored to wait
// for what never comes, and the deploy page offers neither: a pause once
// the last batch has begun, both once the last wave passed while the
// deploy runs its last steps, and both while the rollback runs.
func TestRolloutRequestsWithNothingLeft(t *testing.T) {
	e := newEnvWith(t, envOptions{steps: []string{
		"{name: artifacts, mode: mandatory}", "{name: deploy, mode: mandatory}", "{name: activation, mode: optional}",
		"{name: post-test, mode: optional}",
	}})
	// The post-test after the span calls this until released.
	checking, releaseCheck := make(chan struct{}), make(chan struct{})
	var once sync.Once
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(checking) })
		select {
		case <-releaseCheck:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(health.Close)
	t.Cleanup(func() { closeOnce(releaseCheck) })
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/finishing.yml"), `plugin: test
targets: [{path: /t/a}, {path: /t/b}]
rollout:
  waves: [{name: all, batch: 1}]
health: [{url: "`+health.URL+`/health", timeout: 2m}]
`)
	refused := func(id string, action deploy.RolloutAction, want string) {
		t.Helper()
		var err error
		switch action {
		case deploy.RolloutActionPause:
			_, err = e.eng.PauseRollout(e.ctx, id, "")
		default:
			_, err = e.eng.AbortRollout(e.ctx, id, "")
		}
		if deploy.ErrorCode(err) != deploy.ECONFLICT || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s of %s: %v, want CONFLICT saying %q", action, id, err, want)
		}
		d, err := e.eng.Get(e.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.RolloutRequest != nil {
			t.Fatalf("%s of %s left a request: %+v", action, id, d.RolloutRequest)
		}
	}

	started, release := blockOn(e, "/t/b")
	e.submit("last", "app", "finishing")
	<-started
	// The last batch is in flight: a pause would never take effect; an
	// abort still stops it.
	refused("last", deploy.RolloutActionPause, "its rollout has no batch left to start: a pause would never take effect")
	close(release)
	<-checking
	d := e.wait("last", func(d *deploy.Deployment) bool { return d.CurrentStep == "post-test" })
	if st := d.RolloutStatus(); st.Waves[0].State != deploy.WavePassed || d.State != deploy.StatePending {
		t.Fatalf("deploy %s, wave %s: want PENDING past its last wave", d.State, st.Waves[0].State)
	}
	refused("last", deploy.RolloutActionPause, "no batch left to start")
	refused("last", deploy.RolloutActionAbort, "its rollout passed its last wave: the deploy is finishing its last steps")
	closeOnce(releaseCheck)
	e.waitState("last", deploy.StateSuccess)

	// A rollback that runs: the last batch fails, the one before is
	// compensated while the test holds its rollback.
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app/undoing.yml"), `plugin: test
targets: [{path: /t/a}, {path: /t/b}]
rollout:
  waves: [{name: all, batch: 1}]
rollback: {enabled: true, on: [deploy]}
`)
	undoing, releaseUndo := make(chan struct{}), make(chan struct{})
	var undoOnce sync.Once
	e.plugin.mu.Lock()
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if len(req.Targets) == 1 && req.Targets[0].Path == "/t/b" {
			return deploy.Permanentf("the disk is full")
		}
		return nil
	}
	e.plugin.rollback = func(ctx context.Context, _ deploy.PluginRequest) error {
		undoOnce.Do(func() { close(undoing) })
		select {
		case <-releaseUndo:
			return nil
		case <-ctx.Done():
			return errors.New("interrupted")
		}
	}
	e.plugin.mu.Unlock()
	t.Cleanup(func() { closeOnce(releaseUndo) })
	e.submit("undo", "app", "undoing")
	<-undoing
	refused("undo", deploy.RolloutActionPause, "its rollout is being rolled back")
	refused("undo", deploy.RolloutActionAbort, "its rollout is being rolled back")
	closeOnce(releaseUndo)
	if d := e.waitState("undo", deploy.StateError); d.Rollback != deploy.RollbackCompleted {
		t.Fatalf("rollback %q, want completed", d.Rollback)
	}
}

// closeOnce closes c unless it is closed already.
func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}
