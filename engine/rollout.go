package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/gates"
	"manent.dev/manent/engine/steps"
)

// A deploy with a rollout runs the plan the config step made
// (Effective.RolloutPlan): the steps of the batched span, from the first of
// deploy and activation to the last of them (and every step between), run
// once per batch with the batch's targets, batch after batch, pass after
// pass, keyed by pass and batch; the steps before and after the span run
// once, as in a deploy without rollout (pass 0, batch 0). After a pass's
// last batch come its bake, a durable wait, and its gates, whose results
// DBOS records; a failed gate fails the deploy, which then compensates
// every batch that began, most recent first.

// checkpointKey names the checkpoint of an operation: per step, pass and
// batch ("deploy", "deploy[1/2]"). A deploy without rollout keys it by the
// step's name alone, as it always did.
func checkpointKey(k deploy.StepKey) string {
	return deploy.StepKey{Step: k.Step, Pass: k.Pass, Batch: k.Batch}.Name()
}

// span is the positions of the plan run once per batch: from the first of
// deploy and activation to the last; ok is false when the plan has neither.
func (r *run) span() (lo, hi int, ok bool) {
	lo, hi = -1, -1
	for i, s := range r.in.Plan.Steps {
		if s.Name != deploy.StepDeploy && s.Name != deploy.StepActivation {
			continue
		}
		if lo < 0 {
			lo = i
		}
		hi = i
	}
	return lo, hi, lo >= 0
}

// batchAfter moves the position pos that follows prev (in pass and batch)
// across the batches of eff's rollout: into the first batch on entering the
// span, to the next batch after the last step of one (or at once, with
// skipBatch), past the span after the last batch. Empty passes have no
// batch: they are passed by.
func (r *run) batchAfter(prev, pos, pass, batch int, eff deploy.Effective, skipBatch bool) (int, int, int) {
	lo, hi, ok := r.span()
	plan := eff.RolloutPlan
	if !ok || plan == nil {
		return pos, pass, batch
	}
	inSpan := prev >= lo && prev <= hi && pass > 0
	switch {
	case prev < lo && pos >= lo:
		p, b, found := nextBatch(plan, 0, 0)
		if !found {
			return hi + 1, 0, 0
		}
		return lo, p, b
	case inSpan && (pos > hi || skipBatch):
		p, b, found := nextBatch(plan, pass, batch)
		if !found {
			return hi + 1, 0, 0
		}
		return lo, p, b
	}
	return pos, pass, batch
}

// nextBatch is the batch after batch of pass (indexes from 1; 0, 0 for the
// first of the plan).
func nextBatch(plan *deploy.RolloutPlan, pass, batch int) (int, int, bool) {
	for _, p := range plan.Passes {
		if p.Index < pass {
			continue
		}
		for _, b := range p.Batches {
			if p.Index > pass || b.Index > batch {
				return p.Index, b.Index, true
			}
		}
	}
	return 0, 0, false
}

// endsWave is the pass u ends, when the unit after it (next, if more) is in
// another pass or past the span: its bake and gates come before it.
func (r *run) endsWave(u, next unit, more bool) int {
	if u.key.Pass == 0 || u.key.Kind == deploy.KindRollback {
		return 0
	}
	if more && next.key.Pass == u.key.Pass {
		return 0
	}
	return u.key.Pass
}

// batchEffective is the effective deploy an operation of key sees: under
// a rollout, only its batch's targets.
func (r *run) batchEffective(key deploy.StepKey) deploy.Effective {
	b, ok := r.batch(key)
	if !ok {
		return r.eff
	}
	eff := r.eff
	eff.Targets = b.Select(r.eff.Targets)
	return eff
}

// batch is the batch of the plan an operation of key runs on.
func (r *run) batch(key deploy.StepKey) (deploy.RolloutBatch, bool) {
	plan := r.eff.RolloutPlan
	if plan == nil || key.Pass < 1 || key.Pass > len(plan.Passes) {
		return deploy.RolloutBatch{}, false
	}
	batches := plan.Passes[key.Pass-1].Batches
	if key.Batch < 1 || key.Batch > len(batches) {
		return deploy.RolloutBatch{}, false
	}
	return batches[key.Batch-1], true
}

