package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// A wave one of whose targets a freeze window in force selects (by its
// labels, governance.freezes[].targets) is deferred before its first
// batch, and a wave a window begins over while it runs before its next
// batch (the calendar is read again at every batch, and after a wait for
// approvals or a resume): an operation of its own (defer[N], then
// defer[N/K] for the K-th of the wave), RUNNING while it waits, and a
// durable timer to the window's end, when the calendar is read again (a
// window may be followed by another). Past defer_timeout the rollout
// aborts, as a failed wave; a cancel or an abort end the wait at once.

// deferOp is the record of the seq-th deferral of pass: defer[N] for the
// first (before the wave, as ever), defer[N/K] for the later.
func (r *run) deferOp(pass, seq int) op {
	pos := wavePosition + 2*(pass-1)
	if seq == 1 {
		seq = 0
	}
	return op{deployID: r.in.ID, key: deploy.StepKey{Step: deploy.StepDefer, Pass: pass, Batch: seq, Kind: deploy.KindRun},
		step: deploy.PlannedStep{Name: deploy.StepDefer, Type: stepTypeRollout}, pos: pos}
}

func (r *run) deferTimeout() time.Duration {
	if s := r.eff.Rollout; s != nil && s.DeferTimeout > 0 {
		return s.DeferTimeout
	}
	return deploy.DefaultDeferTimeout
}

// waveTargets are the targets of pass's batches from the batch-th on (1:
// the whole wave), in the order written.
func (r *run) waveTargets(pass, batch int) []deploy.Target {
	p := r.eff.RolloutPlan.Passes[pass-1]
	if batch <= 1 {
		return p.Select(r.eff.Targets)
	}
	var ts []deploy.Target
	for i := batch - 1; i < len(p.Batches); i++ {
		ts = append(ts, p.Batches[i].Select(r.eff.Targets)...)
	}
	return ts
}

// frozenNow reads the calendar for the targets pass has left to deploy
// from its batch-th batch, as a step.
func (r *run) frozenNow(ctx dbos.Context, pass, batch int) (*deploy.Freeze, error) {
	targets := r.waveTargets(pass, batch)
	fr, err := readStep(ctx, stepRolloutDeferCheck, func(c context.Context) (*deploy.Freeze, error) {
		return r.e.checks.WaveFrozen(c, r.in.Identity(), r.in.Descriptor, targets)
	})
	if err != nil {
		return nil, fmt.Errorf("check the freeze windows of wave %d: %w", pass, err)
	}
	return fr, nil
}

func deferOutput(fr *deploy.Freeze, deadline time.Time) map[string]string {
	return map[string]string{deploy.OutputDeferWindow: fr.Window, deploy.OutputDeferUntil: fr.Until.UTC().Format(time.RFC3339Nano),
		deploy.OutputDeferTargets: strings.Join(fr.Targets, ","), deploy.OutputDeferDeadline: deadline.UTC().Format(time.RFC3339Nano)}
}

// deferWave holds pass while a freeze window is in force over one of its
// targets left from its batch-th batch; nil results when it may go on.
// deferred says it did wait (and so that a person may have asked
// something meanwhile); it holds no slot of the process while it waits.
func (r *run) deferWave(ctx dbos.Context, pass, batch int, done string) (deferred bool, _ *DeployResult, _ *failure, err error) {
	if r.in.Descriptor.DryRun {
		return false, nil, nil, nil
	}
	p := r.eff.RolloutPlan.Passes[pass-1]
	fr, err := r.frozenNow(ctx, pass, batch)
	if err != nil || fr == nil {
		return false, nil, nil, err
	}
	if fr.Overridden {
		r.note("", "warn", "wave %s: freeze window %s in force until %s over %s: overridden (%s)", p.Name, fr.Window,
			fr.Until.UTC().Format(time.RFC3339), strings.Join(fr.Targets, ", "), fr.Reason)
		return false, nil, nil, nil
	}
	defer r.idle(ctx, &err)()
	res, f, err := r.deferFor(ctx, pass, batch, fr, done)
	return true, res, f, err
}

