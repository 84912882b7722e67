package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// A rollout pauses on a gate that could not judge its wave (inconclusive,
// or no_data under no_data: pause), on a failed wave under on_failure:
// pause, and when a person asks (between two batches: the batch in flight
// ends first). A pause is an operation of its own (deploy.StepPause),
// RUNNING while it lasts, and a durable wait like a bake: the workflow
// sleeps in DBOS until a request (resume, abort), a cancel or the end of
// pause_timeout, which aborts the rollout as a failed wave does. The
// deploy stays PENDING on its queue all the while, so it keeps its
// environment's slot.

// rolloutLook is what the workflow reads of the deploy between two
// batches, in a pause and in a bake.
type rolloutLook struct {
	Left        time.Duration        `json:"left"`
	Cancelled   bool                 `json:"cancelled,omitempty"`
	CancelledBy string               `json:"cancelled_by,omitempty"`
	Action      deploy.RolloutAction `json:"action,omitempty"`
	By          string               `json:"by,omitempty"`
	Reason      string               `json:"reason,omitempty"`
	// Pause is the pause a resume answers ("" when it names none).
	Pause string `json:"pause,omitempty"`
}

// lookAt reads the deploy: its cancel, its rollout request, and what is
// left until until (zero: none).
func (r *run) lookAt(c context.Context, until time.Time) (rolloutLook, error) {
	d, err := r.e.store.Get(c, r.in.ID)
	if err != nil {
		return rolloutLook{}, err
	}
	l := rolloutLook{Cancelled: d.CancelRequested, CancelledBy: d.CancelledBy}
	if !until.IsZero() {
		l.Left = time.Until(until)
	}
	if q := d.RolloutRequest; q != nil {
		l.Action, l.By, l.Reason, l.Pause = q.Action, q.By, q.Reason, q.Pause
	}
	return l, nil
}

// nap sleeps until the rollout's next look: woken at once by a request,
// a wave's answer or a cancel, else after left, and after
// engine.rollout_look_interval at most, the safety net for a request
// stored without its wake-up. A look costs DBOS three recorded steps
// (its own, the Recv and the Recv's timer): the default 15 minutes make a
// day's wait 288 of them.
func (r *run) nap(ctx dbos.Context, left time.Duration) error {
	every := r.e.cfg.Engine.RolloutLookInterval
	if every <= 0 {
		every = deploy.DefaultRolloutLookInterval
	}
	_, err := sleepOrWake(ctx, topicRollout, min(left, every))
	return err
}