// beforeBatch runs what comes before next, the first operation of a batch
// after u: a person's pause or abort; before a new wave, its deferral by a
// freeze window, then its approvals; then, before every batch, the
// calendar again: a window may have begun within the wave, or while the
// rollout waited for its approvals or a resume. After every wait (a
// deferral, the approvals), the rollout looks again for a person's
// request: a pause asked meanwhile holds the wave when the wait ends.
func (r *run) beforeBatch(ctx dbos.Context, u, next unit, done string) (*DeployResult, *failure, error) {
	pass, batch := next.key.Pass, next.key.Batch
	approved := pass == u.key.Pass || !r.asksApproval(pass)
	for {
		if res, f, err := r.between(ctx, pass, done); err != nil || res != nil {
			return res, f, err
		}
		deferred, res, f, err := r.deferWave(ctx, pass, batch, done)
		switch {
		case err != nil || res != nil:
			return res, f, err
		case deferred:
			continue
		case approved:
			return nil, nil, nil
		}
		// No approval is asked of a wave its calendar holds.
		if res, f, err := r.awaitApproval(ctx, pass, done); err != nil || res != nil {
			return res, f, err
		}
		approved = true
	}
}

// isBoundary reports whether next (if more) is the first operation of a
// batch that u is not in, of u's pass or of the first pass: before it the
// rollout looks for a person's request. The first batch of a later pass
// comes after the bake and gates of u's (endsWave), which look too.
func (r *run) isBoundary(u, next unit, more bool) bool {
	if !more || next.key.Pass == 0 || r.in.Descriptor.DryRun || u.key.Kind == deploy.KindRollback {
		return false
	}
	if u.key.Pass == 0 {
		return true
	}
	return next.key.Pass == u.key.Pass && next.key.Batch != u.key.Batch
}

// pausesOnFailure is the number of targets of u's failed batch when the
// rollout pauses on a failed wave (on_failure: pause) rather than fail.
func (r *run) pausesOnFailure(u unit) (int, bool) {
	spec := r.eff.Rollout
	b, ok := r.batch(u.key)
	if !ok || spec == nil || spec.OnFailure != deploy.RolloutPause || r.in.Descriptor.DryRun || len(b.Targets) == 0 {
		return 0, false
	}
	return len(b.Targets), true
}

// tolerates is the number of targets of u's batch when its pass tolerates
// their failure on top of those it tolerated already (max_failures is
// exceeded, never merely reached, by a failure), 0 otherwise. A failed
// operation counts every target of its batch: its batch's later steps do
// not run on any of them.
func (r *run) tolerates(u unit) int {
	b, ok := r.batch(u.key)
	if !ok {
		return 0
	}
	pass := r.eff.RolloutPlan.Passes[u.key.Pass-1]
	if n := len(b.Targets); n > 0 && r.failedTargets[u.key.Pass]+n <= pass.MaxFailures {
		return n
	}
	return 0
}

// Records of a pass's bake and gates: operations of their own in the
// deploy's steps, after the plan's (Timeline), before the compensations.
const (
	stepNameBake    = deploy.StepBake
	stepNameGates   = deploy.StepGates
	stepTypeRollout = deploy.StepTypeRollout
	// wavePosition is where they are recorded: after the plan's steps,
	// before the compensations (rollbackPosition).
	wavePosition = 300
)

// waveOp is the record of pass's bake or gates.
func (r *run) waveOp(name string, pass int) op {
	pos := wavePosition + 2*(pass-1)
	if name == stepNameGates {
		pos++
	}
	return op{deployID: r.in.ID, key: deploy.StepKey{Step: name, Pass: pass, Kind: deploy.KindRun},
		step: deploy.PlannedStep{Name: name, Type: stepTypeRollout}, pos: pos}
}

// gateRun is what DBOS records of a pass's gates.
type gateRun struct {
	Results []gates.Result `json:"results"`
	Verdict gates.Verdict  `json:"verdict"`
}

// endWave bakes pass and checks its gates. It returns the deploy's result
// when the wave ends the run: a cancel during the bake, a failed wave.
// done is the last operation that ended, for the cancel's message.
func (r *run) endWave(ctx dbos.Context, pass int, done string) (*DeployResult, *failure, error) {
	p := r.eff.RolloutPlan.Passes[pass-1]
	spec := r.eff.Rollout
	if r.in.Descriptor.DryRun {
		r.note("", "info", "wave %s: dry run: no bake, no gates", p.Name)
		return nil, nil, nil
	}
	if p.Bake > 0 {
		if res, f, err := r.bake(ctx, pass, p, done); err != nil || res != nil {
			return res, f, err
		}
	}
	if spec == nil || len(spec.Gates) == 0 {
		return nil, nil, nil
	}
	g, err := r.checkGates(ctx, pass, p, spec)
	if err != nil {
		return nil, nil, err
	}
	if g.Verdict == gates.VerdictPass {
		return nil, nil, nil
	}
	msg := gateMessage(p.Name, g)
	gatesName := deploy.StepKey{Step: stepNameGates, Pass: pass}.Name()
	if g.Verdict == gates.VerdictPause || spec.OnFailure == deploy.RolloutPause {
		// A wave that could not be judged never goes on by itself: someone
		// looks, then resumes (the wave counts as passed) or aborts.
		return r.pause(ctx, pass, msg, "", gatesName)
	}
	r.note(gatesName, "error", "%s", msg)
	f := &failure{step: stepNameGates, message: msg, always: true}
	return &DeployResult{State: deploy.StateError, Error: msg}, f, nil
}

