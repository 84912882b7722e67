package deploy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStatusRolloutJSON holds the rollout section of the status JSON to the
// shape the REST API, `manent status -o json` and the CI outcome print:
// snake_case, times in RFC 3339 UTC, the section left out without rollout.
func TestStatusRolloutJSON(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(90 * time.Second)
	wave, release, value := "eu", "1.2.0", 0.0042
	rollout := &RolloutStatus{
		State: RolloutRunning, CurrentWave: &wave,
		Waves: []RolloutWaveStatus{{
			Name: "eu", State: WaveBaking, Targets: []string{"eu-1"},
			Batches: []RolloutBatchStatus{{Index: 1, Targets: []string{"eu-1"}, State: StepSuccess, StartedAt: &at, FinishedAt: &later}},
			Bake:    &RolloutBake{Duration: 2 * time.Minute, Seconds: 120, Until: &later},
			Gate: &RolloutGate{State: GatePass, At: &later,
				Checks: []RolloutGateCheck{{Name: "errors", State: GatePass, Value: &value, Detail: "0.0042 is within max 0.01"}}},
		}},
		Targets: []RolloutTargetStatus{
			{Name: "eu-1", Labels: map[string]string{"region": "eu"}, Outcome: OutcomeTargeted, Wave: "eu", Batch: 1, State: StepSuccess, Release: &release},
			{Name: "us-2", Outcome: OutcomeExcluded, State: StepSkipped},
		},
	}
	const want = `{"state":"running","current_wave":"eu","waves":[{"name":"eu","state":"baking","targets":["eu-1"],` +
		`"batches":[{"index":1,"targets":["eu-1"],"state":"SUCCESS","started_at":"2026-03-01T10:00:00Z","finished_at":"2026-03-01T10:01:30Z"}],` +
		`"bake":{"seconds":120,"until":"2026-03-01T10:01:30Z"},` +
		`"gate":{"state":"pass","checks":[{"name":"errors","state":"pass","value":0.0042,"detail":"0.0042 is within max 0.01"}],"at":"2026-03-01T10:01:30Z"}}],` +
		`"targets":[{"name":"eu-1","labels":{"region":"eu"},"outcome":"targeted","wave":"eu","batch":1,"state":"SUCCESS","release":"1.2.0","error":null},` +
		`{"name":"us-2","outcome":"excluded","state":"SKIPPED","release":null,"error":null}]}`

	tests := []struct {
		name    string
		rollout *RolloutStatus
		want    string // the rollout member of the status; "" when absent
	}{
		{"a deploy without rollout", nil, ""},
		{"a rollout baking its first wave", rollout, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := NewStatus(&Deployment{ID: "hello-1", State: StatePending, CreatedAt: at})
			st.Rollout = tt.rollout
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				t.Fatal(err)
			}
			got, ok := fields["rollout"]
			if tt.want == "" {
				if ok {
					t.Fatalf("status has rollout %s, want none", got)
				}
				return
			}
			if string(got) != tt.want {
				t.Errorf("rollout =\n%s\nwant\n%s", got, tt.want)
			}
			if strings.Contains(string(got), "Duration") {
				t.Error("the bake's Go duration leaked into the JSON")
			}
		})
	}
}

