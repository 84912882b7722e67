package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/gates"
	"manent.dev/manent/engine/rollout"
	"manent.dev/manent/engine/steps"
)

// standardPlan is the pipeline of the property test: a step between deploy
// and activation, so the span is more than its two ends.
var standardPlan = []deploy.PlannedStep{
	{Name: deploy.StepConfig}, {Name: deploy.StepSecrets}, {Name: deploy.StepArtifacts}, {Name: deploy.StepQA},
	{Name: deploy.StepDeploy}, {Name: deploy.StepPostTest}, {Name: deploy.StepActivation}, {Name: deploy.StepCleanup},
}

// TestRolloutWalkProperties walks the operations of random fleets under
// random rollouts, with batches failing at random points within
// max_failures, and checks what must hold for any of them: the steps
// before and after the span run once; every batch runs the span's steps
// once, in order, and never beside another batch (at most its wave's batch
// size out of service at once); batches and waves in plan order; each
// non-empty wave ends exactly once, after its last batch and before the
// next wave. The seed is fixed, so a failure replays.
func TestRolloutWalkProperties(t *testing.T) {
	const runs = 300
	rng := rand.New(rand.NewPCG(7, 2026))
	for i := range runs {
		targets := make([]deploy.Target, 1+rng.IntN(30))
		for j := range targets {
			targets[j] = deploy.Target{Path: fmt.Sprintf("t%02d", j), Labels: map[string]string{"region": []string{"eu", "us", "ap"}[rng.IntN(3)]}}
		}
		spec := randomWalkSpec(rng)
		plan, err := rollout.Plan(targets, spec)
		if err != nil {
			continue // a rejected fleet fails in the config step: nothing walks
		}
		rollback := rng.IntN(2) == 0
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkWalk(t, rng, targets, spec, plan, rollback)
		})
	}
}

func randomWalkSpec(rng *rand.Rand) *deploy.RolloutSpec {
	amount := func() deploy.Amount {
		switch rng.IntN(3) {
		case 0:
			return deploy.Amount{}
		case 1:
			return deploy.Amount{N: 1 + rng.IntN(5)}
		}
		return deploy.Amount{N: 1 + rng.IntN(100), Percent: true}
	}
	s := &deploy.RolloutSpec{MaxFailures: deploy.Amount{N: rng.IntN(4)}}
	if rng.IntN(4) == 0 {
		s.Percentages = []int{10, 50, 100}
		return s
	}
	n := 1 + rng.IntN(4)
	for i := range n {
		w := deploy.WaveSpec{Name: fmt.Sprintf("w%d", i), Count: amount(), Batch: amount()}
		if i < n-1 {
			w.Select = &deploy.Selector{Labels: map[string]string{"region": []string{"eu", "us", "ap", "mars"}[rng.IntN(4)]}}
		}
		s.Waves = append(s.Waves, w)
	}
	return s
}

