package plugintest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"manent.dev/manent/deploy"
)

// Run runs the suite. newHarness is called once per subtest and returns a
// harness over empty targets; it may use t for its cleanup and to fail its
// setup.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Run("scenarios", func(t *testing.T) { testScenarios(t, newHarness) })
	t.Run("checkpoint changes nothing", func(t *testing.T) { testCheckpoint(t, newHarness) })
	t.Run("dry run changes nothing", func(t *testing.T) { testDryRun(t, newHarness) })
	t.Run("rollback of a deploy in service is refused", func(t *testing.T) { testRefusedInService(t, newHarness) })
	t.Run("other steps are refused", func(t *testing.T) { testUnknownStep(t, newHarness) })
	t.Run("an artifact over its limits is refused", func(t *testing.T) { testLimits(t, newHarness) })
}

// scenario is a deploy under test (when) on targets prepared by given. The
// first target ends as first, the others as rest (nil: as first). Wanted
// journals hold each target's key of every call that changed it, which
// proves both that a repeated call did nothing and that a journal entry
// carries the request's key for its target.
type scenario struct {
	name  string
	given []call
	when  []call
	first want
	rest  *want
}

func scenarios() []scenario {
	v1 := []string{d1.version}
	activationFailed := calls(d2, rolledBack...)
	activationFailed[3].firstOnly = true
	deployFailed := calls(d2, checkpointDeploy, runDeploy, rollbackDeploy)
	deployFailed[1].firstOnly = true
	return []scenario{{
		name:  "rolled back after activation",
		given: inService(d1),
		when:  calls(d2, rolledBack...),
		first: want{current: d1.version, releases: v1,
			journal: append(inService(d1), calls(d2, runDeploy, runActivation, rollbackActivation, rollbackDeploy)...)},
	}, {
		name:  "first deploy rolled back",
		when:  calls(d1, rolledBack...),
		first: want{journal: calls(d1, runDeploy, runActivation, rollbackActivation, rollbackDeploy)},
	}, {
		name:  "rolled back before activation",
		given: inService(d1),
		when:  calls(d2, checkpointDeploy, runDeploy, rollbackDeploy),
		first: want{current: d1.version, releases: v1, journal: append(inService(d1), calls(d2, runDeploy, rollbackDeploy)...)},
	}, {
		// d3 deploys 2.0.0 again: its rollback keeps the release d2 left.
		name:  "release present before is kept",
		given: append(inService(d1), call{d: d2, op: runDeploy}),
		when:  calls(d3, rolledBack...),
		first: want{current: d1.version, releases: []string{d1.version, d2.version},
			journal: append(inService(d1), call{d: d2, op: runDeploy}, call{d: d3, op: runActivation}, call{d: d3, op: rollbackActivation})},
	}, {
		name:  "activation failed part-way",
		given: inService(d1),
		when:  activationFailed,
		first: want{current: d1.version, releases: v1,
			journal: append(inService(d1), calls(d2, runDeploy, runActivation, rollbackActivation, rollbackDeploy)...)},
		rest: &want{current: d1.version, releases: v1, journal: append(inService(d1), calls(d2, runDeploy, rollbackDeploy)...)},
	}, {
		name:  "deploy failed part-way",
		given: inService(d1),
		when:  deployFailed,
		first: want{current: d1.version, releases: v1, journal: append(inService(d1), calls(d2, runDeploy, rollbackDeploy)...)},
		rest:  &want{current: d1.version, releases: v1, journal: inService(d1)},
	}, {
		name:  "deploy failed before any target",
		given: inService(d1),
		when:  calls(d2, checkpointDeploy, rollbackDeploy),
		first: want{current: d1.version, releases: v1, journal: inService(d1)},
	}}
}

// interruption is what happens to the process at one call of a scenario;
// the calls after it go on as usual.
type interruption struct {
	name string
	// partWay needs a call to more than one target.
	partWay bool
	run     func(w *world, c call)
}

var interruptions = []interruption{{
	name: "repeated",
	run:  func(w *world, c call) { w.repeat(c, false) },
}, {
	name: "death after",
	run:  func(w *world, c call) { w.repeat(c, true) },
}, {
	name:    "death part-way through",
	partWay: true,
	run: func(w *world, c call) {
		part := c
		part.firstOnly = true
		w.mustDo(part)
		w.restart()
		w.mustDo(c)
	},
}}

// repeat runs c twice, the second time on a new instance after a death:
// the second run must change nothing and give the same checkpoint.
func (w *world) repeat(c call, death bool) {
	w.t.Helper()
	cp := w.mustDo(c)
	before := w.snapshot()
	if death {
		w.restart()
	}
	if again := w.mustDo(c); !reflect.DeepEqual(again, cp) {
		w.t.Errorf("%s gave %v, then %v", c, cp, again)
	}
	w.unchanged(before, "repeating "+c.String())
}

// testScenarios runs every scenario as it is, then with each interruption
// at each of its calls.
func testScenarios(t *testing.T, newHarness func(t *testing.T) Harness) {
	for _, sc := range scenarios() {
		rest := sc.first
		if sc.rest != nil {
			rest = *sc.rest
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Run("uninterrupted", func(t *testing.T) {
				w := newWorld(t, newHarness)
				w.mustDo(sc.given...)
				w.mustDo(sc.when...)
				w.check(sc.first, rest)
			})
			for k, at := range sc.when {
				for _, in := range interruptions {
					if in.partWay && at.firstOnly {
						continue
					}
					t.Run(in.name+" "+at.op.String(), func(t *testing.T) {
						w := newWorld(t, newHarness)
						w.mustDo(sc.given...)
						w.mustDo(sc.when[:k]...)
						in.run(w, at)
						w.mustDo(sc.when[k+1:]...)
						w.check(sc.first, rest)
					})
				}
			}
		})
	}
}