// TestRolloutStatusDryRunWaveNotBaking: a dry run of a rollout runs no bake
// (docs/rollouts.md: "without bake or gates"), so no bake is ever recorded:
// while the second wave of the dry run runs, the first wave, whose batches
// all succeeded, reads passed, and the current wave is the second.
func TestRolloutStatusDryRunWaveNotBaking(t *testing.T) {
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

// TestRolloutStatusOfDeployEndedBeforeStart: a deploy with a rollout that
// ends before it starts (cancelled in the queue, rejected by an approver,
// expired) is terminal, and so is its rollout: aborted, its waves skipped,
// its targets cancelled (a cancel) or skipped, so a client waiting for the
// rollout to end sees it end.
func TestRolloutStatusOfDeployEndedBeforeStart(t *testing.T) {
	plan := &RolloutPlan{
		Passes: []RolloutPass{
			{Index: 1, Name: "one", Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}}},
			{Index: 2, Name: "none", Batches: []RolloutBatch{}},
		},
		Targets: []PlannedTarget{{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1}, {Name: "m", Outcome: OutcomeExcluded}},
	}
	tests := []struct {
		state  State
		target StepState
	}{
		{StateCancelled, StepCancelled},
		{StateRejected, StepSkipped},
		{StateExpired, StepSkipped},
		{StateDependencyFailed, StepSkipped},
		{StateError, StepSkipped},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			d := Deployment{State: tt.state, Plan: Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}}, Rollout: plan}}
			st := d.RolloutStatus()
			if st.State != RolloutAborted {
				t.Errorf("rollout %s, want aborted", st.State)
			}
			if got := []WaveState{st.Waves[0].State, st.Waves[1].State}; got[0] != WaveSkipped || got[1] != WaveEmpty {
				t.Errorf("waves %v, want [skipped empty]", got)
			}
			if st.Waves[0].Batches[0].State != tt.target {
				t.Errorf("batch %s, want %s", st.Waves[0].Batches[0].State, tt.target)
			}
			if got := []StepState{st.Targets[0].State, st.Targets[1].State}; got[0] != tt.target || got[1] != StepSkipped {
				t.Errorf("targets %v, want [%s SKIPPED]", got, tt.target)
			}
		})
	}
}

// TestRolloutStatusWaveAroundItsBake: in a real run, a wave whose batches
// are done but whose bake is not recorded yet is still running (there is
// no end to count down to), baking with its until once the bake is
// recorded; a wave the plan gave no target is empty, not skipped.
func TestRolloutStatusWaveAroundItsBake(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(time.Second)
	plan := &RolloutPlan{
		Passes: []RolloutPass{
			{Index: 1, Name: "one", Bake: time.Minute, Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}}},
			{Index: 2, Name: "none", Batches: []RolloutBatch{}},
			{Index: 3, Name: "two", Batches: []RolloutBatch{{Index: 1, Targets: []string{"b"}}}},
		},
		Targets: []PlannedTarget{
			{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1},
			{Name: "b", Outcome: OutcomeTargeted, Pass: 3, Batch: 1},
		},
	}
	done := func(step string) Step {
		return Step{Name: step, Pass: 1, Batch: 1, Kind: KindRun, State: StepSuccess, StartedAt: &at, FinishedAt: &later}
	}
	batch := []Step{done(StepDeploy), done(StepActivation)}
	bake := Step{Name: StepBake, Pass: 1, Kind: KindRun, State: StepRunning, StartedAt: &later}
	tests := []struct {
		name  string
		steps []Step
		want  WaveState
		until bool
	}{
		{"its batch done, its bake not recorded yet", batch, WaveRunning, false},
		{"its bake recorded", append(slices.Clone(batch), bake), WaveBaking, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Deployment{
				State: StatePending, StartedAt: &at,
				Plan:      Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}}},
				Effective: Effective{RolloutPlan: plan, Rollout: &RolloutSpec{Bake: time.Minute}},
				Steps:     tt.steps,
			}
			st := d.RolloutStatus()
			w := st.Waves[0]
			if w.State != tt.want {
				t.Errorf("wave one: %s, want %s", w.State, tt.want)
			}
			if got := w.Bake != nil && w.Bake.Until != nil; got != tt.until {
				t.Errorf("bake %+v: until set %v, want %v", w.Bake, got, tt.until)
			}
			if tt.until && !w.Bake.Until.Equal(later.Add(time.Minute)) {
				t.Errorf("bake until %v, want %v", w.Bake.Until, later.Add(time.Minute))
			}
			if st.CurrentWave == nil || *st.CurrentWave != "one" {
				t.Errorf("current wave %s, want one", deref(st.CurrentWave))
			}
			if st.Waves[1].State != WaveEmpty {
				t.Errorf("the wave without target: %s, want empty", st.Waves[1].State)
			}
		})
	}
}