// deferFor records the deferral of pass by the window fr and waits until
// no window holds the targets left from its batch-th batch.
func (r *run) deferFor(ctx dbos.Context, pass, batch int, fr *deploy.Freeze, done string) (*DeployResult, *failure, error) {
	p := r.eff.RolloutPlan.Passes[pass-1]
	r.defers[pass]++
	o := r.deferOp(pass, r.defers[pass])
	timeout := r.deferTimeout()
	start, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (time.Time, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return time.Time{}, err
		}
		rec := o.start()
		at := rec.StartedAt.Truncate(time.Microsecond)
		rec.StartedAt, rec.Output = &at, deferOutput(fr, at.Add(timeout))
		if _, err := r.e.rec.Advance(c, tx, nil, deploy.StepEffects{}, rec, deploy.BeginOptions{}); err != nil {
			return time.Time{}, restartable(err)
		}
		return at, nil
	}, r.e.txOptions(stepRolloutDefer)...)
	if err != nil {
		return nil, nil, fmt.Errorf("record the deferral of wave %s: %w", p.Name, err)
	}
	deadline := start.Add(timeout)
	name := o.key.Name()
	r.note(name, "warn", "wave %s deferred: freeze window %s over %s until %s", p.Name, fr.Window,
		strings.Join(fr.Targets, ", "), fr.Until.UTC().Format(time.RFC3339))
	for {
		wake := fr.Until
		if deadline.Before(wake) {
			wake = deadline
		}
		look, err := readStep(ctx, stepRolloutDeferLook, func(c context.Context) (rolloutLook, error) {
			return r.lookAt(c, wake)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("deferral of wave %s: %w", p.Name, err)
		}
		switch {
		case look.Cancelled:
			if err := r.endRolloutOp(ctx, o, start, deploy.StepCancelled, deferOutput(fr, deadline), "", ""); err != nil {
				return nil, nil, err
			}
			msg := deploy.CancelledAt(look.CancelledBy, done, name)
			r.note(name, "warn", "%s", msg)
			return &DeployResult{State: deploy.StateCancelled, Error: msg, CancelledBy: look.CancelledBy}, nil, nil
		case look.Action == deploy.RolloutActionAbort:
			res, f := r.aborted(look.By, look.Reason)
			if err := r.endRolloutOp(ctx, o, start, deploy.StepError, deferOutput(fr, deadline), res.Error, ""); err != nil {
				return nil, nil, err
			}
			return &res, f, nil
		case look.Left > 0:
			// Woken early by a request or a cancel: the next look says which.
			if err := r.nap(ctx, look.Left); err != nil {
				return nil, nil, fmt.Errorf("deferral of wave %s: %w", p.Name, err)
			}
			continue
		}
		next, err := r.frozenNow(ctx, pass, batch)
		if err != nil {
			return nil, nil, err
		}
		if next == nil || next.Overridden {
			if err := r.endRolloutOp(ctx, o, start, deploy.StepSuccess, deferOutput(fr, deadline), "", ""); err != nil {
				return nil, nil, err
			}
			r.note(name, "info", "wave %s: freeze window %s ended: the wave starts", p.Name, fr.Window)
			return nil, nil, nil
		}
		if !wake.Before(deadline) {
			msg := fmt.Sprintf("wave %s deferred by freeze window %s for %s (defer_timeout): the rollout aborts", p.Name, next.Window, timeout)
			if err := r.endRolloutOp(ctx, o, start, deploy.StepError, deferOutput(next, deadline), msg, ""); err != nil {
				return nil, nil, err
			}
			r.note(name, "error", "%s", msg)
			return &DeployResult{State: deploy.StateError, Error: msg}, &failure{step: deploy.StepDefer, message: msg, always: true}, nil
		}
		// Another window follows (or this one was extended): wait for it,
		// and say until when.
		fr = next
		if err := r.rerecordDefer(ctx, o, start, deferOutput(fr, deadline)); err != nil {
			return nil, nil, err
		}
	}
}

// rerecordDefer writes the deferral's record again, RUNNING, with what it
// waits for now.
func (r *run) rerecordDefer(ctx dbos.Context, o op, start time.Time, out map[string]string) error {
	_, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (bool, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return false, err
		}
		s := o.record(deploy.StepRunning)
		s.StartedAt, s.Runs, s.Attempts, s.Output = &start, 1, 1, out
		if _, err := r.e.rec.Advance(c, tx, nil, deploy.StepEffects{}, &s, deploy.BeginOptions{}); err != nil {
			return false, restartable(err)
		}
		return true, nil
	}, r.e.txOptions(stepRolloutDeferAgain)...)
	if err != nil {
		return fmt.Errorf("record the deferral %s: %w", o.key.Name(), err)
	}
	return nil
}
