package plugintest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

// op is one plugin operation of a step, as the engine calls it.
type op struct {
	step string
	kind deploy.StepKind
}

var (
	checkpointDeploy     = op{deploy.StepDeploy, deploy.KindCheckpoint}
	runDeploy            = op{deploy.StepDeploy, deploy.KindRun}
	checkpointActivation = op{deploy.StepActivation, deploy.KindCheckpoint}
	runActivation        = op{deploy.StepActivation, deploy.KindRun}
	rollbackActivation   = op{deploy.StepActivation, deploy.KindRollback}
	rollbackDeploy       = op{deploy.StepDeploy, deploy.KindRollback}
)

// rolledBack is a deploy that failed after its activation, with the
// engine's automatic rollback: a checkpoint before each step, their
// compensations in reverse order.
var rolledBack = []op{checkpointDeploy, runDeploy, checkpointActivation, runActivation, rollbackActivation, rollbackDeploy}

func (o op) String() string { return deploy.StepKey{Step: o.step, Kind: o.kind}.Name() }

// deployment is a deploy of a version; two deployments may share one.
type deployment struct{ id, version string }

var (
	d1 = deployment{"d1", "1.0.0"}
	d2 = deployment{"d2", "2.0.0"}
	d3 = deployment{"d3", "2.0.0"}
)

// call is an operation of a deployment. firstOnly sends it to the first
// target only: a step that failed, or a process that died, part-way.
type call struct {
	d         deployment
	op        op
	firstOnly bool
}

func (c call) String() string {
	s := c.d.id + " " + c.op.String()
	if c.firstOnly {
		s += " (first target)"
	}
	return s
}

func calls(d deployment, ops ...op) []call {
	cs := make([]call, len(ops))
	for i, o := range ops {
		cs[i] = call{d: d, op: o}
	}
	return cs
}

// inService deploys and activates d.
func inService(d deployment) []call { return calls(d, runDeploy, runActivation) }

// world is a subtest's harness and plugin instance, with the checkpoints
// the engine recorded.
type world struct {
	t           *testing.T
	h           Harness
	p           deploy.Plugin
	checkpoints map[string]deploy.Checkpoint
}

func newWorld(t *testing.T, newHarness func(t *testing.T) Harness) *world {
	h := newHarness(t)
	if n := len(h.Targets()); n < 2 {
		t.Fatalf("the harness has %d targets; the suite needs at least two", n)
	}
	return &world{t: t, h: h, p: h.Plugin(), checkpoints: map[string]deploy.Checkpoint{}}
}

// restart is the death of the process: what follows runs on a new instance.
func (w *world) restart() { w.p = w.h.Plugin() }

func (w *world) request(c call, dryRun bool) deploy.PluginRequest {
	w.t.Helper()
	kind := c.op.kind
	if dryRun && kind == deploy.KindRun {
		kind = deploy.KindDryRun
	}
	art, err := w.h.Artifact(c.d.version)
	if err != nil {
		w.t.Fatalf("artifact %s: %v", c.d.version, err)
	}
	targets := w.h.Targets()
	if c.firstOnly {
		targets = targets[:1]
	}
	name := c.String()
	var login *deploy.SSHLogin
	if l, ok := w.h.(LoginHarness); ok {
		login = l.SSH()
	}
	return deploy.PluginRequest{
		DeploymentID:   c.d.id,
		Step:           c.op.step,
		IdempotencyKey: deploy.StepKey{Step: c.op.step, Kind: kind}.IdempotencyKey(c.d.id),
		Application:    "conformance",
		Environment:    "test",
		Artifact:       deploy.Artifact{Type: "application", Name: "conformance", Version: c.d.version},
		ArtifactPath:   art.Path,
		SHA256:         art.SHA256,
		Targets:        targets,
		Params:         w.h.Params(),
		SSH:            login,
		DryRun:         dryRun,
		Secret:         w.h.Secret,
		Log:            func(format string, args ...any) { w.t.Logf("%s: %s", name, fmt.Sprintf(format, args...)) },
	}
}

