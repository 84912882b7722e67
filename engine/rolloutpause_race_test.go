package engine_test

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
	"manent.dev/manent/internal/pgtest"
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
	if _, err := f.eng.ResumeRollout(f.ctx, "rvb", "fine", ""); err != nil {
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

// TestResumeOfAnEndedPauseNeverEndsTheNext: two pauses in a row, and a
// resume written for the first that arrives once the second began (a
// second operator who looked at the first pause, a retried call): it is
// refused, whether the service reads the second pause or its read is older
// than the store's; the second pause goes on, waiting for someone to look at
// it. A resume of the first found on the row anyway is dropped by the
// second, never taken for its own.
func TestResumeOfAnEndedPauseNeverEndsTheNext(t *testing.T) {
	prom := prometheus(t)
	f := newFleetEnv(t, "rvnext", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}, {"c", "r: z"}}, fmt.Sprintf(`rollout:
  waves: [{name: one, count: 1}, {name: two, count: 1}, {name: three}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
`, prom+"/broken"))
	f.submitTo("rvn", "rvnext", "1.0.0")
	first := f.waitPaused("rvn").RolloutStatus().Pause
	if first.Step != "pause[1/1]" {
		t.Fatalf("the first pause is %q, want pause[1/1]", first.Step)
	}
	if _, err := f.eng.ResumeRollout(f.ctx, "rvn", "one looks fine", first.Step); err != nil {
		t.Fatalf("resume of the first pause: %v", err)
	}
	d := f.wait("rvn", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return d.State.Terminal() || (st.Pause != nil && st.Pause.Step == "pause[2/1]")
	})
	if d.State.Terminal() {
		t.Fatalf("deploy %s (%q) instead of a second pause", d.State, d.Error)
	}

	// The second operator's resume, written for the first pause.
	_, err := f.eng.ResumeRollout(f.ctx, "rvn", "one looks fine to me too", first.Step)
	want := "the pause its resume answers (pause[1/1]) has ended, and its rollout is paused again (pause[2/1])"
	if deploy.ErrorCode(err) != deploy.ECONFLICT || !strings.Contains(err.Error(), want) {
		t.Fatalf("a resume of the first pause during the second: %v, want CONFLICT saying %q", err, want)
	}
	// The same resume after a read of the service older than the store's:
	// what RequestRollout gets when the first pause was read in force.
	req := deploy.RolloutRequest{Action: deploy.RolloutActionResume, By: "token:ci", Reason: "stale read", At: time.Now().UTC(), Pause: first.Step}
	err = f.store.RequestRollout(f.ctx, "rvn", req, deploy.RolloutReplaces(deploy.RolloutActionResume), nil, nil)
	if deploy.ErrorCode(err) != deploy.ECONFLICT || !strings.Contains(err.Error(), want) {
		t.Fatalf("the store kept a resume of the first pause during the second: %v, want CONFLICT", err)
	}
	if _, err := f.eng.ResumeRollout(f.ctx, "rvn", "", "not-a-pause"); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
		t.Fatalf("a resume naming no pause: %v, want UNPROCESSABLE", err)
	}
	d, err = f.eng.Get(f.ctx, "rvn")
	if err != nil {
		t.Fatal(err)
	}
	if recs := pauseRecords(d); len(recs) != 2 || recs[1].State != deploy.StepRunning || d.RolloutRequest != nil {
		t.Fatalf("pauses %+v, request %+v: want the second running, nothing pending", recs, d.RolloutRequest)
	}

	// A resume of the first pause on the row all the same (written by
	// hand, or by any other way than the store's): the second pause drops
	// it and goes on.
	pgtest.Strings(t, f.url, `UPDATE manent.deployments SET rollout_request = 'resume', rollout_request_by = 'token:ci',
		rollout_request_pause = 'pause[1/1]', rollout_request_at = now() WHERE id = $1 RETURNING id`, "rvn")
	wakeRollout(t, f.url, f.eng.Engine, "rvn")
	d = f.wait("rvn", func(d *deploy.Deployment) bool { return d.RolloutRequest == nil || d.State.Terminal() })
	if recs := pauseRecords(d); len(recs) != 2 || recs[1].State != deploy.StepRunning {
		t.Fatalf("deploy %s, pauses %+v: a resume of the first pause ended the second", d.State, recs)
	}

	// A resume of the second, named, ends it.
	if _, err := f.eng.ResumeRollout(f.ctx, "rvn", "two looks fine", "pause[2/1]"); err != nil {
		t.Fatalf("resume of the second pause: %v", err)
	}
	d = f.wait("rvn", func(d *deploy.Deployment) bool { return len(pauseRecords(d)) == 3 || d.State.Terminal() })
	if recs := pauseRecords(d); len(recs) != 3 || recs[1].State != deploy.StepSuccess || recs[1].Output[deploy.OutputResumeNote] != "two looks fine" {
		t.Fatalf("deploy %s, pauses %+v: want the second resumed by its own resume, a third on wave three", d.State, recs)
	}
	if _, err := f.eng.AbortRollout(f.ctx, "rvn", "done"); err != nil {
		t.Fatal(err)
	}
	f.waitState("rvn", deploy.StateError)
}

// wakeRollout sends deploy id's workflow the wake a stored request sends,
// on a transaction of its own.
func wakeRollout(t *testing.T, url string, e *engine.Engine, id string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RolloutRequested(tx, id); err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