// gateMessage says why the gates of wave did not pass: each gate that did
// not, with its detail.
func gateMessage(wave string, g gateRun) string {
	var parts []string
	for _, res := range g.Results {
		if res.State == deploy.GatePass {
			continue
		}
		part := res.Name + " " + string(res.State)
		if res.Detail != "" {
			part += " (" + res.Detail + ")"
		}
		parts = append(parts, part)
	}
	verb := "failed its gates"
	if g.Verdict == gates.VerdictPause {
		verb = "could not be judged by its gates"
	}
	return fmt.Sprintf("wave %s %s: %s", wave, verb, strings.Join(parts, "; "))
}

// bake waits p.Bake after the wave, from the start it records: a durable
// timer (sleepOrWake) that a cancel or an abort interrupts. The record of the bake
// says when it ends, for the status. It holds no slot of the process.
func (r *run) bake(ctx dbos.Context, pass int, p deploy.RolloutPass, done string) (_ *DeployResult, _ *failure, err error) {
	defer r.idle(ctx, &err)()
	o := r.waveOp(stepNameBake, pass)
	// In a DBOS transaction, as a pause's start: the start the status shows
	// is the one the workflow keeps. Should a start be written again (the
	// bake of a workflow an earlier version recorded, which wrote it apart
	// from DBOS), the record keeps the first, and so does the workflow: the
	// bake ends when the status says.
	start, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (time.Time, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return time.Time{}, err
		}
		rec := o.start()
		at := rec.StartedAt.Truncate(time.Microsecond)
		rec.StartedAt = &at
		b, err := r.e.rec.Advance(c, tx, nil, deploy.StepEffects{}, rec, deploy.BeginOptions{})
		if err != nil {
			return time.Time{}, restartable(err)
		}
		if b != nil && b.StartedAt != nil {
			at = *b.StartedAt
		}
		return at, nil
	}, r.e.txOptions(stepRolloutBake)...)
	if err != nil {
		return nil, nil, fmt.Errorf("record the bake of wave %s: %w", p.Name, err)
	}
	until := start.Add(p.Bake)
	r.note(o.key.Name(), "info", "wave %s: baking %s, until %s", p.Name, p.Bake, until.UTC().Format(time.RFC3339))
	for {
		look, err := readStep(ctx, stepRolloutBakeLook, func(c context.Context) (rolloutLook, error) {
			return r.lookAt(c, until)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("bake of wave %s: %w", p.Name, err)
		}
		if look.Cancelled {
			if err := r.endWaveOp(ctx, o, start, deploy.StepCancelled, nil, ""); err != nil {
				return nil, nil, err
			}
			msg := deploy.CancelledAt(look.CancelledBy, done, o.key.Name())
			r.note(o.key.Name(), "warn", "%s", msg)
			return &DeployResult{State: deploy.StateCancelled, Error: msg, CancelledBy: look.CancelledBy}, nil, nil
		}
		if look.Action == deploy.RolloutActionAbort {
			// An abort does not wait for the bake: the wave's targets are
			// what it brings back.
			res, f := r.aborted(look.By, look.Reason)
			if err := r.endWaveOp(ctx, o, start, deploy.StepError, nil, res.Error); err != nil {
				return nil, nil, err
			}
			return &res, f, nil
		}
		if look.Left <= 0 {
			break
		}
		// Woken early by a cancel or a request: the next look says which.
		if err := r.nap(ctx, look.Left); err != nil {
			return nil, nil, fmt.Errorf("bake of wave %s: %w", p.Name, err)
		}
	}
	return nil, nil, r.endWaveOp(ctx, o, start, deploy.StepSuccess, map[string]string{"until": until.UTC().Format(time.RFC3339)}, "")
}