// do runs c as the engine would, recording a checkpoint (not a dry run's)
// for the compensation of its step; it returns the checkpoint it took.
func (w *world) do(c call, dryRun bool) (deploy.Checkpoint, error) {
	w.t.Helper()
	ctx := w.t.Context()
	req := w.request(c, dryRun)
	key := c.d.id + ":" + c.op.step
	var err error
	switch {
	case c.op.kind == deploy.KindCheckpoint:
		var cp deploy.Checkpoint
		cp, err = w.p.Checkpoint(ctx, req)
		if err == nil && !dryRun {
			w.checkpoints[key] = cp
		}
		return cp, err
	case c.op.kind == deploy.KindRollback:
		_, err = w.p.Rollback(ctx, req, w.checkpoints[key])
	case c.op.step == deploy.StepDeploy:
		_, err = w.p.Deploy(ctx, req)
	case c.op.step == deploy.StepActivation:
		_, err = w.p.Activate(ctx, req)
	default:
		w.t.Fatalf("the suite has no run of step %q", c.op.step)
	}
	return deploy.Checkpoint{}, err
}

func (w *world) mustDo(cs ...call) deploy.Checkpoint {
	w.t.Helper()
	var cp deploy.Checkpoint
	for _, c := range cs {
		var err error
		if cp, err = w.do(c, false); err != nil {
			w.t.Fatalf("%s: %v", c, err)
		}
	}
	return cp
}

// state is what the harness observes on one target.
type state struct {
	current  string
	releases []string
	journal  []Entry
}

func (s state) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "current %q, releases %q, journal:", s.current, s.releases)
	for _, e := range s.journal {
		fmt.Fprintf(&b, "\n\t\t%s %s", e.Op, e.Key)
	}
	return b.String()
}

// snapshot is the state of every target, in the harness's order.
type snapshot []state

func (w *world) snapshot() snapshot {
	w.t.Helper()
	var s snapshot
	for _, t := range w.h.Targets() {
		cur, err := w.h.Current(t)
		if err != nil {
			w.t.Fatalf("target %s: current: %v", t.Name(), err)
		}
		rels, err := w.h.Releases(t)
		if err != nil {
			w.t.Fatalf("target %s: releases: %v", t.Name(), err)
		}
		j, err := w.h.Journal(t)
		if err != nil {
			w.t.Fatalf("target %s: journal: %v", t.Name(), err)
		}
		s = append(s, state{current: cur, releases: rels, journal: j})
	}
	return s
}

// unchanged fails the test unless the targets are as in before.
func (w *world) unchanged(before snapshot, after string) {
	w.t.Helper()
	now := w.snapshot()
	for i, t := range w.h.Targets() {
		b, n := before[i], now[i]
		if b.current != n.current || !slices.Equal(b.releases, n.releases) || !slices.Equal(b.journal, n.journal) {
			w.t.Errorf("target %s changed after %s:\n\tbefore: %s\n\tafter:  %s", t.Name(), after, b, n)
		}
	}
}

// want is the state a target must end in: journal lists the calls that
// changed it, in order.
type want struct {
	current  string
	releases []string
	journal  []call
}

// check fails the test unless every target is as wanted: the first target
// as first, the others as rest.
func (w *world) check(first, rest want) {
	w.t.Helper()
	now := w.snapshot()
	for i, t := range w.h.Targets() {
		wt := rest
		if i == 0 {
			wt = first
		}
		keys := make([]string, len(wt.journal))
		for j, c := range wt.journal {
			keys[j] = w.request(c, false).TargetKey(t)
		}
		got := make([]string, len(now[i].journal))
		for j, e := range now[i].journal {
			got[j] = e.Key
		}
		if now[i].current != wt.current || !slices.Equal(now[i].releases, wt.releases) || !slices.Equal(got, keys) {
			w.t.Errorf("target %s:\n\tgot:  %s\n\twant: current %q, releases %q, journal keys %q",
				t.Name(), now[i], wt.current, wt.releases, keys)
		}
	}
}
