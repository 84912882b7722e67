package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/chains"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
)

// DeployResult is the deploy workflow's output.
type DeployResult struct {
	State    deploy.State `json:"state"`
	Error    string       `json:"error,omitempty"`
	Rollback string       `json:"rollback,omitempty"`
}

// started is what the first step of a deploy found.
type started struct {
	Started bool          `json:"started"`
	Begun   *deploy.Begun `json:"begun,omitempty"`
}

// failure is why a deploy did not succeed.
type failure struct {
	step    string
	message string
	// crashed: the step kept stopping its worker.
	crashed bool
	// unit is the operation that failed; nil for the exports check.
	unit *unit
}

// deployWorkflow is the durable deploy. It only orchestrates: every side
// effect happens inside a step, and the sequence of steps depends only on
// the input and on recorded results, never on the clock.
func (e *Engine) deployWorkflow(ctx dbos.Context, in deploy.Job) (DeployResult, error) {
	r := e.newRun(in)
	first, _ := r.next(nil)
	st, err := dbos.RunAsTransaction(ctx, e.ds, func(c context.Context, tx dbos.Tx) (started, error) {
		if err := e.unfenced(c); err != nil {
			return started{}, err
		}
		ok, err := e.rec.StartRun(c, tx, in.ID, time.Now().UTC())
		if err != nil || !ok {
			return started{}, err
		}
		if !e.gate.open() {
			return started{Started: true}, nil
		}
		b, err := e.beginIn(c, tx, r.op(first))
		if err != nil {
			return started{}, err
		}
		r.begunHere[first.key] = true
		return started{Started: true, Begun: &b}, nil
	}, e.txOptions(stepStart)...)
	if err != nil {
		return DeployResult{}, fmt.Errorf("start the deploy: %w", err)
	}
	if !st.Started {
		// Cancelled while it waited in the queue: nothing ran; a change
		// ticket opened while it waited is closed.
		if in.Change != nil {
			e.closeChange(ctx, in.ID, in.Change, "cancelled")
		}
		return DeployResult{State: deploy.StateCancelled}, nil
	}

	outcome, fail, err := r.runPlan(ctx, first, st.Begun)
	if err != nil {
		return DeployResult{}, err
	}
	rollback := r.rollbackOutcome(outcome.State, fail)
	if rollback == deploy.RollbackRunning {
		if rollback, err = r.compensate(ctx, fail); err != nil {
			return DeployResult{}, err
		}
	}
	if err := r.cleanup(ctx); err != nil {
		return DeployResult{}, err
	}
	if in.Change != nil {
		e.closeChange(ctx, in.ID, in.Change, changeOutcome(outcome.State))
	}
	outcome.Rollback = rollback
	if err := r.finish(ctx, outcome, fail); err != nil {
		return DeployResult{}, err
	}
	return outcome, nil
}

// unit is one operation of the plan: the run (or dry run) of a planned
// step, or the checkpoint before it.
type unit struct {
	key  deploy.StepKey
	pos  int
	step deploy.PlannedStep
}

// run is the in-memory side of one execution of a deploy workflow. It holds
// nothing that a resumed workflow could not rebuild from recorded results.
type run struct {
	e   *Engine
	in  deploy.Job
	eff deploy.Effective
	sha string
	// outputs are the outputs of the steps run so far, for the exports.
	outputs     map[string]map[string]string
	checkpoints map[string]deploy.Checkpoint
	// inServiceBefore is the deploy in service when activation's checkpoint
	// was taken, which its compensation gives the inventory back.
	inServiceBefore string
	// ran lists the runs that began, in order: what a rollback compensates.
	ran []unit
	// begunHere are the operations whose start this execution recorded
	// itself: any other it resumes was begun by a process that stopped.
	begunHere map[deploy.StepKey]bool
	exports   []deploy.Export
	exported  bool
	// cleanupBegun is cleanup's start when the last step recorded it.
	cleanupBegun *deploy.Begun
}

func (e *Engine) newRun(in deploy.Job) *run {
	return &run{e: e, in: in, eff: in.Effective, outputs: map[string]map[string]string{},
		checkpoints: map[string]deploy.Checkpoint{}, begunHere: map[deploy.StepKey]bool{}}
}

func (r *run) runKind() deploy.StepKind {
	if r.in.Descriptor.DryRun {
		return deploy.KindDryRun
	}
	return deploy.KindRun
}