// givens are states of the targets before a deploy of 2.0.0.
var givens = []struct {
	name  string
	calls []call
}{
	{"empty targets", nil},
	{"1.0.0 in service", inService(d1)},
	{"2.0.0 beside 1.0.0 in service", append(inService(d1), call{d: d2, op: runDeploy})},
}

// testCheckpoint takes each step's checkpoint twice, on two instances: the
// same data, and nothing changed.
func testCheckpoint(t *testing.T, newHarness func(t *testing.T) Harness) {
	for _, g := range givens {
		for _, o := range []op{checkpointDeploy, checkpointActivation} {
			t.Run(o.String()+" on "+g.name, func(t *testing.T) {
				w := newWorld(t, newHarness)
				w.mustDo(g.calls...)
				before := w.snapshot()
				w.repeat(call{d: d3, op: o}, true)
				w.unchanged(before, o.String())
			})
		}
	}
}

// testDryRun runs each call of every scenario as a dry run, after the calls
// before it ran for real; then a whole dry-run deploy.
func testDryRun(t *testing.T, newHarness func(t *testing.T) Harness) {
	for _, sc := range scenarios() {
		for k, c := range sc.when {
			t.Run(sc.name+" "+c.op.String(), func(t *testing.T) {
				w := newWorld(t, newHarness)
				w.mustDo(sc.given...)
				w.mustDo(sc.when[:k]...)
				before := w.snapshot()
				if _, err := w.do(c, true); err != nil {
					t.Fatalf("dry-run %s: %v", c, err)
				}
				w.unchanged(before, "dry-run "+c.String())
			})
		}
	}
	for _, g := range givens {
		t.Run("whole deploy on "+g.name, func(t *testing.T) {
			w := newWorld(t, newHarness)
			w.mustDo(g.calls...)
			before := w.snapshot()
			for _, c := range calls(d3, checkpointDeploy, runDeploy, checkpointActivation, runActivation) {
				if _, err := w.do(c, true); err != nil {
					t.Fatalf("dry-run %s: %v", c, err)
				}
			}
			w.unchanged(before, "a dry-run deploy")
		})
	}
}

// testRefusedInService compensates a deploy whose activation was not
// undone: refused permanently, before and after a death, removing nothing.
func testRefusedInService(t *testing.T, newHarness func(t *testing.T) Harness) {
	w := newWorld(t, newHarness)
	w.mustDo(inService(d1)...)
	w.mustDo(calls(d2, checkpointDeploy, runDeploy, checkpointActivation, runActivation)...)
	before := w.snapshot()
	for _, death := range []bool{false, true} {
		if death {
			w.restart()
		}
		if _, err := w.do(call{d: d2, op: rollbackDeploy}, false); !deploy.IsPermanent(err) {
			t.Fatalf("rollback:deploy of the release in service (death %v): %v, want a permanent error", death, err)
		}
		w.unchanged(before, "a refused rollback:deploy")
	}
	for i, tg := range w.h.Targets() {
		if !slices.Contains(before[i].releases, d2.version) {
			t.Errorf("target %s: release %s missing before the rollback: %s", tg.Name(), d2.version, before[i])
		}
	}
}

// testUnknownStep asks for the checkpoint and the compensation of a step
// that has none.
func testUnknownStep(t *testing.T, newHarness func(t *testing.T) Harness) {
	w := newWorld(t, newHarness)
	w.mustDo(inService(d1)...)
	before := w.snapshot()
	for _, kind := range []deploy.StepKind{deploy.KindCheckpoint, deploy.KindRollback} {
		c := call{d: d2, op: op{deploy.StepPostTest, kind}}
		if _, err := w.do(c, false); !deploy.IsPermanent(err) {
			t.Errorf("%s: %v, want a permanent error", c, err)
		}
	}
	w.unchanged(before, "refused calls")
}

// testLimits deploys an artifact over the limits of its request, for real
// and as a dry run, on targets in each given state: refused permanently,
// and nothing changed; then the same deploy within the default limits goes
// through, so nothing of the refusal was left in its way.
func testLimits(t *testing.T, newHarness func(t *testing.T) Harness) {
	limits := map[string]deploy.ArchiveLimits{
		"one entry": {MaxEntries: 1},
		"one byte":  {MaxBytes: 1},
	}
	for _, g := range givens {
		for name, lim := range limits {
			t.Run(name+" on "+g.name, func(t *testing.T) {
				w := newWorld(t, newHarness)
				w.mustDo(g.calls...)
				before := w.snapshot()
				c := call{d: d3, op: runDeploy}
				for _, dryRun := range []bool{true, false} {
					req := w.request(c, dryRun)
					req.Limits = lim
					if _, err := w.p.Deploy(t.Context(), req); !deploy.IsPermanent(err) {
						t.Fatalf("deploy (dry run %v) over %+v: %v, want a permanent error", dryRun, lim, err)
					}
					w.unchanged(before, fmt.Sprintf("a deploy (dry run %v) refused for its limits", dryRun))
				}
				w.restart()
				w.mustDo(c)
			})
		}
	}
}