// TestRolloutStatusFollowsTheConfigStepsPlan: the status shows the plan the
// config step made from the configuration valid when the deploy ran (none
// when that configuration has no rollout, the refused one when it rejected
// a target), the submission's only until the step ended or when it failed
// before it planned.
func TestRolloutStatusFollowsTheConfigStepsPlan(t *testing.T) {
	onePass := func(labels map[string]string, targets ...string) *RolloutPlan {
		p := &RolloutPlan{Passes: []RolloutPass{{Index: 1, Name: "one", Batches: []RolloutBatch{{Index: 1, Targets: targets}}}}}
		for _, n := range targets {
			p.Targets = append(p.Targets, PlannedTarget{Name: n, Labels: labels, Outcome: OutcomeTargeted, Pass: 1, Batch: 1})
		}
		return p
	}
	submitted := onePass(map[string]string{"os": "linux"}, "a", "b")
	run := onePass(nil, "a")
	refused := onePass(nil, "a")
	refused.Targets = append(refused.Targets, PlannedTarget{Name: "b", Labels: map[string]string{"os": "windows"},
		Outcome: OutcomeRejected, Reason: "does not match rollout.rule: os is windows, not linux"})
	raw, err := json.Marshal(refused)
	if err != nil {
		t.Fatal(err)
	}
	config := func(kind StepKind, state StepState, out map[string]string) []Step {
		return []Step{{Name: StepConfig, Kind: kind, State: state, Output: out}}
	}
	tests := []struct {
		name      string
		state     State
		effective *RolloutPlan
		steps     []Step
		want      *RolloutPlan
	}{
		{"queued: the submission's", StatePending, nil, nil, submitted},
		{"config running: the submission's", StatePending, nil, config(KindRun, StepRunning, nil), submitted},
		{"config done: its plan", StatePending, run, config(KindRun, StepSuccess, nil), run},
		{"config done without rollout: none", StateSuccess, nil, config(KindRun, StepSuccess, nil), nil},
		{"dry run done without rollout: none", StateSuccess, nil, config(KindDryRun, StepSuccess, nil), nil},
		{"config refused a target: the refused plan", StateError, nil,
			config(KindRun, StepError, map[string]string{OutputRolloutPlan: string(raw)}), refused},
		{"config failed before it planned: the submission's", StateError, nil, config(KindRun, StepError, nil), submitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Deployment{State: tt.state, Plan: Plan{Steps: []PlannedStep{{Name: StepConfig}, {Name: StepDeploy}, {Name: StepActivation}},
				Rollout: submitted}, Effective: Effective{RolloutPlan: tt.effective}, Steps: tt.steps}
			st := d.RolloutStatus()
			if tt.want == nil {
				if st != nil {
					t.Fatalf("status %+v, want no rollout", st)
				}
				return
			}
			if st == nil {
				t.Fatal("no rollout status")
			}
			var got, want []string
			for _, tg := range st.Targets {
				got = append(got, tg.Name+":"+string(tg.Outcome)+":"+tg.Labels["os"]+":"+deref(tg.Error))
			}
			for _, tg := range tt.want.Targets {
				why := "<nil>"
				if tg.Reason != "" {
					why = "rejected: " + tg.Reason
				}
				want = append(want, tg.Name+":"+string(tg.Outcome)+":"+tg.Labels["os"]+":"+why)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("targets %v, want %v", got, want)
			}
		})
	}
}

