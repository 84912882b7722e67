package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// waitPaused blocks until the rollout of id is paused.
func (e *env) waitPaused(id string) *deploy.Deployment {
	e.t.Helper()
	return e.wait(id, func(d *deploy.Deployment) bool {
		if d.State.Terminal() {
			e.t.Fatalf("deploy %s ended %s (%s) before its rollout paused", id, d.State, d.Error)
		}
		st := d.RolloutStatus()
		return st != nil && st.State == deploy.RolloutPaused
	})
}

// pauseRecords are the records of a deploy's pauses, in order.
func pauseRecords(d *deploy.Deployment) []deploy.Step {
	var out []deploy.Step
	for _, s := range d.Steps {
		if s.Name == deploy.StepPause {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b deploy.Step) int { return a.StartedAt.Compare(*b.StartedAt) })
	return out
}

// TestRolloutPausesOnGates: a gate that cannot judge its wave
// (inconclusive, no_data under no_data: pause) and a failed gate under
// on_failure: pause hold the rollout, the deploy still running and the
// next wave untouched; a resume goes on with the next wave as if the gates
// had passed, an abort fails the deploy.
func TestRolloutPausesOnGates(t *testing.T) {
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Query().Get("t"), "/a") {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(health.Close)
	prom := prometheus(t)
	promGate := func(url, noData string) string {
		return fmt.Sprintf("  gates: [{name: errors, prometheus: {url: %q, query: up, max: 0.01}}]\n  no_data: %s\n", url, noData)
	}
	tests := []struct {
		name       string
		gates      string
		wantGate   deploy.GateResult
		wantReason string
		resume     bool
	}{
		{"inconclusive, resumed", promGate(brokenOnce(t), "pass"), deploy.GateInconclusive, "wave one could not be judged by its gates: errors inconclusive", true},
		{"no data pauses, aborted", promGate(prom+"/nodata", "pause"), deploy.GateNoData, "wave one could not be judged by its gates: errors no_data", false},
		{"on_failure pause, resumed", fmt.Sprintf("  gates: [{name: health, http: {url: %q}}]\n  on_failure: pause\n",
			health.URL+"/health?t={{ .Target.Path }}"), deploy.GateFail, "wave one failed its gates: health fail", true},
	}
	f := newFleetEnv(t, "pgates", nil, nil, "")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("pgates%d", i)
			dirs := f.addFleet(name, []string{"a", "b"}, "rollout:\n  waves: [{name: one, count: 1}, {name: two}]\n"+tt.gates)
			id := "paused-" + name
			f.submitTo(id, name, "1.0.0")
			d := f.waitPaused(id)
			if d.State != deploy.StatePending {
				t.Fatalf("state %s while paused, want PENDING (it keeps its slot)", d.State)
			}
			got, err := f.eng.Get(f.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			st := got.RolloutStatus()
			one, two := st.Waves[0], st.Waves[1]
			if one.State != deploy.WavePaused || two.State != deploy.WavePending || st.CurrentWave == nil || *st.CurrentWave != "one" {
				t.Fatalf("waves %s, %s, current %v; want paused, pending, one", one.State, two.State, st.CurrentWave)
			}
			if one.Gate == nil || one.Gate.State != tt.wantGate {
				t.Fatalf("wave one's gate %+v, want %s", one.Gate, tt.wantGate)
			}
			p := st.Pause
			if p == nil || !strings.HasPrefix(p.Reason, tt.wantReason) || p.By != nil ||
				p.Until.Sub(p.Since) != deploy.DefaultPauseTimeout {
				t.Fatalf("pause = %+v, want %q by none for 24h", p, tt.wantReason)
			}
			if want := []string{"role:admin", "role:deployer"}; !slices.Equal(p.MayResume, want) {
				t.Errorf("may resume %v, want %v", p.MayResume, want)
			}
			if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
				t.Fatalf("wave two touched while paused: %v", err)
			}
			if !tt.resume {
				if _, err := f.eng.AbortRollout(f.ctx, id, "too risky"); err != nil {
					t.Fatal(err)
				}
				d := f.waitState(id, deploy.StateError)
				if d.Error != "rollout aborted by token:ci: too risky" {
					t.Fatalf("error %q", d.Error)
				}
				st := d.RolloutStatus()
				if st.State != deploy.RolloutAborted || st.Waves[1].State != deploy.WaveSkipped {
					t.Fatalf("rollout %s, wave two %s; want aborted, skipped", st.State, st.Waves[1].State)
				}
				if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
					t.Fatalf("wave two touched after the abort: %v", err)
				}
				return
			}
			if _, err := f.eng.ResumeRollout(f.ctx, id, "looked at the dashboards", ""); err != nil {
				t.Fatal(err)
			}
			d = f.waitState(id, deploy.StateSuccess)
			st = d.RolloutStatus()
			if st.State != deploy.RolloutCompleted || st.Waves[0].State != deploy.WavePassed {
				t.Fatalf("rollout %s, wave one %s after the resume", st.State, st.Waves[0].State)
			}
			recs := pauseRecords(d)
			if len(recs) != 1 || recs[0].State != deploy.StepSuccess || recs[0].Output[deploy.OutputResumedBy] != "token:ci" ||
				recs[0].Output[deploy.OutputResumeNote] != "looked at the dashboards" || recs[0].Name != "pause" || recs[0].Pass != 1 {
				t.Fatalf("pause records %+v", recs)
			}
			if two := st.Waves[1].Batches[0]; two.StartedAt.Before(*recs[0].FinishedAt) {
				t.Fatalf("wave two started %v, before the resume %v", two.StartedAt, recs[0].FinishedAt)
			}
		})
	}
}

