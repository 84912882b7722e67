package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/chains"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/custom"
	"manent.dev/manent/engine/steps"
)

// DeployResult is the deploy workflow's output.
type DeployResult struct {
	State    deploy.State `json:"state"`
	Error    string       `json:"error,omitempty"`
	Rollback string       `json:"rollback,omitempty"`
	// CancelledBy is who stopped the run, when it was cancelled: the actor
	// of its deployment.finish entry.
	CancelledBy string `json:"cancelled_by,omitempty"`
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
	// unit is the operation that failed; nil for the exports check and a
	// wave's gates.
	unit *unit
	// always: the failure is the deploy's as a whole (its exports, a
	// wave's gates), which rollback.on does not filter.
	always bool
}

// deployWorkflow is the durable deploy. It only orchestrates: every side
// effect happens inside a step, and the sequence of steps depends only on
// the input and on recorded results, never on the clock.
func (e *Engine) deployWorkflow(ctx dbos.Context, in deploy.Job) (DeployResult, error) {
	r := e.newRun(in)
	// The deploy stays ENQUEUED until the process has a slot for it.
	if err := r.takeSlot(ctx); err != nil {
		return DeployResult{}, err
	}
	defer r.leaveSlot()
	first, _ := r.next(nil)
	held := false
	st, err := dbos.RunAsTransaction(ctx, e.ds, func(c context.Context, tx dbos.Tx) (started, error) {
		r.live = true
		if err := e.unfenced(c); err != nil {
			return started{}, err
		}
		// The start's notifications go with the log writer's next batch
		// once this commits (below): a NOTIFY takes a lock of the whole
		// database at its commit.
		ok, err := e.rec.StartRun(c, tx, in.ID, time.Now().UTC(), true)
		if err != nil || !ok {
			return started{}, restartable(err)
		}
		n := newNotice(in.ID, deploy.NoticeStarted, "", string(deploy.StatePending))
		if err := e.recordNotice(tx, n, &in.Descriptor, jobDeployment(&in)); err != nil {
			return started{}, restartable(err)
		}
		// The first operation begins only with a place in the gate for its
		// work: a shutdown then waits for it.
		if !held {
			held = e.gate.enter()
		}
		if !held {
			return started{Started: true}, nil
		}
		o := r.op(first)
		o.begin.NotifyLater = true
		b, err := e.beginIn(c, tx, o)
		if err != nil {
			return started{}, restartable(err)
		}
		r.begunHere[first.key] = true
		return started{Started: true, Begun: &b}, nil
	}, e.txOptions(stepStart)...)
	if err != nil || !st.Started || st.Begun == nil || !r.begunHere[first.key] {
		if held {
			e.gate.leave()
		}
		held = false
	}
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
	// Also when DBOS answered from its record (a recovered run): a
	// notification more is only a read more for the followers.
	e.logs.Notify(in.ID, deploy.EventDeployment, deploy.EventStep)

	outcome, fail, err := r.runPlan(ctx, first, st.Begun, held)
	if err != nil {
		return DeployResult{}, err
	}
	rollback := deploy.RollbackNotNeeded
	if fail != nil {
		rollback = r.rollbackOutcome(r.eff, outcome.State, fail)
	}
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
	outputs map[string]map[string]string
	// checkpoints are keyed by checkpointKey: per step, pass and batch.
	checkpoints map[string]deploy.Checkpoint
	// inServiceBefore is the deploy in service when each checkpoint of
	// activation was taken (by checkpointKey), which its compensation gives
	// the inventory back.
	inServiceBefore map[string]string
	// failedTargets counts, per pass, the targets of the batches whose
	// failure the pass tolerated (max_failures).
	failedTargets map[int]int
	// pauses counts the pauses of each pass so far: the next one's number.
	pauses map[int]int
	// defers counts the deferrals of each pass so far: the next one's.
	defers map[int]int
	// ran lists the runs that began, in order: what a rollback compensates.
	ran []unit
	// begunHere are the operations whose start this execution recorded
	// itself: any other it resumes was begun by a process that stopped.
	begunHere map[deploy.StepKey]bool
	exports   []deploy.Export
	exported  bool
	// cleanupBegun is cleanup's start when the last step recorded it, and
	// cleanupHeld whether this process holds a place in the gate for it.
	cleanupBegun *deploy.Begun
	cleanupHeld  bool
	// live is false while the workflow replays steps DBOS recorded: the
	// lines the workflow's own code writes between them were written by
	// the execution that recorded them (note).
	live bool
	// slot: the run holds a work slot of the process (slots.go).
	slot bool
}

