package rollout_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/rollout"
)

// TestPlanProperties plans random fleets under random rollouts and checks
// what must hold for any of them: every target has exactly one outcome,
// every targeted target is in exactly one batch of its pass, no batch is
// larger than its wave's batch size, the passes are the waves in order,
// a target is in the first wave that selects it and has room, and the same
// input gives the same plan. The seed is fixed, so a failure replays.
func TestPlanProperties(t *testing.T) {
	const runs = 500
	rng := rand.New(rand.NewPCG(11, 2026))
	for run := range runs {
		targets := randomFleet(rng)
		spec := randomSpec(rng)
		t.Run(fmt.Sprint(run), func(t *testing.T) {
			plan, err := rollout.Plan(targets, spec)
			again, err2 := rollout.Plan(targets, spec)
			if !reflect.DeepEqual(plan, again) || fmt.Sprint(err) != fmt.Sprint(err2) {
				t.Fatal("the same input gave two plans")
			}
			checkPlan(t, targets, spec, plan, err)
		})
	}
}

var regionsOf = []string{"eu", "us", "ap"}

func randomFleet(rng *rand.Rand) []deploy.Target {
	n := rng.IntN(40)
	out := make([]deploy.Target, n)
	for i := range out {
		labels := map[string]string{"region": regionsOf[rng.IntN(3)], "os": "linux"}
		if rng.IntN(10) == 0 {
			labels["os"] = "windows"
		}
		if rng.IntN(8) == 0 {
			labels["maintenance"] = "true"
		}
		out[i] = deploy.Target{Path: fmt.Sprintf("t%02d", i), Labels: labels}
	}
	return out
}

func randomAmount(rng *rand.Rand, least int) deploy.Amount {
	switch rng.IntN(3) {
	case 0:
		return deploy.Amount{}
	case 1:
		return count(least + rng.IntN(6))
	}
	return percent(max(least, 1) + rng.IntN(100))
}

func randomSpec(rng *rand.Rand) *deploy.RolloutSpec {
	if rng.IntN(10) == 0 {
		return nil
	}
	s := &deploy.RolloutSpec{MaxFailures: randomAmount(rng, 0)}
	if rng.IntN(3) == 0 {
		s.Rule = sel("os", "linux")
	}
	if rng.IntN(2) == 0 {
		s.Exclude = sel("maintenance", "true")
	}
	switch rng.IntN(4) {
	case 0, 1:
		for i := range 1 + rng.IntN(5) {
			w := deploy.WaveSpec{Name: fmt.Sprintf("w%d", i), Count: randomAmount(rng, 1), Batch: randomAmount(rng, 1)}
			if rng.IntN(3) > 0 {
				w.Select = sel("region", regionsOf[rng.IntN(3)])
			}
			s.Waves = append(s.Waves, w)
		}
	case 2:
		p := 0
		for p < 100 {
			p = min(100, p+1+rng.IntN(60))
			s.Percentages = append(s.Percentages, p)
		}
	}
	return s
}