// brokenOnce is a stand-in of Prometheus whose first query fails and the
// others answer a value within bounds: a wave that could not be judged,
// then waves that pass.
func brokenOnce(t *testing.T) string {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"0.001"]}]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// pausedFleet is an environment app/<name> of the test plugin with three
// targets in batches of one, whose deploy of the target blocked waits
// until release is closed.
func pausedFleet(t *testing.T, e *env, name string, rest string) {
	t.Helper()
	writeFile(t, filepath.Join(e.dir, "envconfig/demo/app", name+".yml"), `plugin: test
targets: [{path: /t/a}, {path: /t/b}, {path: /t/c}]
rollout:
  waves: [{name: all, batch: 1}]
`+rest)
}

// blockOn makes the test plugin's deploy of target path wait: started is
// closed when it began, and it ends when release is.
func blockOn(e *env, path string) (started, release chan struct{}) {
	started, release = make(chan struct{}), make(chan struct{})
	e.plugin.deploy = func(ctx context.Context, req deploy.PluginRequest) error {
		if len(req.Targets) == 1 && req.Targets[0].Path == path {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	return started, release
}

// TestRolloutPauseByPerson: a person's pause takes effect after the batch
// in flight, before the next one; only those who may cancel may pause,
// resume or abort (a viewer is refused, another tenant's identity finds no
// deploy); a request in the wrong state conflicts; a resume goes on, and
// an abort lets the step in flight end, then stops.
func TestRolloutPauseByPerson(t *testing.T) {
	e := newEnv(t)
	pausedFleet(t, e, "people", "")
	started, release := blockOn(e, "/t/a")
	e.submit("held", "app", "people")
	<-started
	if _, err := e.eng.ResumeRollout(e.ctx, "held", "", ""); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("resume of a running rollout: %v, want CONFLICT", err)
	}
	if _, err := e.eng.PauseRollout(e.as("token:viewer"), "held", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("pause by a viewer: %v, want FORBIDDEN", err)
	}
	_, missing := e.eng.PauseRollout(e.as("token:mallory"), "no-such-deploy", "")
	_, other := e.eng.PauseRollout(e.as("token:mallory"), "held", "")
	if deploy.ErrorCode(other) != deploy.ENOTFOUND || strings.ReplaceAll(other.Error(), "held", "X") != strings.ReplaceAll(missing.Error(), "no-such-deploy", "X") {
		t.Fatalf("pause by another tenant: %v; a missing deploy: %v", other, missing)
	}
	if _, err := e.eng.PauseRollout(e.ctx, "held", "bad\x1b[2Jreason"); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
		t.Fatalf("pause with a control character: %v, want UNPROCESSABLE", err)
	}
	if _, err := e.eng.PauseRollout(e.ctx, "held", "check the canary"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.PauseRollout(e.ctx, "held", "again"); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("a second pause: %v, want CONFLICT", err)
	}
	close(release)
	d := e.waitPaused("held")
	st := d.RolloutStatus()
	b := st.Waves[0].Batches
	if b[0].State != deploy.StepSuccess || b[1].State != deploy.StepPending || b[1].StartedAt != nil {
		t.Fatalf("batches %+v: want the first done and the second not started", b)
	}
	if p := st.Pause; p == nil || p.Reason != "check the canary" || p.By == nil || *p.By != "token:ci" {
		t.Fatalf("pause %+v", st.Pause)
	}
	if _, err := e.eng.PauseRollout(e.ctx, "held", ""); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("pause of a paused rollout: %v, want CONFLICT", err)
	}
	if _, err := e.eng.ResumeRollout(e.as("token:viewer"), "held", "", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("resume by a viewer: %v, want FORBIDDEN", err)
	}
	started, release = blockOn(e, "/t/c")
	if _, err := e.eng.ResumeRollout(e.ctx, "held", "canary is fine", ""); err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := e.eng.AbortRollout(e.ctx, "held", "stop here"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.AbortRollout(e.ctx, "held", "twice"); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("a second abort: %v, want CONFLICT", err)
	}
	close(release)
	d = e.waitState("held", deploy.StateError)
	if d.Error != "rollout aborted by token:ci: stop here" {
		t.Fatalf("error %q", d.Error)
	}
	// The step in flight ended; the rest of its batch never began.
	if s := stepKey(d, deploy.StepKey{Step: "deploy", Pass: 1, Batch: 3, Kind: deploy.KindRun}); s.State != deploy.StepSuccess {
		t.Fatalf("deploy[1/3] = %s, want SUCCESS (it ran when the abort came)", s.State)
	}
	if s := stepKey(d, deploy.StepKey{Step: "activation", Pass: 1, Batch: 3, Kind: deploy.KindRun}); s.State == deploy.StepSuccess || s.State == deploy.StepRunning {
		t.Fatalf("activation[1/3] = %s after the abort", s.State)
	}
	if recs := pauseRecords(d); len(recs) != 1 || recs[0].Output[deploy.OutputResumedBy] != "token:ci" {
		t.Fatalf("pause records %+v", recs)
	}
	for _, action := range []string{"deployment.rollout.pause", "deployment.rollout.resume", "deployment.rollout.abort"} {
		if by := e.auditActors(action, "held"); !slices.Equal(by, []string{"token:ci"}) {
			t.Errorf("%s entries by %v, want one by token:ci", action, by)
		}
	}
}