// note writes a line of the workflow's own code (not of a step's work)
// once: not again when a resumed workflow replays the step before it.
func (r *run) note(step, level, format string, args ...any) {
	if r.live {
		r.e.logLine(r.in.ID, step, level, format, args...)
	}
}

func (e *Engine) newRun(in deploy.Job) *run {
	return &run{e: e, in: in, eff: in.Effective, outputs: map[string]map[string]string{},
		checkpoints: map[string]deploy.Checkpoint{}, inServiceBefore: map[string]string{},
		failedTargets: map[int]int{}, pauses: map[int]int{}, defers: map[int]int{}, begunHere: map[deploy.StepKey]bool{}}
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
// is on. Under a rollout, the steps of the batched span (rollout.go) run
// once per batch, in plan order.
func (r *run) next(u *unit) (unit, bool) { return r.nextWith(u, r.eff) }

// nextWith is next with the effective deploy eff (the config step's, before
// the run applies it).
func (r *run) nextWith(u *unit, eff deploy.Effective) (unit, bool) { return r.after(u, eff, false) }

// after is the unit after u under eff; skipBatch leaves the rest of u's
// batch out (its failure was tolerated) for the next batch.
func (r *run) after(u *unit, eff deploy.Effective, skipBatch bool) (unit, bool) {
	pos, pass, batch := 0, 0, 0
	if u != nil {
		if u.key.Kind == deploy.KindCheckpoint && !skipBatch {
			return r.runUnitIn(u.pos, u.key.Pass, u.key.Batch), true
		}
		pos, pass, batch = u.pos+1, u.key.Pass, u.key.Batch
		pos, pass, batch = r.batchAfter(u.pos, pos, pass, batch, eff, skipBatch)
	} else {
		pos, pass, batch = r.batchAfter(-1, 0, 0, 0, eff, false)
	}
	if pos >= len(r.in.Plan.Steps) || r.in.Plan.Steps[pos].Name == deploy.StepCleanup {
		return unit{}, false
	}
	step := r.in.Plan.Steps[pos]
	if eff.Rollback.Enabled && !r.in.Descriptor.DryRun && r.e.kinds.Undoable(step) {
		return unit{key: deploy.StepKey{Step: step.Name, Pass: pass, Batch: batch, Kind: deploy.KindCheckpoint}, pos: pos, step: step}, true
	}
	return r.runUnitIn(pos, pass, batch), true
}

func (r *run) runUnit(pos int) unit { return r.runUnitIn(pos, 0, 0) }

func (r *run) runUnitIn(pos, pass, batch int) unit {
	step := r.in.Plan.Steps[pos]
	return unit{key: deploy.StepKey{Step: step.Name, Pass: pass, Batch: batch, Kind: r.runKind()}, pos: pos, step: step}
}

// op is the operation of a unit.
func (r *run) op(u unit) op {
	o := op{deployID: r.in.ID, key: u.key, step: u.step, pos: u.pos,
		begin: deploy.BeginOptions{HonourCancel: true}, job: &r.in}
	if u.key.Kind == deploy.KindCheckpoint {
		// A checkpoint is a reading: it has no retries of its own beyond
		// the step's, and cannot time out beyond it either.
		o.begin.ReadInService = u.key.Step == deploy.StepActivation
	}
	o.do = func(ctx context.Context, attempt int) (steps.Result, error) {
		// Every operation runs only the plan submitted for this deploy: its
		// steps, in order, as signed. The cleanup the workflow runs last
		// (cleanupOp), which only removes the deploy's work directory on
		// the worker, runs whatever the plan says.
		if u.key.Step != deploy.StepCleanup || u.step.Kind() != deploy.StepCleanup {
			if err := r.e.env.Specs.VerifyPlan(r.in); err != nil {
				return steps.Result{}, err
			}
		}
		// A custom step runs only the specification its plan captured, as
		// signed, and never a revoked one: its kinds (engine/custom) verify
		// it before every attempt, and audit a refusal as any failure.
		// A specification on a step of another kind is refused here.
		c := r.context(u, attempt)
		if u.step.Spec != nil && u.step.Kind() == u.step.Name {
			if err := r.e.env.Specs.Verify(u.step); err != nil {
				custom.AuditRefusal(ctx, r.e.custom, c, err)
				return steps.Result{}, err
			}
		}
		kind, ok := r.e.kinds.Lookup(u.step)
		if !ok {
			return steps.Result{}, deploy.Permanentf("unknown kind of step %q", u.step.Kind())
		}
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
			out := maps.Clone(cp.Data)
			if u.key.Step == deploy.StepActivation {
				// For a release's rollback after the deploy ended (undo.go).
				out[inServiceKey] = r.inServiceBefore[checkpointKey(u.key)]
			}
			return steps.Result{Checkpoint: &cp, Output: out}, nil
		case deploy.KindDryRun:
			return kind.DryRun(ctx, c)
		}
		return kind.Run(ctx, c)
	}
	return o
}