// endWaveOp records the end of a bake.
func (r *run) endWaveOp(ctx dbos.Context, o op, start time.Time, state deploy.StepState, out map[string]string, msg string) error {
	_, err := readStep(ctx, stepRolloutBakeEnd, func(c context.Context) (bool, error) {
		r.live = true
		s := o.record(state)
		now := time.Now().UTC()
		s.StartedAt, s.FinishedAt, s.Attempts, s.Output, s.Error = &start, &now, 1, out, msg
		return true, r.e.inTx(c, func(q dbos.Querier) error {
			if err := r.e.unfenced(c); err != nil {
				return err
			}
			if _, err := r.e.rec.Advance(c, q, &s, deploy.StepEffects{}, nil, deploy.BeginOptions{}); err != nil {
				return err
			}
			return r.stepNotice(txOf(q), o, s)
		})
	})
	if err != nil {
		return fmt.Errorf("record the end of %s: %w", o.key.Name(), err)
	}
	return nil
}

// checkGates checks every gate of the rollout against the wave's targets,
// in one DBOS step with its record: a restart never checks again gates
// whose results were recorded, and a check interrupted by a shutdown is
// not recorded (DBOS drops the outcome of a step whose workflow stops), so
// it runs again.
func (r *run) checkGates(ctx dbos.Context, pass int, p deploy.RolloutPass, spec *deploy.RolloutSpec) (gateRun, error) {
	o := r.waveOp(stepNameGates, pass)
	targets := p.Select(r.eff.Targets)
	in := gates.WaveInput{Targets: targets, Version: r.eff.Artifact.Version, Application: r.eff.Application,
		Environment: r.eff.Environment, Tenant: r.eff.Tenant}
	g, err := dbos.RunAsStep(ctx, func(c context.Context) (gateRun, error) {
		r.live = true
		start := time.Now().UTC()
		r.e.logOp(o, "info", "wave %s: checking %d gate(s)", p.Name, len(spec.Gates))
		// The gates' credentials are resolved as the plugins' secrets
		// are: by their names in the effective deploy, now, on this worker.
		sc := &steps.Context{Env: r.e.env, Job: r.in, Key: o.key, Effective: r.eff}
		checker := gates.Checker{Client: r.e.env.HTTP, Secret: sc.Secret}
		limit := r.e.cfg.Engine.GatesTimeLimit
		if limit <= 0 {
			limit = deploy.DefaultGatesTimeLimit
		}
		dc, cancel := context.WithTimeout(c, limit)
		defer cancel()
		var g gateRun
		for _, gate := range spec.Gates {
			g.Results = append(g.Results, checker.Check(dc, gate, in))
		}
		if err := c.Err(); err != nil {
			return gateRun{}, fmt.Errorf("gates interrupted: %w", err)
		}
		if dc.Err() != nil {
			// The wave's gates as a whole took too long: what was not
			// judged in time is inconclusive, never a pass.
			for i := range g.Results {
				if g.Results[i].State == deploy.GateInconclusive {
					g.Results[i].Detail = fmt.Sprintf("not judged within engine.gates_time_limit (%s)", limit)
				}
			}
		}
		g.Verdict = gates.Decide(g.Results, spec.NoData)
		for _, res := range g.Results {
			r.e.logOp(o, "info", "gate %s: %s %s", res.Name, res.State, res.Detail)
		}
		s := o.record(deploy.StepSuccess)
		if g.Verdict != gates.VerdictPass {
			s.State, s.Error = deploy.StepError, gateMessage(p.Name, g)
		}
		now := time.Now().UTC()
		s.StartedAt, s.FinishedAt, s.Attempts, s.Output = &start, &now, 1, gateOutput(g)
		err := r.e.inTx(c, func(q dbos.Querier) error {
			if err := r.e.unfenced(c); err != nil {
				return err
			}
			if _, err := r.e.rec.Advance(c, q, &s, deploy.StepEffects{}, nil, deploy.BeginOptions{}); err != nil {
				return err
			}
			return r.stepNotice(txOf(q), o, s)
		})
		return g, err
	}, dbos.WithStepName(stepRolloutGates))
	if err != nil {
		return gateRun{}, fmt.Errorf("gates of wave %s: %w", p.Name, err)
	}
	return g, nil
}

// gateOutput is the output of a pass's gates record: the verdict and the
// checks as the status shows them (deploy.RolloutGateChecks).
func gateOutput(g gateRun) map[string]string {
	checks := make([]deploy.RolloutGateCheck, len(g.Results))
	for i, res := range g.Results {
		checks[i] = deploy.RolloutGateCheck{Name: res.Name, State: res.State, Value: res.Value, Detail: res.Detail}
	}
	b, err := json.Marshal(checks)
	if err != nil {
		b = []byte("[]")
	}
	return map[string]string{deploy.OutputGateVerdict: string(g.Verdict), deploy.OutputGateChecks: string(b)}
}