func stepKey(d *deploy.Deployment, k deploy.StepKey) deploy.Step {
	for _, s := range d.Steps {
		if s.Key() == k {
			return s
		}
	}
	return deploy.Step{}
}

// TestRolloutAbortRollsBack: an abort during a bake stops at once and
// compensates the batches done; the next wave is never touched.
func TestRolloutAbortRollsBack(t *testing.T) {
	f := newFleetEnv(t, "abort", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, `rollback: {enabled: true, on: [deploy, activation]}
rollout:
  waves: [{name: one, count: 1, bake: 10m}, {name: two}]
`)
	f.submitTo("ab", "abort", "1.0.0")
	f.wait("ab", func(d *deploy.Deployment) bool {
		st := d.RolloutStatus()
		return st != nil && st.Waves[0].State == deploy.WaveBaking && st.Waves[0].Bake.Until != nil
	})
	if _, err := f.eng.AbortRollout(f.ctx, "ab", ""); err != nil {
		t.Fatal(err)
	}
	d := f.waitState("ab", deploy.StateError)
	if d.Error != "rollout aborted by token:ci" || d.Rollback != deploy.RollbackCompleted {
		t.Fatalf("error %q, rollback %q", d.Error, d.Rollback)
	}
	if s := stepKey(d, deploy.StepKey{Step: "activation", Pass: 1, Batch: 1, Kind: deploy.KindRollback}); s.State != deploy.StepSuccess {
		t.Fatalf("rollback:activation[1/1] = %s", s.State)
	}
	if got := f.current("a"); got != "" {
		t.Fatalf("target a runs %q after the rollback, want none", got)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Fatalf("wave two touched: %v", err)
	}
	if st := d.RolloutStatus(); st.Waves[0].State != deploy.WaveRolledBack || st.Targets[0].State != deploy.TargetRolledBack {
		t.Fatalf("wave one %s, target a %s", st.Waves[0].State, st.Targets[0].State)
	}
}