// next returns the unit after u (the first one for nil), or false after the
// last step before cleanup. A step that can be undone is preceded by its
// checkpoint when the deploy's rollback policy, decided by the config step,
// is on.
func (r *run) next(u *unit) (unit, bool) {
	pos := 0
	if u != nil {
		if u.key.Kind == deploy.KindCheckpoint {
			return r.runUnit(u.pos), true
		}
		pos = u.pos + 1
	}
	if pos >= len(r.in.Plan.Steps) || r.in.Plan.Steps[pos].Name == deploy.StepCleanup {
		return unit{}, false
	}
	step := r.in.Plan.Steps[pos]
	if r.eff.Rollback.Enabled && !r.in.Descriptor.DryRun && r.e.kinds.Undoable(step) {
		return unit{key: deploy.StepKey{Step: step.Name, Kind: deploy.KindCheckpoint}, pos: pos, step: step}, true
	}
	return r.runUnit(pos), true
}

func (r *run) runUnit(pos int) unit {
	step := r.in.Plan.Steps[pos]
	return unit{key: deploy.StepKey{Step: step.Name, Kind: r.runKind()}, pos: pos, step: step}
}

// op is the operation of a unit.
func (r *run) op(u unit) op {
	o := op{deployID: r.in.ID, key: u.key, step: u.step, pos: u.pos,
		begin: deploy.BeginOptions{HonourCancel: true}}
	if u.key.Kind == deploy.KindCheckpoint {
		// A checkpoint is a reading: it has no retries of its own beyond
		// the step's, and cannot time out beyond it either.
		o.begin.ReadInService = u.key.Step == deploy.StepActivation
	}
	o.do = func(ctx context.Context, attempt int) (steps.Result, error) {
		kind, ok := r.e.kinds.Lookup(u.step)
		if !ok {
			return steps.Result{}, deploy.Permanentf("unknown kind of step %q", u.step.Kind())
		}
		c := r.context(u, attempt)
		switch u.key.Kind {
		case deploy.KindCheckpoint:
			undo, ok := kind.(steps.Undoable)
			if !ok {
				return steps.Result{}, deploy.Permanentf("step %s cannot be undone", u.step.Name)
			}
			cp, err := undo.Checkpoint(ctx, c)
			if err != nil {
				return steps.Result{}, err
			}
			return steps.Result{Checkpoint: &cp, Output: cp.Data}, nil
		case deploy.KindDryRun:
			return kind.DryRun(ctx, c)
		}
		return kind.Run(ctx, c)
	}
	return o
}

func (r *run) context(u unit, attempt int) *steps.Context {
	return &steps.Context{
		Env: r.e.env, Job: r.in, Step: u.step, Key: u.key, Effective: r.eff, SHA256: r.sha,
		Outputs: r.outputs, Attempt: attempt,
		Log: func(level, format string, args ...any) {
			r.e.logLine(r.in.ID, u.key.Name(), level, format, args...)
		},
	}
}

// runPlan runs the units from first on, until the last one before cleanup,
// a failure or a cancel. begun is first's recorded start, if any.
func (r *run) runPlan(ctx dbos.Context, first unit, begun *deploy.Begun) (DeployResult, *failure, error) {
	u := first
	for {
		if begun == nil {
			if !r.e.gate.open() {
				return DeployResult{}, nil, parked(ctx)
			}
			b, live, err := r.e.beginOp(ctx, r.op(u))
			if err != nil {
				return DeployResult{}, nil, err
			}
			r.begunHere[u.key] = live
			begun = &b
		}
		if begun.Cancelled {
			r.e.logLine(r.in.ID, u.key.Name(), "warn", "cancelled: %s not started", u.key.Name())
			return DeployResult{State: deploy.StateCancelled, Error: "cancelled before step " + u.key.Step}, nil, nil
		}
		if u.key.Kind != deploy.KindCheckpoint {
			r.ran = append(r.ran, u)
		}
		if u.key.Kind == deploy.KindCheckpoint && u.key.Step == deploy.StepActivation {
			r.inServiceBefore = begun.InService
		}
		if !r.e.gate.enter() {
			return DeployResult{}, nil, parked(ctx)
		}
		w, err := r.e.workOp(ctx, r.op(u), r.begunHere[u.key])
		if err != nil {
			r.e.gate.leave()
			return DeployResult{}, nil, err
		}
		fx := r.apply(u, w)
		next, more := unit{}, false
		if !w.Failed {
			next, more = r.next(&u)
		}
		// Exports are checked before activation when they can be: a value
		// outside its pattern fails the deploy before anything is switched.
		var exportFail *failure
		if !w.Failed && (!more || r.isActivation(next)) && !r.exported && r.exportsReady(more) {
			exportFail = r.checkExports()
		}
		f := exportFail
		if w.Failed {
			f = &failure{step: u.key.Step, message: w.Error, crashed: w.Runs > 0, unit: &u}
		}
		if f != nil && r.rollbackOutcome(deploy.StateError, f) == deploy.RollbackRunning {
			fx.Rollback = deploy.RollbackRunning
		}
		var nextOp *op
		if more && exportFail == nil {
			o := r.op(next)
			nextOp = &o
		} else if !more && !w.Failed && exportFail == nil {
			o := r.cleanupOp()
			nextOp = &o
		}
		rec, err := r.e.endOp(ctx, r.op(u), w, fx, nextOp)
		r.e.gate.leave()
		if err != nil {
			return DeployResult{}, nil, err
		}
		if rec.live && rec.Next != nil && nextOp != nil {
			r.begunHere[nextOp.key] = true
		}
		switch {
		case w.Failed:
			state := deploy.StateError
			if f.crashed {
				state = deploy.StateMaxRecoveryAttemptsExceeded
			}
			return DeployResult{State: state, Error: fmt.Sprintf("step %s failed: %s", u.key.Name(), w.Error)}, f, nil
		case exportFail != nil:
			return DeployResult{State: deploy.StateError, Error: exportFail.message}, exportFail, nil
		case !more:
			r.cleanupBegun = rec.Next
			return DeployResult{State: deploy.StateSuccess}, nil, nil
		}
		u, begun = next, rec.Next
	}
}