func (r *run) context(u unit, attempt int) *steps.Context {
	return &steps.Context{
		Env: r.e.env, Job: r.in, Step: u.step, Key: u.key, Effective: r.batchEffective(u.key), SHA256: r.sha,
		Outputs: r.outputs, Attempt: attempt,
		Log: func(level, format string, args ...any) {
			r.e.logLine(r.in.ID, u.key.Name(), level, format, args...)
		},
	}
}

// runPlan runs the units from first on, until the last one before cleanup,
// a failure or a cancel. begun is first's recorded start, if any; held
// says this process holds a place in the gate for its work (it recorded
// the start: see gate).
func (r *run) runPlan(ctx dbos.Context, first unit, begun *deploy.Begun, held bool) (DeployResult, *failure, error) {
	u := first
	// done is the last operation that ended: where a cancel stopped the run.
	done := ""
	for {
		if begun == nil {
			if !r.e.gate.open() {
				return DeployResult{}, nil, parked(ctx)
			}
			b, live, err := r.e.beginOp(ctx, r.op(u))
			if err != nil {
				return DeployResult{}, nil, err
			}
			r.begunHere[u.key], held, r.live = live, live, live
			begun = &b
		}
		if begun.Cancelled {
			if held {
				r.e.gate.leave()
			}
			msg := deploy.CancelledAt(begun.CancelledBy, done, u.key.Name())
			r.note(u.key.Name(), "warn", "%s", msg)
			return DeployResult{State: deploy.StateCancelled, Error: msg, CancelledBy: begun.CancelledBy}, nil, nil
		}
		if begun.Aborted {
			if held {
				r.e.gate.leave()
			}
			res, f := r.aborted(begun.AbortedBy, begun.AbortReason)
			return res, f, nil
		}
		if u.key.Kind != deploy.KindCheckpoint {
			r.ran = append(r.ran, u)
		}
		if u.key.Kind == deploy.KindCheckpoint && u.key.Step == deploy.StepActivation {
			r.inServiceBefore[checkpointKey(u.key)] = begun.InService
		}
		if !held && !r.e.gate.enter() {
			return DeployResult{}, nil, parked(ctx)
		}
		w, err := r.e.stepOp(ctx, r.op(u), r.begunHere[u.key], func(w workResult) (deploy.StepEffects, *op) {
			dec := r.decide(u, w)
			return dec.fx, dec.next
		})
		r.e.gate.leave()
		held = w.nextHeld
		if err != nil {
			return DeployResult{}, nil, err
		}
		r.live = w.live
		dec := r.decide(u, w)
		r.apply(u, w, dec)
		if w.live && w.Next != nil && dec.next != nil {
			r.begunHere[dec.next.key] = true
		}
		switch {
		case dec.failure != nil && w.Failed:
			state := deploy.StateError
			if dec.failure.crashed {
				state = deploy.StateMaxRecoveryAttemptsExceeded
			}
			return DeployResult{State: state, Error: fmt.Sprintf("step %s failed: %s", u.key.Name(), w.Error)}, dec.failure, nil
		case dec.failure != nil:
			return DeployResult{State: deploy.StateError, Error: dec.failure.message}, dec.failure, nil
		}
		done = u.key.Name()
		if dec.pause != "" {
			res, f, err := r.pause(ctx, u.key.Pass, dec.pause, "", done)
			if err != nil || res != nil {
				return deref(res), f, err
			}
		}
		if dec.waveEnd > 0 {
			// Nothing after the wave was begun with its last operation: the
			// bake and the gates come first.
			res, f, err := r.endWave(ctx, dec.waveEnd, done)
			if err != nil || res != nil {
				return deref(res), f, err
			}
			done = deploy.StepKey{Step: stepNameGates, Pass: dec.waveEnd}.Name()
		}
		if dec.boundary || (dec.waveEnd > 0 && dec.more && dec.unit.key.Pass > 0 && !r.in.Descriptor.DryRun) {
			if res, f, err := r.beforeBatch(ctx, u, dec.unit, done); err != nil || res != nil {
				return deref(res), f, err
			}
		}
		if !dec.more {
			r.cleanupBegun, r.cleanupHeld = w.Next, held
			return DeployResult{State: deploy.StateSuccess}, nil, nil
		}
		u, begun = dec.unit, w.Next
	}
}