// TestRolloutPauseTimesOut: a pause nobody resumes aborts at
// pause_timeout, as a failed wave.
func TestRolloutPauseTimesOut(t *testing.T) {
	t.Parallel()
	prom := prometheus(t)
	f := newFleetEnv(t, "ptimeout", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, fmt.Sprintf(`rollout:
  waves: [{name: one, count: 1}, {name: two}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
  pause_timeout: 1m
`, prom+"/broken"))
	f.submitTo("pt", "ptimeout", "1.0.0")
	p := f.waitPaused("pt").RolloutStatus().Pause
	if p.Until.Sub(p.Since) != time.Minute {
		t.Fatalf("pause %+v, want one minute", p)
	}
	d := f.waitState("pt", deploy.StateError)
	if !strings.Contains(d.Error, "for 1m0s without a resume: the rollout aborts") {
		t.Fatalf("error %q", d.Error)
	}
	recs := pauseRecords(d)
	if len(recs) != 1 || recs[0].State != deploy.StepError || recs[0].FinishedAt.Before(p.Until) {
		t.Fatalf("pause records %+v, want one ended in error at %v or after", recs, p.Until)
	}
	if _, err := os.Stat(f.targets["b"]); !os.IsNotExist(err) {
		t.Fatalf("wave two touched: %v", err)
	}
}

// TestRolloutPauseSurvivesARestart: a paused rollout is paused again after
// its worker restarts, with the same times, and a resume reaches it.
func TestRolloutPauseSurvivesARestart(t *testing.T) {
	prom := brokenOnce(t)
	first := newEnvWith(t, envOptions{executorID: "pause"})
	writeRelease(t, first.dir, "1.0.0")
	dirs := []string{filepath.Join(first.dir, "targets/p/a"), filepath.Join(first.dir, "targets/p/b")}
	writeFile(t, filepath.Join(first.dir, "envconfig/demo/web/p.yml"), fmt.Sprintf(`plugin: local
targets: [{path: %q}, {path: %q}]
rollout:
  waves: [{name: one, count: 1}, {name: two}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
`, dirs[0], dirs[1], prom))
	if _, err := first.eng.Submit(first.ctx, []byte(webDescriptor("pr", "p", "1.0.0", "")), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	before := first.waitPaused("pr").RolloutStatus().Pause
	_ = first.eng.Shutdown(5 * time.Second)

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "pause", plugin: first.plugin})
	after := second.waitPaused("pr").RolloutStatus().Pause
	if !after.Since.Equal(before.Since) || !after.Until.Equal(before.Until) {
		t.Fatalf("pause %+v after the restart, was %+v", after, before)
	}
	if _, err := second.eng.ResumeRollout(second.ctx, "pr", "", ""); err != nil {
		t.Fatal(err)
	}
	d := second.waitState("pr", deploy.StateSuccess)
	if recs := pauseRecords(d); len(recs) != 1 || recs[0].State != deploy.StepSuccess {
		t.Fatalf("pause records %+v, want one, resumed", recs)
	}
}