func checkPlan(t *testing.T, targets []deploy.Target, spec *deploy.RolloutSpec, plan deploy.RolloutPlan, err error) {
	t.Helper()
	if len(plan.Targets) != len(targets) {
		t.Fatalf("%d planned targets for %d", len(plan.Targets), len(targets))
	}
	in := map[string]int{} // name → times in a batch
	for pi, p := range plan.Passes {
		wantIndex := pi + 1
		if spec == nil {
			wantIndex = 0
		}
		if p.Index != wantIndex {
			t.Errorf("pass %d has index %d", pi, p.Index)
		}
		if spec != nil && len(spec.Waves) > 0 && p.Name != spec.Waves[pi].Name {
			t.Errorf("pass %d is %s, want the wave %s", pi, p.Name, spec.Waves[pi].Name)
		}
		size := p.Targets()
		if spec != nil && len(spec.Waves) > 0 && !spec.Waves[pi].Batch.IsZero() {
			size = spec.Waves[pi].Batch.Of(p.Targets())
		}
		last := -1
		for bi, b := range p.Batches {
			if len(b.Targets) == 0 || len(b.Targets) > size {
				t.Errorf("pass %s batch %d has %d targets, batch size %d", p.Name, bi, len(b.Targets), size)
			}
			if bi < len(p.Batches)-1 && len(b.Targets) != size {
				t.Errorf("pass %s batch %d has %d targets before the last, batch size %d", p.Name, bi, len(b.Targets), size)
			}
			for _, name := range b.Targets {
				in[name]++
				idx := slices.IndexFunc(targets, func(t deploy.Target) bool { return t.Name() == name })
				if idx <= last {
					t.Errorf("pass %s: %s out of the order written", p.Name, name)
				}
				last = idx
				pt := plan.Targets[idx]
				if pt.Outcome != deploy.OutcomeTargeted || pt.Pass != p.Index || pt.Batch != b.Index {
					t.Errorf("%s is in pass %d batch %d but planned %+v", name, p.Index, b.Index, pt)
				}
			}
		}
	}
	rejected := false
	for i, pt := range plan.Targets {
		tg := targets[i]
		excluded := spec != nil && spec.Exclude != nil && spec.Exclude.Matches(tg)
		switch pt.Outcome {
		case deploy.OutcomeTargeted:
			if in[pt.Name] != 1 {
				t.Errorf("%s is targeted and in %d batches", pt.Name, in[pt.Name])
			}
			if excluded || (spec != nil && spec.Rule != nil && !spec.Rule.Matches(tg)) {
				t.Errorf("%s is targeted against the rule or exclude", pt.Name)
			}
			checkFirstWave(t, targets, spec, plan, i)
		case deploy.OutcomeExcluded:
			if !excluded || in[pt.Name] != 0 {
				t.Errorf("%s is excluded: matches %v, in %d batches", pt.Name, excluded, in[pt.Name])
			}
		case deploy.OutcomeRejected:
			rejected = true
			if excluded || in[pt.Name] != 0 {
				t.Errorf("%s is rejected: excluded %v, in %d batches", pt.Name, excluded, in[pt.Name])
			}
		default:
			t.Errorf("%s has the outcome %q", pt.Name, pt.Outcome)
		}
	}
	if rejected && err == nil {
		t.Error("a target is rejected and the plan is no error")
	}
	targeted := 0
	for _, pt := range plan.Targets {
		if pt.Outcome == deploy.OutcomeTargeted {
			targeted++
		}
	}
	if err != nil && !rejected && targeted > 0 {
		t.Errorf("an error without a rejected target, with targets to deploy: %v", err)
	}
	if spec != nil && len(spec.Percentages) > 0 {
		if len(plan.Passes) != len(spec.Percentages) {
			t.Errorf("%d passes for %d percentages", len(plan.Passes), len(spec.Percentages))
		}
		for _, p := range plan.Passes {
			if targeted >= len(spec.Percentages) && p.Targets() == 0 {
				t.Errorf("pass %s is empty with %d targets for %d passes", p.Name, targeted, len(spec.Percentages))
			}
		}
	}
}

// checkFirstWave checks that targets[i] is in the first wave that selects
// it and still had room: every earlier wave that selects it is full.
func checkFirstWave(t *testing.T, targets []deploy.Target, spec *deploy.RolloutSpec, plan deploy.RolloutPlan, i int) {
	t.Helper()
	if spec == nil || len(spec.Waves) == 0 {
		return
	}
	pt := plan.Targets[i]
	w := spec.Waves[pt.Pass-1]
	if w.Select != nil && !w.Select.Matches(targets[i]) {
		t.Errorf("%s is in %s, which does not select it", pt.Name, w.Name)
	}
	for j := range pt.Pass - 1 {
		ew := spec.Waves[j]
		if (ew.Select == nil || ew.Select.Matches(targets[i])) && ew.Count.IsZero() {
			t.Errorf("%s is in %s, but %s selects it and has no count", pt.Name, w.Name, ew.Name)
		}
		if (ew.Select == nil || ew.Select.Matches(targets[i])) && !ew.Count.IsZero() && plan.Passes[j].Targets() == 0 {
			t.Errorf("%s is in %s, but %s selects it and is empty", pt.Name, w.Name, ew.Name)
		}
	}
}