func deref(r *DeployResult) DeployResult {
	if r == nil {
		return DeployResult{}
	}
	return *r
}

// decision is what follows a unit's work.
type decision struct {
	fx deploy.StepEffects
	// unit and more: the unit after, if any; next is the operation whose
	// start is recorded with this one's end (the unit after, or cleanup
	// after the last), nil after a failure.
	unit unit
	more bool
	next *op
	// exports are the checked exports, when they were checked now.
	exports []deploy.Export
	checked bool
	failure *failure
	// tolerated is the targets of u's batch, when u failed within its
	// pass's max_failures: the rollout goes on with the next batch.
	tolerated int
	// waveEnd is the pass u ended (its last batch), whose bake and gates
	// run before the unit after; 0 otherwise.
	waveEnd int
	// boundary: the unit after is the first of another batch of the same
	// pass (or of the first batch), before which the rollout looks for a
	// person's pause or abort.
	boundary bool
	// pause is why the rollout pauses after u, a failed batch beyond
	// max_failures under on_failure: pause; "" otherwise.
	pause string
}

// decide is what follows the work w of u, from the run's state before it:
// a pure function, which the step calls before it records its end and the
// workflow again after (a replay decides the same from DBOS's record).
func (r *run) decide(u unit, w workResult) decision {
	var d decision
	eff := r.eff
	if !w.Failed && w.Result.Effective != nil {
		eff = *w.Result.Effective
	}
	if w.Failed {
		n := r.tolerates(u)
		if n == 0 {
			if m, ok := r.pausesOnFailure(u); ok {
				n, d.pause = m, fmt.Sprintf("step %s failed: %s", u.key.Name(), w.Error)
			}
		}
		if n > 0 {
			d.tolerated = n
			d.unit, d.more = r.after(&u, eff, true)
			d.waveEnd = r.endsWave(u, d.unit, d.more)
			d.boundary = r.isBoundary(u, d.unit, d.more)
			if d.more && d.waveEnd == 0 && !d.boundary && d.pause == "" {
				o := r.op(d.unit)
				d.next = &o
			} else if !d.more && d.waveEnd == 0 && d.pause == "" {
				o := r.cleanupOp()
				d.next = &o
			}
			return d
		}
		d.failure = &failure{step: u.key.Step, message: w.Error, crashed: w.Runs > 0, unit: &u}
	} else {
		d.fx = effectsOf(u, w)
		d.unit, d.more = r.nextWith(&u, eff)
		d.waveEnd = r.endsWave(u, d.unit, d.more)
		d.boundary = r.isBoundary(u, d.unit, d.more)
		// Exports are checked before activation when they can be: a value
		// outside its pattern fails the deploy before anything is switched.
		outputs := r.outputs
		if u.key.Kind != deploy.KindCheckpoint && w.Result.Output != nil {
			outputs = maps.Clone(r.outputs)
			outputs[u.key.Step] = w.Result.Output
		}
		if (!d.more || r.isActivation(d.unit)) && !r.exported && r.exportsReady(outputs, d.more) {
			d.checked = true
			exports, err := chains.CheckExports(r.in.Descriptor.Exports, outputs)
			if err != nil {
				d.failure = &failure{step: "exports", message: deploy.ErrorMessage(err), always: true}
			}
			d.exports = exports
		}
	}
	switch {
	case d.failure != nil:
		if r.rollbackOutcome(eff, deploy.StateError, d.failure) == deploy.RollbackRunning {
			d.fx.Rollback = deploy.RollbackRunning
		}
	case d.waveEnd > 0 || d.boundary:
		// The bake and the gates, or the look for a person's request,
		// begin nothing with this end.
	case d.more:
		o := r.op(d.unit)
		d.next = &o
	default:
		o := r.cleanupOp()
		d.next = &o
	}
	return d
}

