package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
)

// rollbackPosition is where compensations are recorded, after the plan's
// steps, in the order they run.
const rollbackPosition = 500

// compensations lists what an automatic rollback undoes: the steps that
// can be undone and began (the one that failed part-way too), most recent
// first, each with the checkpoint taken before it.
func (r *run) compensations() []unit {
	var out []unit
	for i := len(r.ran) - 1; i >= 0; i-- {
		u := r.ran[i]
		if u.key.Kind != deploy.KindRun || !r.e.kinds.Undoable(u.step) {
			continue
		}
		if _, ok := r.checkpoints[checkpointKey(u.key)]; !ok {
			continue
		}
		out = append(out, u)
	}
	return out
}

// compensate undoes the steps already started, in reverse order, each an
// operation with its own retries, record and idempotency key; it stops at
// the first compensation that fails. It returns the rollback's outcome.
func (r *run) compensate(ctx dbos.Context, f *failure) (string, error) {
	todo := r.compensations()
	names := make([]string, len(todo))
	for i, u := range todo {
		// Named as their records are: rollback:activation[2/1] says which
		// batch of a rollout it brings back.
		names[i] = compensationKey(u).Name()
	}
	r.note("", "warn", "%s failed: rolling back (%s)", f.step, strings.Join(names, ", "))
	// A deploy undone after it ended (a release's rollback) says so too.
	var begun *deploy.Begun
	held := false
	for i, u := range todo {
		o := r.compensationOp(u, i)
		if begun == nil {
			if !r.e.gate.open() {
				return "", parked(ctx)
			}
			_, live, err := r.e.beginOp(ctx, o)
			if err != nil {
				return "", err
			}
			r.begunHere[o.key], held, r.live = live, live, live
		}
		if !held && !r.e.gate.enter() {
			return "", parked(ctx)
		}
		var next *op
		if i+1 < len(todo) {
			n := r.compensationOp(todo[i+1], i+1)
			next = &n
		}
		w, err := r.e.stepOp(ctx, o, r.begunHere[o.key], func(w workResult) (deploy.StepEffects, *op) {
			var fx deploy.StepEffects
			if w.Failed {
				return fx, nil
			}
			if u.key.Step == deploy.StepActivation {
				// The release in service before is back on the targets: so
				// it is in the inventory.
				prev := r.inServiceBefore[checkpointKey(u.key)]
				fx.Restore = &prev
			}
			return fx, next
		})
		r.e.gate.leave()
		held = w.nextHeld
		if err != nil {
			return "", err
		}
		r.live = w.live
		if w.Failed {
			r.note(o.key.Name(), "error", "rollback stopped: %s failed", o.key.Name())
			return deploy.RollbackFailed, nil
		}
		if w.live && w.Next != nil && next != nil {
			r.begunHere[next.key] = true
		}
		begun = w.Next
	}
	r.note("", "info", "rolled back: the targets are back at their checkpoints")
	return deploy.RollbackCompleted, nil
}

// compensationOp is the compensation of the run u, the i-th of a rollback.
func (r *run) compensationOp(u unit, i int) op {
	key := compensationKey(u)
	o := op{deployID: r.in.ID, key: key, step: u.step, pos: rollbackPosition + i, job: &r.in}
	cp := r.checkpoints[checkpointKey(u.key)]
	o.do = func(ctx context.Context, attempt int) (steps.Result, error) {
		kind, ok := r.e.kinds.Lookup(u.step)
		if !ok {
			return steps.Result{}, deploy.Permanentf("unknown kind of step %q", u.step.Kind())
		}
		undo, ok := kind.(steps.Undoable)
		if !ok {
			return steps.Result{}, deploy.Permanentf("step %s cannot be undone", u.step.Name)
		}
		c := r.context(unit{key: key, pos: o.pos, step: u.step}, attempt)
		return undo.Compensate(ctx, c, cp)
	}
	return o
}

// compensationKey is the key of the compensation of the run u: its step,
// pass, batch and target.
func compensationKey(u unit) deploy.StepKey {
	return deploy.StepKey{Step: u.key.Step, Pass: u.key.Pass, Batch: u.key.Batch, Target: u.key.Target, Kind: deploy.KindRollback}
}