// TestPauseHoldsTheSlotAndCancels: a paused rollout keeps its environment's
// slot (the next deploy there waits in its queue), and a cancel stops it at
// once, without rollback, after which the next deploy runs.
func TestPauseHoldsTheSlotAndCancels(t *testing.T) {
	prom := prometheus(t)
	f := newFleetEnv(t, "pslot", nil, []fleetTarget{{"a", "r: x"}, {"b", "r: y"}}, fmt.Sprintf(`rollout:
  waves: [{name: one, count: 1}, {name: two}]
  gates: [{prometheus: {url: %q, query: up, max: 1}}]
`, prom+"/broken"))
	f.submitTo("ps1", "pslot", "1.0.0")
	f.waitPaused("ps1")
	f.submitTo("ps2", "pslot", "1.0.0")
	// The second waits behind the paused one: still queued once the first
	// was seen paused after its submission.
	if d := f.waitPaused("ps1"); d.State != deploy.StatePending {
		t.Fatalf("ps1 %s", d.State)
	}
	if d, err := f.store.Get(f.ctx, "ps2"); err != nil || d.State != deploy.StateEnqueued {
		t.Fatalf("ps2 = %v, %v: want ENQUEUED while ps1 holds the slot", d, err)
	}
	if _, err := f.eng.Cancel(f.ctx, "ps1"); err != nil {
		t.Fatal(err)
	}
	d := f.waitState("ps1", deploy.StateCancelled)
	if want := "cancelled by token:ci after step gates[1], before pause[1/1]"; d.Error != want {
		t.Fatalf("error %q, want %q", d.Error, want)
	}
	if recs := pauseRecords(d); len(recs) != 1 || recs[0].State != deploy.StepCancelled {
		t.Fatalf("pause records %+v, want one CANCELLED", recs)
	}
	// ps2 runs now, and pauses on the same gate.
	f.waitPaused("ps2")
}

// TestRolloutGatesTimeLimit: gates whose targets never answer are bounded
// as a whole by engine.gates_time_limit, whatever each request's timeout:
// what was not judged in time is inconclusive and pauses the rollout,
// never a pass, and the wave after it is not touched.
func TestRolloutGatesTimeLimit(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	f := &fleetEnv{env: newEnvWith(t, envOptions{engineYAML: "engine: {gates_time_limit: 1s}"}), name: "glimit", targets: map[string]string{}}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		writeRelease(t, f.dir, v)
	}
	dirs := f.addFleet("glimit", []string{"a", "b"}, fmt.Sprintf("rollout:\n  waves: [{name: one, count: 1}, {name: two}]\n"+
		"  gates: [{name: slow, http: {url: %q, timeout: 5m}}]\n", hang.URL+"/health"))
	f.submitTo("limited", "glimit", "1.0.0")
	d := f.waitPaused("limited")
	st := d.RolloutStatus()
	one := st.Waves[0]
	if one.Gate == nil || one.Gate.State != deploy.GateInconclusive || len(one.Gate.Checks) != 1 ||
		!strings.Contains(one.Gate.Checks[0].Detail, "engine.gates_time_limit (1s)") {
		t.Fatalf("wave one's gate %+v, want inconclusive past engine.gates_time_limit", one.Gate)
	}
	if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
		t.Fatalf("wave two touched: %v", err)
	}
	if _, err := f.eng.AbortRollout(f.ctx, "limited", "gates too slow"); err != nil {
		t.Fatal(err)
	}
	f.waitState("limited", deploy.StateError)
}
