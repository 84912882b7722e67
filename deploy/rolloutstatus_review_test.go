package deploy

import (
	"testing"
	"time"
)

// TestReviewDryRunWaveNotBaking: a dry run of a rollout runs no bake
// (docs/rollouts.md: "without bake or gates"), so no bake is ever recorded.
// While the second wave of the dry run runs, the first wave, whose batches
// all succeeded, must read passed, and the current wave is the second; the
// status shows the first as "baking" without until for the rest of the
// dry run, and current_wave names it.
func TestReviewDryRunWaveNotBaking(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(time.Second)
	plan := &RolloutPlan{
		Passes: []RolloutPass{
			{Index: 1, Name: "one", Bake: time.Minute, Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}}},
			{Index: 2, Name: "two", Bake: time.Minute, Batches: []RolloutBatch{{Index: 1, Targets: []string{"b"}}}},
		},
		Targets: []PlannedTarget{
			{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1},
			{Name: "b", Outcome: OutcomeTargeted, Pass: 2, Batch: 1},
		},
	}
	rec := func(step string, pass int, state StepState, finished bool) Step {
		s := Step{Name: step, Pass: pass, Batch: 1, Kind: KindDryRun, State: state, StartedAt: &at}
		if finished {
			s.FinishedAt = &later
		}
		return s
	}
	d := Deployment{
		State: StatePending, DryRun: true, StartedAt: &at,
		Plan:      Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}}},
		Effective: Effective{RolloutPlan: plan, Rollout: &RolloutSpec{Bake: time.Minute}},
		Steps: []Step{
			rec(StepDeploy, 1, StepSuccess, true), rec(StepActivation, 1, StepSuccess, true),
			rec(StepDeploy, 2, StepRunning, false),
		},
	}
	st := d.RolloutStatus()
	if got := st.Waves[0].State; got != WavePassed {
		t.Errorf("wave one (dry run, its batch done, wave two running): %s, want passed", got)
	}
	if st.CurrentWave == nil || *st.CurrentWave != "two" {
		t.Errorf("current_wave %q, want two", deref(st.CurrentWave))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestReviewRolloutOfDeployEndedBeforeStart: a deploy with a rollout that
// ends before it starts (cancelled in the queue, rejected by an approver)
// is terminal, but its rollout stays "pending" forever: a client waiting
// for the rollout to end (state completed or aborted) never sees it end.
func TestReviewRolloutOfDeployEndedBeforeStart(t *testing.T) {
	plan := &RolloutPlan{
		Passes:  []RolloutPass{{Index: 1, Name: "one", Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}}}},
		Targets: []PlannedTarget{{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1}},
	}
	for _, s := range []State{StateCancelled, StateRejected} {
		d := Deployment{State: s, Plan: Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}}, Rollout: plan}}
		if got := d.RolloutStatus().State; got != RolloutAborted {
			t.Errorf("deploy %s before it started: rollout %s, want aborted", s, got)
		}
	}
}
