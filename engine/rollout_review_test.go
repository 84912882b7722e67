package engine_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestReviewWholeWaveFailureStopsRollout: max_failures tolerates some failed
// targets in a wave, but a wave whose every target failed (a canary of one
// under max_failures: 1, or any wave under max_failures: "100%") has shown
// nothing but failure: the rollout must not go on to the next wave, and the
// deploy must not end SUCCESS (the AWS CodeDeploy complaint the issue names:
// "a deploy still succeeds when the last instance fails").
func TestReviewWholeWaveFailureStopsRollout(t *testing.T) {
	tests := []struct {
		name, rollout string
	}{
		{"a canary of one under max_failures 1", "rollout:\n  waves: [{name: canary, count: 1}, {name: rest}]\n  max_failures: 1\n"},
		{"every target under max_failures 100%", "rollout:\n  waves: [{name: canary, count: 1}, {name: rest}]\n  max_failures: \"100%\"\n"},
	}
	f := newFleetEnv(t, "review-wf", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("rwf%d", i)
			dirs := f.addFleet(name, []string{"x", "y"}, tt.rollout)
			// x, the canary, cannot be deployed to.
			writeFile(t, dirs["x"], "not a directory\n")
			id := "review-" + name
			f.submitTo(id, name, "1.0.0")
			d := f.wait(id, func(d *deploy.Deployment) bool { return d.State.Terminal() })
			if d.State == deploy.StateSuccess {
				t.Errorf("deploy ended SUCCESS although its canary wave failed on every target")
			}
			if _, err := os.Stat(dirs["y"]); !os.IsNotExist(err) {
				t.Errorf("the next wave ran after a wave whose every target failed (y touched: %v)", err)
			}
		})
	}
}

// TestReviewRolledBackTargetShowsRelease: docs/rollouts.md says a target's
// release is "the version it runs once its batch activated, or the one it
// was brought back to"; a target of a rolled-back batch runs 1.0.0 again,
// but the status shows release null.
func TestReviewRolledBackTargetShowsRelease(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") == "2.0.0" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	f := newFleetEnv(t, "rrel", nil, []fleetTarget{{"a", "w: one"}, {"b", "w: two"}},
		fmt.Sprintf(`rollback: {enabled: true, on: [deploy, activation, post-test]}
rollout:
  waves: [{name: one, select: {labels: {w: one}}}, {name: two}]
  gates: [{name: health, http: {url: %q}}]
`, health.URL+"/health?v={{ .Version }}"))
	f.deploy("rrel-first", "1.0.0", deploy.StateSuccess)
	d := f.deploy("rrel-second", "2.0.0", deploy.StateError)
	if cur := f.current("a"); cur != "1.0.0" {
		t.Fatalf("a runs %q, want 1.0.0 back", cur)
	}
	for _, tg := range d.RolloutStatus().Targets {
		if filepath.Base(tg.Name) != "a" {
			continue
		}
		if tg.State != deploy.TargetRolledBack {
			t.Fatalf("a: %s, want ROLLED_BACK", tg.State)
		}
		if tg.Release == nil || *tg.Release != "1.0.0" {
			t.Errorf("a was brought back to 1.0.0, but its release is %v", tg.Release)
		}
	}
}

// TestReviewWaveApprovalIsHonoured: rollout.waves[].approval: true is
// accepted by the configuration and shown by validate (APPROVAL yes), but
// the engine never waits: the wave runs and the deploy ends SUCCESS with no
// approval asked and no line in the log saying it was ignored. A setting
// that is accepted must either be honoured or refused.
func TestReviewWaveApprovalIsHonoured(t *testing.T) {
	f := newFleetEnv(t, "rappr", nil, []fleetTarget{{"a", "w: one"}, {"b", "w: two"}}, `rollout:
  waves: [{name: one, select: {labels: {w: one}}}, {name: two, approval: true}]
`)
	f.submitTo("rappr", "rappr", "1.0.0")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		d, err := f.store.Get(f.ctx, "rappr")
		if err != nil {
			t.Fatal(err)
		}
		if d.State.Terminal() {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Errorf("wave two (approval: true) ran without any approval (b touched: %v)", err)
	}
}