// TestRolloutStatusDeferredTargets: while a wave is deferred, the targets
// its freeze window selects among those the wave has left are deferred; a
// target of a batch already done keeps its outcome (it runs the release),
// and so does one no window selects (it only waits its turn).
func TestRolloutStatusDeferredTargets(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	later := at.Add(time.Second)
	plan := &RolloutPlan{
		Passes: []RolloutPass{{Index: 1, Name: "eu", Batches: []RolloutBatch{
			{Index: 1, Targets: []string{"a"}}, {Index: 2, Targets: []string{"b"}}, {Index: 3, Targets: []string{"c,d"}}}}},
		Targets: []PlannedTarget{
			{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1},
			{Name: "b", Outcome: OutcomeTargeted, Pass: 1, Batch: 2},
			{Name: "c,d", Outcome: OutcomeTargeted, Pass: 1, Batch: 3},
		},
	}
	done := func(step string) Step {
		return Step{Name: step, Pass: 1, Batch: 1, Kind: KindRun, State: StepSuccess, StartedAt: &at, FinishedAt: &later}
	}
	deferral := func(targets *string) Step {
		s := Step{Name: StepDefer, Pass: 1, Kind: KindRun, State: StepRunning, StartedAt: &later,
			Output: map[string]string{OutputDeferWindow: "eu-maintenance", OutputDeferUntil: later.Add(time.Hour).Format(time.RFC3339Nano)}}
		if targets != nil {
			s.Output[OutputDeferTargets] = *targets
		}
		return s
	}
	tests := []struct {
		name  string
		steps []Step
		want  []string // each target's outcome and state
	}{
		{"before the wave, the window over a and c,d", []Step{deferral(ptr("a,c,d"))},
			[]string{"deferred PENDING", "targeted PENDING", "deferred PENDING"}},
		{"mid-wave, the window over b", []Step{done(StepDeploy), done(StepActivation), deferral(ptr("b"))},
			[]string{"targeted SUCCESS", "deferred PENDING", "targeted PENDING"}},
		{"mid-wave, a record without its targets", []Step{done(StepDeploy), done(StepActivation), deferral(nil)},
			[]string{"targeted SUCCESS", "deferred PENDING", "deferred PENDING"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Deployment{
				State: StatePending, StartedAt: &at,
				Plan:      Plan{Steps: []PlannedStep{{Name: StepDeploy}, {Name: StepActivation}}},
				Effective: Effective{RolloutPlan: plan, Rollout: &RolloutSpec{}},
				Steps:     tt.steps,
			}
			st := d.RolloutStatus()
			if st.State != RolloutDeferred || st.Waves[0].State != WaveDeferred {
				t.Fatalf("rollout %s, wave %s: want deferred", st.State, st.Waves[0].State)
			}
			var got []string
			for _, tg := range st.Targets {
				got = append(got, string(tg.Outcome)+" "+string(tg.State))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("targets %q, want %q", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestRolloutStatusReleaseOfRolledBackTargets: a rolled-back target shows
// the version in service before the deploy: the first checkpoint of
// activation's (what the compensation of activation put back), else, for
// a batch rolled back before any activation, the config step's.
func TestRolloutStatusReleaseOfRolledBackTargets(t *testing.T) {
	plan := &RolloutPlan{
		Passes:  []RolloutPass{{Index: 1, Name: "one", Batches: []RolloutBatch{{Index: 1, Targets: []string{"a"}}}}},
		Targets: []PlannedTarget{{Name: "a", Outcome: OutcomeTargeted, Pass: 1, Batch: 1}},
	}
	in := func(v string) map[string]string { return map[string]string{OutputInServiceVersion: v} }
	config := Step{Name: StepConfig, Kind: KindRun, State: StepSuccess, Output: in("1.0.0")}
	deployed := Step{Name: StepDeploy, Pass: 1, Batch: 1, Kind: KindRun, State: StepSuccess}
	undeployed := Step{Name: StepDeploy, Pass: 1, Batch: 1, Kind: KindRollback, State: StepSuccess}
	checkpoint := Step{Name: StepActivation, Pass: 1, Batch: 1, Kind: KindCheckpoint, State: StepSuccess, Output: in("0.9.0")}
	activated := Step{Name: StepActivation, Pass: 1, Batch: 1, Kind: KindRun, State: StepSuccess}
	deactivated := Step{Name: StepActivation, Pass: 1, Batch: 1, Kind: KindRollback, State: StepSuccess}
	postTest := Step{Name: StepPostTest, Pass: 1, Batch: 1, Kind: KindRun, State: StepError}
	tests := []struct {
		name  string
		steps []Step
		want  string
	}{
		{"failed before activation", []Step{config, deployed, postTest, undeployed}, "1.0.0"},
		{"failed before activation, a first deploy", []Step{{Name: StepConfig, Kind: KindRun, State: StepSuccess, Output: in("")},
			deployed, postTest, undeployed}, "<nil>"},
		{"rolled back after activation", []Step{config, deployed, checkpoint, activated, deactivated, undeployed}, "0.9.0"},
		{"records without the config step's", []Step{{Name: StepConfig, Kind: KindRun, State: StepSuccess},
			deployed, checkpoint, activated, deactivated, undeployed}, "0.9.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Deployment{State: StateError, Effective: Effective{RolloutPlan: plan},
				Plan:  Plan{Steps: []PlannedStep{{Name: StepConfig}, {Name: StepDeploy}, {Name: StepPostTest}, {Name: StepActivation}}},
				Steps: tt.steps}
			a := d.RolloutStatus().Targets[0]
			if a.State != TargetRolledBack || deref(a.Release) != tt.want {
				t.Errorf("target: %s, release %s; want ROLLED_BACK, %s", a.State, deref(a.Release), tt.want)
			}
		})
	}
}
