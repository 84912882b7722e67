package engine_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestPauseAskedInABakeIsTakenByAGatePause: a person asks a pause during a
// bake, and the gates after it cannot judge the wave: the rollout pauses by
// itself. The person's pause must not be left pending on the row, else
// the resume is refused ("a pause of its rollout is already asked") and
// the only way out is an abort or pause_timeout.
func TestPauseAskedInABakeIsTakenByAGatePause(t *testing.T) {
	prom := brokenOnce(t)
	f := newFleetEnv(t, "rvbake", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, fmt.Sprintf(`rollout:
  waves: [{name: one, count: 1, bake: 3s}, {name: two}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
`, prom))
	f.submitTo("rvb", "rvbake", "1.0.0")
	f.wait("rvb", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	if _, err := f.eng.PauseRollout(f.ctx, "rvb", "look at the canary"); err != nil {
		t.Fatal(err)
	}
	f.waitPaused("rvb")
	if _, err := f.eng.ResumeRollout(f.ctx, "rvb", "fine"); err != nil {
		t.Fatalf("resume of the paused rollout: %v", err)
	}
	d := f.waitState("rvb", deploy.StateSuccess)
	if _, err := os.Stat(f.targets["b"]); err != nil {
		t.Fatalf("wave two not deployed: %v", err)
	}
	_ = d
}

// TestStaleResumeNeverEndsALaterPause: two resumes of one pause at once
// (a double click, a retried CLI call): both read the rollout paused, the
// first is taken by the workflow when the pause ends, the second then
// finds no request pending and is stored, on a running rollout. The store
// checks nothing of the rollout under its lock, so the stale resume stays
// on the row and ends the next pause (a gate that could not judge the next
// wave) the moment it begins, with nobody having looked at it.
func TestStaleResumeNeverEndsALaterPause(t *testing.T) {
	prom := prometheus(t)
	f := newFleetEnv(t, "rvstale", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}, {"c", "r: z"}}, fmt.Sprintf(`rollout:
  waves: [{name: one, count: 1, bake: 3s}, {name: two, count: 1}, {name: three}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
`, prom+"/broken"))
	f.submitTo("rvs", "rvstale", "1.0.0")
	f.wait("rvs", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	// What the second resume's RequestRollout does after its stale read:
	// the service's own call, with the service's own from.
	req := deploy.RolloutRequest{Action: deploy.RolloutActionResume, By: "token:ci", Reason: "second click", At: time.Now().UTC()}
	err := f.store.RequestRollout(f.ctx, "rvs", req, deploy.RolloutReplaces(deploy.RolloutActionResume), nil, nil)
	if err != nil {
		if deploy.ErrorCode(err) != deploy.ECONFLICT {
			t.Fatalf("a resume of a running rollout: %v, want CONFLICT", err)
		}
		return // refused: nothing stale is left
	}
	// Wave one's gates cannot judge it: the rollout pauses, and must stay
	// paused until someone resumes this pause.
	f.wait("rvs", func(d *deploy.Deployment) bool { return len(pauseRecords(d)) > 0 || d.State.Terminal() })
	time.Sleep(2 * time.Second)
	d, err := f.eng.Get(f.ctx, "rvs")
	if err != nil {
		t.Fatal(err)
	}
	recs := pauseRecords(d)
	if len(recs) == 0 {
		t.Fatalf("deploy %s (%q) without a pause on wave one's gates", d.State, d.Error)
	}
	if recs[0].State != deploy.StepRunning {
		t.Fatalf("the pause on wave one's gates ended %v by %q (%q), deploy %s: a stale resume, asked while the rollout ran, ended it",
			recs[0].State, recs[0].Output[deploy.OutputResumedBy], recs[0].Output[deploy.OutputResumeNote], d.State)
	}
}
