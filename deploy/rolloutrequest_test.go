package deploy

import (
	"strings"
	"testing"
	"time"
)

// refusalDeploy is a deploy rolled out in two waves, the first of two
// batches, the second of one that bakes a minute, each wave gated, with
// the records given.
func refusalDeploy(state State, recs ...Step) Deployment {
	plan := &RolloutPlan{Passes: []RolloutPass{
		{Index: 1, Name: "canary", Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}, {Index: 2, Targets: []string{"b"}}}},
		{Index: 2, Name: "rest", Bake: time.Minute, Batches: []RolloutBatch{{Index: 1, Targets: []string{"c"}}}},
	}, Targets: []PlannedTarget{
		{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1}, {Name: "b", Outcome: OutcomeTargeted, Pass: 1, Batch: 2},
		{Name: "c", Outcome: OutcomeTargeted, Pass: 2, Batch: 1},
	}}
	return Deployment{
		ID: "hello-1", State: state,
		Plan: Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}, {Name: StepCleanup}}},
		Effective: Effective{RolloutPlan: plan, Rollout: &RolloutSpec{
			Gates: []GateSpec{{HTTP: &HTTPGate{URL: "http://127.0.0.1/health"}}}}},
		Steps: recs,
	}
}

// rec is the record of an operation of the rollout, started and, unless
// RUNNING, finished.
func rec(name string, pass, batch int, kind StepKind, state StepState) Step {
	at := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	s := Step{Name: name, Pass: pass, Batch: batch, Kind: kind, State: state, StartedAt: &at}
	if state != StepRunning {
		s.FinishedAt = &at
	}
	return s
}

// batchDone is the records of a batch whose steps succeeded.
func batchDone(pass, batch int) []Step {
	return []Step{rec(StepDeploy, pass, batch, KindRun, StepSuccess), rec(StepActivation, pass, batch, KindRun, StepSuccess)}
}