func checkWalk(t *testing.T, rng *rand.Rand, targets []deploy.Target, spec *deploy.RolloutSpec, plan deploy.RolloutPlan, rollback bool) {
	t.Helper()
	eff := deploy.Effective{Targets: targets, Rollout: spec, RolloutPlan: &plan, Rollback: deploy.RollbackPolicy{Enabled: rollback}}
	r := &run{e: &Engine{kinds: steps.Standard()}, in: deploy.Job{Plan: deploy.Plan{Steps: standardPlan}}, eff: eff,
		failedTargets: map[int]int{}}
	type batchRef struct{ pass, batch int }
	var order []batchRef
	ran := map[batchRef][]string{}
	once := map[string]int{}
	ended := map[int]int{}
	lastPass := 0
	var prev *unit
	for steps := 0; ; steps++ {
		if steps > 10_000 {
			t.Fatal("the walk does not end")
		}
		u, more := r.after(prev, eff, false)
		if prev != nil {
			// A batch fails at a random point (a checkpoint too: then none
			// of its steps ran); its pass tolerates it when
			// max_failures allows (the failures the walk has seen so far).
			if n := r.tolerates(*prev); n > 0 && rng.IntN(6) == 0 {
				r.failedTargets[prev.key.Pass] += n
				u, more = r.after(prev, eff, true)
			}
			if p := r.endsWave(*prev, u, more); p > 0 {
				ended[p]++
				if more && u.key.Pass == p {
					t.Fatalf("wave %d ended before its unit %s", p, u.key.Name())
				}
			}
		}
		if !more {
			break
		}
		prev = &u
		if u.key.Kind == deploy.KindCheckpoint && !rollback {
			t.Fatalf("a checkpoint %s without rollback", u.key.Name())
		}
		if u.key.Pass == 0 {
			if u.key.Kind != deploy.KindCheckpoint {
				once[u.key.Step]++
			}
			continue
		}
		ref := batchRef{u.key.Pass, u.key.Batch}
		if n := len(order); n == 0 || order[n-1] != ref {
			if _, seen := ran[ref]; seen {
				t.Fatalf("batch %v runs again after another batch", ref)
			}
			order = append(order, ref)
			ran[ref] = []string{}
		}
		if u.key.Kind == deploy.KindCheckpoint {
			continue
		}
		if u.key.Pass < lastPass {
			t.Fatalf("pass %d after pass %d", u.key.Pass, lastPass)
		}
		lastPass = u.key.Pass
		ran[ref] = append(ran[ref], u.key.Step)
		if b, ok := r.batch(u.key); !ok || len(r.batchEffective(u.key).Targets) != len(b.Targets) {
			t.Fatalf("%s runs on %d targets, its batch has %d", u.key.Name(), len(r.batchEffective(u.key).Targets), len(b.Targets))
		}
	}
	for _, name := range []string{deploy.StepConfig, deploy.StepSecrets, deploy.StepArtifacts, deploy.StepQA} {
		if once[name] != 1 {
			t.Fatalf("%s ran %d times, want once", name, once[name])
		}
	}
	// Every batch in plan order; each runs the span's steps in order, or a
	// prefix of them when it failed within max_failures.
	i := 0
	for _, p := range plan.Passes {
		size := len(plan.Targets)
		for _, w := range spec.Waves {
			if w.Name == p.Name && !w.Batch.IsZero() {
				size = max(w.Batch.Of(p.Targets()), 1)
			}
		}
		for _, b := range p.Batches {
			ref := batchRef{p.Index, b.Index}
			if i >= len(order) || order[i] != ref {
				t.Fatalf("batch %v is not the %d-th to run (order %v)", ref, i, order)
			}
			i++
			span := []string{deploy.StepDeploy, deploy.StepPostTest, deploy.StepActivation}
			got := ran[ref]
			if (len(got) == 0 && !rollback) || len(got) > len(span) || fmt.Sprint(got) != fmt.Sprint(span[:len(got)]) {
				t.Fatalf("batch %v ran %v", ref, got)
			}
			if len(b.Targets) > size {
				t.Fatalf("batch %v puts %d targets out of service, its wave's batch is %d", ref, len(b.Targets), size)
			}
		}
		want := 0
		if len(p.Batches) > 0 {
			want = 1
		}
		if ended[p.Index] != want {
			t.Fatalf("wave %s ended %d times, want %d", p.Name, ended[p.Index], want)
		}
	}
}

// TestEmptyGateNeverPasses: whatever the other results, a wave whose gate
// got no value passes only when no_data says pass, and one that could not
// be judged never does.
func TestEmptyGateNeverPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 2026))
	states := []deploy.GateResult{deploy.GatePass, deploy.GateFail, deploy.GateNoData, deploy.GateInconclusive}
	for range 500 {
		results := []gates.Result{{State: deploy.GateNoData}}
		if rng.IntN(2) == 0 {
			results[0].State = deploy.GateInconclusive
		}
		for range rng.IntN(4) {
			results = append(results, gates.Result{State: states[rng.IntN(len(states))]})
		}
		rng.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		for _, policy := range []deploy.NoDataPolicy{deploy.NoDataFail, deploy.NoDataPause} {
			if v := gates.Decide(results, policy); v == gates.VerdictPass {
				t.Fatalf("results %+v under no_data %s pass the wave", results, policy)
			}
		}
	}
}