// between looks for a person's request before the next batch, of pass:
// a pause begins here, an abort ends the rollout (a cancel is honoured by
// the next operation's start).
func (r *run) between(ctx dbos.Context, pass int, done string) (*DeployResult, *failure, error) {
	look, err := readStep(ctx, stepRolloutLook, func(c context.Context) (rolloutLook, error) {
		return r.lookAt(c, time.Time{})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("look at the rollout: %w", err)
	}
	switch {
	case look.Cancelled:
		return nil, nil, nil
	case look.Action == deploy.RolloutActionAbort:
		res, f := r.aborted(look.By, look.Reason)
		return &res, f, nil
	case look.Action == deploy.RolloutActionPause:
		reason := look.Reason
		if reason == "" {
			reason = "paused by " + look.By
		}
		return r.pause(ctx, pass, reason, look.By, done)
	}
	return nil, nil, nil
}

// aborted is the end of a deploy whose rollout a person aborted: a failure
// of the deploy as a whole, which the rollback policy compensates.
func (r *run) aborted(by, reason string) (DeployResult, *failure) {
	msg := deploy.RolloutAbortedBy(by, reason)
	r.note("", "error", "%s", msg)
	return DeployResult{State: deploy.StateError, Error: msg}, &failure{step: deploy.StepPause, message: msg, always: true}
}

// pauseOp is the record of the seq-th pause of pass.
func (r *run) pauseOp(pass, seq int) op {
	pos := wavePosition + 2*(pass-1) + 1
	return op{deployID: r.in.ID, key: deploy.StepKey{Step: deploy.StepPause, Pass: pass, Batch: seq, Kind: deploy.KindRun},
		step: deploy.PlannedStep{Name: deploy.StepPause, Type: stepTypeRollout}, pos: pos}
}

// pauseBegun is what the start of a pause recorded: its start, and its
// reason and author once a person's pending pause was taken with it.
type pauseBegun struct {
	Start  time.Time `json:"start"`
	Reason string    `json:"reason"`
	By     string    `json:"by,omitempty"`
}

func (r *run) pauseTimeout() time.Duration {
	if s := r.eff.Rollout; s != nil && s.PauseTimeout > 0 {
		return s.PauseTimeout
	}
	return deploy.DefaultPauseTimeout
}

// pause holds the rollout in pass, for reason, asked by by (empty: the
// rollout paused itself), until a resume (nil results: the rollout goes
// on), an abort or the timeout (a failure), or a cancel. It holds no slot
// of the process meanwhile.
func (r *run) pause(ctx dbos.Context, pass int, reason, by, done string) (_ *DeployResult, _ *failure, err error) {
	defer r.idle(ctx, &err)()
	r.pauses[pass]++
	o := r.pauseOp(pass, r.pauses[pass])
	timeout := r.pauseTimeout()
	// In a DBOS transaction: the start the status shows is the one the
	// workflow keeps, even when it stops right after recording it.
	begun, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (pauseBegun, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return pauseBegun{}, err
		}
		// Whoever begins the pause, it answers a person's pause pending:
		// left on the row, that request would refuse the resume of this
		// pause. A resume pending answered an earlier pause: it goes too.
		asked, err := r.e.rec.BeginPause(c, tx, r.in.ID)
		if err != nil {
			return pauseBegun{}, restartable(err)
		}
		b := pauseBegun{Reason: reason, By: by}
		if asked != nil && by == "" {
			b.By = asked.By
			b.Reason = reason + "; pause asked by " + asked.By
			if asked.Reason != "" {
				b.Reason += ": " + asked.Reason
			}
		}
		rec := o.start()
		at := rec.StartedAt.Truncate(time.Microsecond)
		rec.StartedAt = &at
		b.Start = at
		rec.Output = map[string]string{deploy.OutputPauseReason: b.Reason, deploy.OutputPauseBy: b.By,
			deploy.OutputPauseUntil: at.Add(timeout).Format(time.RFC3339Nano)}
		if _, err := r.e.rec.Advance(c, tx, nil, deploy.StepEffects{}, rec, deploy.BeginOptions{}); err != nil {
			return pauseBegun{}, restartable(err)
		}
		return b, nil
	}, r.e.txOptions(stepRolloutPause)...)
	if err != nil {
		return nil, nil, fmt.Errorf("record the pause of the rollout: %w", err)
	}
	start, reason, by := begun.Start, begun.Reason, begun.By
	until := start.Add(timeout)
	name := o.key.Name()
	r.note(name, "warn", "rollout paused: %s; resume or abort it before %s", reason, until.UTC().Format(time.RFC3339))
	out := func(extra map[string]string) map[string]string {
		m := map[string]string{deploy.OutputPauseReason: reason, deploy.OutputPauseBy: by,
			deploy.OutputPauseUntil: until.Format(time.RFC3339Nano)}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for {
		look, err := readStep(ctx, stepRolloutPauseLook, func(c context.Context) (rolloutLook, error) {
			return r.lookAt(c, until)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("pause of the rollout: %w", err)
		}
		switch {
		case look.Cancelled:
			if err := r.endRolloutOp(ctx, o, start, deploy.StepCancelled, out(nil), "", ""); err != nil {
				return nil, nil, err
			}
			msg := deploy.CancelledAt(look.CancelledBy, done, name)
			r.note(name, "warn", "%s", msg)
			return &DeployResult{State: deploy.StateCancelled, Error: msg, CancelledBy: look.CancelledBy}, nil, nil
		case look.Action == deploy.RolloutActionAbort:
			res, f := r.aborted(look.By, look.Reason)
			if err := r.endRolloutOp(ctx, o, start, deploy.StepError, out(nil), res.Error, ""); err != nil {
				return nil, nil, err
			}
			return &res, f, nil
		case look.Action == deploy.RolloutActionResume && look.Pause != "" && look.Pause != name:
			// Written for a pause that ended (the store keeps no such
			// resume; a row may hold one from elsewhere): it ends nothing,
			// and must not stand in the way of a resume of this pause.
			if err := r.dropResume(ctx); err != nil {
				return nil, nil, err
			}
			r.note(name, "warn", "a resume of %s by %s was dropped: that pause has ended, and it does not end %s", look.Pause, look.By, name)
			continue
		case look.Action == deploy.RolloutActionResume:
			extra := map[string]string{deploy.OutputResumedBy: look.By, deploy.OutputResumeNote: look.Reason}
			if err := r.endRolloutOp(ctx, o, start, deploy.StepSuccess, out(extra), "", deploy.RolloutActionResume); err != nil {
				return nil, nil, err
			}
			r.note(name, "info", "rollout resumed by %s", look.By)
			return nil, nil, nil
		case look.Left <= 0:
			msg := fmt.Sprintf("rollout paused (%s) for %s without a resume: the rollout aborts", reason, timeout)
			if err := r.endRolloutOp(ctx, o, start, deploy.StepError, out(nil), msg, ""); err != nil {
				return nil, nil, err
			}
			r.note(name, "error", "%s", msg)
			return &DeployResult{State: deploy.StateError, Error: msg},
				&failure{step: deploy.StepPause, message: msg, always: true}, nil
		}
		// Woken early by a request or a cancel: the next look says which.
		if err := r.nap(ctx, look.Left); err != nil {
			return nil, nil, fmt.Errorf("pause of the rollout: %w", err)
		}
	}
}

// dropResume takes the resume pending, which answered another pause.
func (r *run) dropResume(ctx dbos.Context) error {
	_, err := readStep(ctx, stepRolloutPauseDrop, func(c context.Context) (bool, error) {
		r.live = true
		return true, r.e.inTx(c, func(q dbos.Querier) error {
			if err := r.e.unfenced(c); err != nil {
				return err
			}
			return r.e.rec.TakeRolloutRequest(c, q, r.in.ID, deploy.RolloutActionResume)
		})
	})
	if err != nil {
		return fmt.Errorf("drop a resume of another pause: %w", err)
	}
	return nil
}

// endRolloutOp records the end of a pause or a wave's approval, taking the
// request it followed.
func (r *run) endRolloutOp(ctx dbos.Context, o op, start time.Time, state deploy.StepState, out map[string]string, msg string, take deploy.RolloutAction) error {
	_, err := dbos.RunAsTransaction(ctx, r.e.ds, func(c context.Context, tx dbos.Tx) (bool, error) {
		r.live = true
		if err := r.e.unfenced(c); err != nil {
			return false, err
		}
		s := o.record(state)
		now := time.Now().UTC()
		s.StartedAt, s.FinishedAt, s.Attempts, s.Output, s.Error = &start, &now, 1, out, msg
		if _, err := r.e.rec.Advance(c, tx, &s, deploy.StepEffects{}, nil, deploy.BeginOptions{}); err != nil {
			return false, restartable(err)
		}
		if err := r.stepNotice(tx, o, s); err != nil {
			return false, restartable(err)
		}
		if take != "" {
			if err := r.e.rec.TakeRolloutRequest(c, tx, r.in.ID, take); err != nil {
				return false, restartable(err)
			}
		}
		return true, nil
	}, r.e.txOptions(stepRolloutPauseEnd)...)
	if err != nil {
		return fmt.Errorf("record the end of %s: %w", o.key.Name(), err)
	}
	return nil
}