func steps(groups ...[]Step) []Step {
	var out []Step
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// TestRolloutRefusal: a request is refused when the rollout has nothing
// left for it to act on: a pause once the last batch has begun (the
// engine looks for one only before a batch), an abort once the last wave
// passed (the deploy finishes its last steps), both while a wave failed
// or the rollback runs; and as before when the deploy does not run its
// rollout, when it is paused or not, or a request is pending.
func TestRolloutRefusal(t *testing.T) {
	firstWave := steps(batchDone(1, 1), batchDone(1, 2), []Step{rec(StepGates, 1, 0, KindRun, StepSuccess)})
	lastWave := steps(firstWave, batchDone(2, 1))
	gateFailed := steps(batchDone(1, 1), batchDone(1, 2), []Step{rec(StepGates, 1, 0, KindRun, StepError)})
	const ok = ""
	tests := []struct {
		name                 string
		d                    Deployment
		pause, resume, abort string
	}{
		{"its first batch runs", refusalDeploy(StatePending, rec(StepDeploy, 1, 1, KindRun, StepRunning)),
			ok, "its rollout is not paused: running", ok},
		{"before its first batch", refusalDeploy(StatePending),
			ok, "its rollout is not paused: pending", ok},
		{"its last batch runs", refusalDeploy(StatePending, steps(firstWave, []Step{rec(StepDeploy, 2, 1, KindRun, StepRunning)})...),
			"its rollout has no batch left to start: a pause would never take effect", "its rollout is not paused: running", ok},
		{"the checkpoint of its last batch began", refusalDeploy(StatePending, steps(firstWave, []Step{rec(StepDeploy, 2, 1, KindCheckpoint, StepSuccess)})...),
			"its rollout has no batch left to start: a pause would never take effect", "its rollout is not paused: running", ok},
		{"its last wave bakes", refusalDeploy(StatePending, steps(lastWave, []Step{rec(StepBake, 2, 0, KindRun, StepRunning)})...),
			"its rollout has no batch left to start: a pause would never take effect", "its rollout is not paused: running", ok},
		{"its last wave passed its gates, cleanup left", refusalDeploy(StatePending,
			steps(lastWave, []Step{rec(StepBake, 2, 0, KindRun, StepSuccess), rec(StepGates, 2, 0, KindRun, StepSuccess)})...),
			"its rollout has no batch left to start: a pause would never take effect", "its rollout is not paused: running",
			"its rollout passed its last wave: the deploy is finishing its last steps (a cancel stops it, without rollback)"},
		{"paused on its last wave's gates", refusalDeploy(StatePending, steps(lastWave, []Step{rec(StepBake, 2, 0, KindRun, StepSuccess),
			rec(StepGates, 2, 0, KindRun, StepError), rec(StepPause, 2, 1, KindRun, StepRunning)})...),
			"its rollout is already paused", ok, ok},
		{"a wave failed its gates", refusalDeploy(StatePending, gateFailed...),
			"its rollout failed: the deploy is ending", "its rollout failed: the deploy is ending", "its rollout failed: the deploy is ending"},
		{"its rollback runs", refusalDeploy(StatePending, steps(gateFailed, []Step{rec(StepActivation, 1, 2, KindRollback, StepRunning)})...),
			"its rollout is being rolled back", "its rollout is being rolled back", "its rollout is being rolled back"},
		{"it ended", refusalDeploy(StateError, gateFailed...),
			"its rollout is not running: ERROR", "its rollout is not running: ERROR", "its rollout is not running: ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.d.RolloutStatus()
			for _, c := range []struct {
				action RolloutAction
				want   string
			}{{RolloutActionPause, tt.pause}, {RolloutActionResume, tt.resume}, {RolloutActionAbort, tt.abort}} {
				if got := RolloutRefusal(st, c.action); got != c.want {
					t.Errorf("%s: %q, want %q (rollout %s, waves %s)", c.action, got, c.want, st.State, waveStates(st))
				}
			}
		})
	}

	t.Run("the rollback recorded before its first compensation", func(t *testing.T) {
		d := refusalDeploy(StatePending, gateFailed...)
		d.Rollback = RollbackRunning
		if got := RolloutRefusal(d.RolloutStatus(), RolloutActionAbort); got != "its rollout is being rolled back" {
			t.Errorf("abort: %q", got)
		}
	})
	t.Run("a dry run", func(t *testing.T) {
		d := refusalDeploy(StatePending, rec(StepDeploy, 1, 1, KindDryRun, StepRunning))
		d.DryRun = true
		if got := RolloutRefusal(d.RolloutStatus(), RolloutActionPause); !strings.HasPrefix(got, "its rollout is not running") {
			t.Errorf("pause: %q", got)
		}
	})
	t.Run("a request pending", func(t *testing.T) {
		d := refusalDeploy(StatePending, rec(StepDeploy, 1, 1, KindRun, StepRunning))
		d.RolloutRequest = &RolloutRequest{Action: RolloutActionPause, By: "token:ci"}
		st := d.RolloutStatus()
		if got := RolloutRefusal(st, RolloutActionPause); got != "a pause of its rollout is already asked: it takes effect after the batch in flight" {
			t.Errorf("pause: %q", got)
		}
		if got := RolloutRefusal(st, RolloutActionAbort); got != "" {
			t.Errorf("abort over a pending pause: %q", got)
		}
	})
	t.Run("without rollout", func(t *testing.T) {
		d := Deployment{ID: "hello-2", State: StatePending}
		if got := RolloutRefusal(d.RolloutStatus(), RolloutActionAbort); got != "it has no rollout" {
			t.Errorf("abort: %q", got)
		}
	})
}

func waveStates(st *RolloutStatus) string {
	var out []string
	for _, w := range st.Waves {
		out = append(out, w.Name+"="+string(w.State))
	}
	return strings.Join(out, ",")
}