// cleanup runs the cleanup step; a failure is recorded and logged but does
// not change the outcome.
func (r *run) cleanup(ctx dbos.Context) error {
	o := r.cleanupOp()
	held := r.cleanupHeld
	if r.cleanupBegun == nil {
		if !r.e.gate.open() {
			return parked(ctx)
		}
		_, live, err := r.e.beginOp(ctx, o)
		if err != nil {
			return err
		}
		r.begunHere[o.key], held = live, live
	}
	if !held && !r.e.gate.enter() {
		return parked(ctx)
	}
	defer r.e.gate.leave()
	_, err := r.e.stepOp(ctx, o, r.begunHere[o.key], nothingAfter)
	return err
}

// finish records the outcome: the steps that did not run, the state, the
// inventory, the last failure and the audit entry, in one transaction;
// then it wakes what waits on the deploy.
func (r *run) finish(ctx dbos.Context, out DeployResult, f *failure) error {
	id := r.in.ID
	level := "info"
	if out.State != deploy.StateSuccess {
		level = "error"
	}
	msg := "deploy finished: " + string(out.State)
	if out.Error != "" {
		msg += " (" + out.Error + ")"
	}
	if out.Rollback != deploy.RollbackNotNeeded {
		msg += ", rollback " + out.Rollback
	}
	r.e.logLine(id, "", level, "%s", msg)
	// The log is complete before the state is final: whoever follows the
	// deploy up to its end reads every line. Its last lines are written
	// with the outcome (a replay has none: they were written, or lost with
	// the process that had them).
	lines, err := r.e.logs.claim(ctx, id)
	if err != nil {
		return err
	}
	o := deploy.Outcome{ID: id, State: out.State, Error: out.Error, SHA256: r.sha, Actor: r.in.Requester,
		Rollback: out.Rollback, Exports: r.exports}
	if out.CancelledBy != "" {
		o.Actor = out.CancelledBy
	}
	if f != nil {
		o.FailedStep = f.step
	}
	o.InService = out.State == deploy.StateSuccess && !r.in.Descriptor.DryRun && !r.hasActivation()
	skipped := r.notRun(out.State)
	fin, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (deploy.Finished, error) {
		if err := r.e.unfenced(c); err != nil {
			return deploy.Finished{}, err
		}
		if err := r.e.rec.AppendLog(c, tx, id, lines); err != nil {
			return deploy.Finished{}, restartable(err)
		}
		if err := r.e.rec.SkipSteps(c, tx, id, skipped); err != nil {
			return deploy.Finished{}, restartable(err)
		}
		fin, err := r.e.rec.FinishRun(c, tx, o)
		if err != nil {
			return fin, restartable(err)
		}
		n := newNotice(id, deploy.NoticeFinished, "", string(out.State))
		if out.Rollback != deploy.RollbackNotNeeded {
			n.Rollback = out.Rollback
		}
		return fin, restartable(r.e.recordNotice(tx, n, &r.in.Descriptor, jobDeployment(&r.in)))
	}, r.e.txOptions(stepFinish)...)
	if err != nil {
		// Not written (the process stops): the lines go back to the log
		// writer, which writes them before it stops, or as soon as it can.
		r.e.logs.unclaim(lines)
		return fmt.Errorf("record the outcome: %w", err)
	}
	return r.e.wakeAfter(ctx, id, fin)
}

func (r *run) hasActivation() bool {
	for _, s := range r.in.Plan.Steps {
		if s.Name == deploy.StepActivation {
			return true
		}
	}
	return false
}

// notRun lists the records of the planned operations that never began
// (every batch's, under a rollout): SKIPPED after a failure, CANCELLED
// after a cancel.
func (r *run) notRun(state deploy.State) []deploy.Step {
	mark := deploy.StepSkipped
	if state == deploy.StateCancelled {
		mark = deploy.StepCancelled
	}
	began := map[deploy.StepKey]bool{}
	for _, u := range r.ran {
		began[u.key] = true
	}
	var out []deploy.Step
	var prev *unit
	for {
		u, more := r.next(prev)
		if !more {
			break
		}
		prev = &u
		if u.key.Kind == deploy.KindCheckpoint || began[u.key] {
			continue
		}
		out = append(out, r.op(u).record(mark))
	}
	return out
}