// effectsOf is what the record of u's successful work changes of the deploy.
func effectsOf(u unit, w workResult) deploy.StepEffects {
	var fx deploy.StepEffects
	if u.key.Kind == deploy.KindCheckpoint {
		return fx
	}
	fx.Effective = w.Result.Effective
	fx.SHA256 = w.Result.SHA256
	if u.key.Step == deploy.StepActivation && u.key.Kind == deploy.KindRun {
		// Activation put the release in service: the inventory says so at
		// once, whatever happens after.
		fx.InService = true
	}
	return fx
}

// apply keeps what later units need of u's result.
func (r *run) apply(u unit, w workResult, d decision) {
	if d.checked {
		r.exported, r.exports = true, d.exports
		if d.failure != nil && d.failure.step == "exports" {
			r.note("", "error", "%s", d.failure.message)
		}
	}
	if w.Failed {
		if d.tolerated > 0 {
			r.failedTargets[u.key.Pass] += d.tolerated
			pass := r.eff.RolloutPlan.Passes[u.key.Pass-1]
			if d.pause != "" {
				r.note(u.key.Name(), "warn", "wave %s: batch %d failed (%d target(s)), beyond max_failures (%d): the rollout pauses (on_failure: pause)",
					pass.Name, u.key.Batch, d.tolerated, pass.MaxFailures)
				return
			}
			r.note(u.key.Name(), "warn", "wave %s: batch %d failed (%d target(s)); %d of %d failure(s) tolerated (max_failures): the rollout goes on",
				pass.Name, u.key.Batch, d.tolerated, r.failedTargets[u.key.Pass], pass.MaxFailures)
		}
		return
	}
	res := w.Result
	if u.key.Kind == deploy.KindCheckpoint {
		if res.Checkpoint != nil {
			r.checkpoints[checkpointKey(u.key)] = *res.Checkpoint
		}
		return
	}
	if res.Output != nil {
		r.outputs[u.key.Step] = res.Output
	}
	if res.Effective != nil {
		r.eff = *res.Effective
	}
	if res.SHA256 != "" {
		r.sha = res.SHA256
	}
}

func (r *run) isActivation(u unit) bool {
	return u.key.Step == deploy.StepActivation && u.key.Kind != deploy.KindRollback
}

// exportsReady reports whether every step the exports come from has run.
func (r *run) exportsReady(outputs map[string]map[string]string, more bool) bool {
	if len(r.in.Descriptor.Exports) == 0 || r.in.Descriptor.DryRun {
		return false
	}
	if !more {
		return true
	}
	for _, spec := range r.in.Descriptor.Exports {
		step, _, _ := chains.SplitFrom(spec.From)
		if _, ok := outputs[step]; !ok {
			return false
		}
	}
	return true
}

// rollbackOutcome decides what the end of a deploy does about rollback:
// RollbackRunning when the steps already started are to be compensated.
func (r *run) rollbackOutcome(eff deploy.Effective, state deploy.State, f *failure) string {
	switch {
	case f == nil || state == deploy.StateSuccess || state == deploy.StateCancelled:
		return deploy.RollbackNotNeeded
	case !eff.Rollback.Enabled || r.in.Descriptor.DryRun:
		return deploy.RollbackDisabled
	case !f.always && !eff.Rollback.Covers(f.step):
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