func (r *run) isActivation(u unit) bool {
	return u.key.Step == deploy.StepActivation && u.key.Kind != deploy.KindRollback
}

// apply keeps what later steps need of a unit's result and returns what its
// record changes beside itself.
func (r *run) apply(u unit, w workResult) deploy.StepEffects {
	var fx deploy.StepEffects
	if w.Failed {
		return fx
	}
	res := w.Result
	switch u.key.Kind {
	case deploy.KindCheckpoint:
		if res.Checkpoint != nil {
			r.checkpoints[u.key.Step] = *res.Checkpoint
		}
		return fx
	}
	if res.Output != nil {
		r.outputs[u.key.Step] = res.Output
	}
	if res.Effective != nil {
		r.eff = *res.Effective
		fx.Effective = res.Effective
	}
	if res.SHA256 != "" {
		r.sha = res.SHA256
		fx.SHA256 = res.SHA256
	}
	if u.key.Step == deploy.StepActivation && u.key.Kind == deploy.KindRun {
		// Activation put the release in service: the inventory says so at
		// once, whatever happens after.
		fx.InService = true
	}
	return fx
}

// exportsReady reports whether every step the exports come from has run.
func (r *run) exportsReady(more bool) bool {
	if len(r.in.Descriptor.Exports) == 0 || r.in.Descriptor.DryRun {
		return false
	}
	if !more {
		return true
	}
	for _, spec := range r.in.Descriptor.Exports {
		step, _, _ := chains.SplitFrom(spec.From)
		if _, ok := r.outputs[step]; !ok {
			return false
		}
	}
	return true
}

// checkExports checks the exports against the outputs of the steps: a pure
// function of recorded results, so a replay decides the same.
func (r *run) checkExports() *failure {
	r.exported = true
	exports, err := chains.CheckExports(r.in.Descriptor.Exports, r.outputs)
	if err != nil {
		msg := deploy.ErrorMessage(err)
		r.e.logLine(r.in.ID, "", "error", "%s", msg)
		return &failure{step: "exports", message: msg}
	}
	r.exports = exports
	return nil
}

// rollbackOutcome decides what the end of a deploy does about rollback:
// RollbackRunning when the steps already started are to be compensated.
func (r *run) rollbackOutcome(state deploy.State, f *failure) string {
	switch {
	case f == nil || state == deploy.StateSuccess || state == deploy.StateCancelled:
		return deploy.RollbackNotNeeded
	case !r.eff.Rollback.Enabled || r.in.Descriptor.DryRun:
		return deploy.RollbackDisabled
	case f.step != "exports" && !r.eff.Rollback.Covers(f.step):
		return deploy.RollbackNotNeeded
	case len(r.compensations()) == 0:
		return deploy.RollbackNotNeeded
	}
	return deploy.RollbackRunning
}

// cleanupOp is the operation of the cleanup step, which runs after a
// success, a failure and a cancel alike, and ignores cancels.
func (r *run) cleanupOp() op {
	pos := slices.IndexFunc(r.in.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == deploy.StepCleanup })
	step := deploy.PlannedStep{Name: deploy.StepCleanup, Type: deploy.StepTypeStandard}
	if pos >= 0 {
		step = r.in.Plan.Steps[pos]
	} else {
		pos = len(r.in.Plan.Steps)
	}
	u := unit{key: deploy.StepKey{Step: deploy.StepCleanup, Kind: r.runKind()}, pos: pos, step: step}
	o := r.op(u)
	o.begin.HonourCancel = false
	return o
}
