package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/dberr"
)

// The wait workflow holds a deploy, on the wait queue (no deploy slot),
// until it may run: its dependencies (after), then its time (schedule.at),
// then its approvals and its change ticket. It then moves the deploy to
// ENQUEUED and enqueues its deploy workflow in one transaction, or ends it
// (DEPENDENCY_FAILED, REJECTED, EXPIRED). Its ID is the deploy's with
// ":wait": the deploy workflow keeps the deploy's own ID.

// sleepOrWake waits for a message on topic, or for d to pass: a durable
// timer (DBOS records when it ends, so a resumed workflow wakes at the same
// instant) that a Send interrupts. A timeout is not an error. Every wait of
// the engine goes through it, so the sequence of a workflow's steps never
// depends on the clock.
//
// DBOS retries most connection errors inside Recv, but not all: a
// connection cut in the middle of one of its transactions (the timer's, or
// the one that takes the message) answers io.ErrUnexpectedEOF, which it
// does not match. Such a Recv has used its step IDs whatever it recorded,
// and a replay calls it once at those IDs. So it is never made again here:
// after a pause it returns as if woken, and every caller reads what it
// waits for again (a recorded step, which waits for the database) and
// calls sleepOrWake anew. A replay then meets the same steps at the same
// IDs; its Recv at the failed one's IDs waits at most d, for a message the
// execution before it did not take.
func sleepOrWake(ctx dbos.Context, topic string, d time.Duration) (string, error) {
	msg, err := dbos.Recv[string](ctx, topic, max(d, 0)+20*time.Millisecond)
	switch {
	case err == nil || errors.Is(err, dbos.ErrTimeout):
		return msg, nil
	case !dberr.Unavailable(err):
		return "", err
	}
	select {
	case <-time.After(100 * time.Millisecond):
		return "", nil
	case <-ctx.Done():
		return "", err
	}
}

// waitReading is one reading of what a deploy waits for.
type waitReading struct {
	Outcome string `json:"outcome"` // waiting, satisfied (approved), failed, rejected, expired, gone
	Reason  string `json:"reason,omitempty"`
	// ChangeRejected is set when the ITSM rejected the change.
	ChangeRejected bool `json:"change_rejected,omitempty"`
	// State is the state of a deploy that ended outside its wait (gone): a
	// cancel, a rejection.
	State deploy.State `json:"state,omitempty"`
}

// gone is the reading of a deploy that ended outside its wait.
func gone(d *deploy.Deployment) waitReading { return waitReading{Outcome: readGone, State: d.State} }

// ended is the result of a wait whose deploy ended outside it (a reading
// recorded before State was, is a cancel).
func (r waitReading) ended() DeployResult {
	if r.State == "" {
		return DeployResult{State: deploy.StateCancelled}
	}
	return DeployResult{State: r.State}
}

// Outcomes of a reading.
const (
	readWaiting   = "waiting"
	readSatisfied = "satisfied"
	readFailed    = "failed"
	readRejected  = "rejected"
	readExpired   = "expired"
	readGone      = "gone"
)

// readStep is a step of a wait that reads (and may move) the deploy: the
// database being away only delays it.
func readStep[T any](ctx dbos.Context, name string, fn func(c context.Context) (T, error)) (T, error) {
	return dbos.RunAsStep(ctx, func(c context.Context) (T, error) {
		return untilAvailable(c, func() (T, error) { return fn(c) })
	}, dbos.WithStepName(name))
}

// waitWorkflow waits for the dependencies, the time, the approvals and the
// change ticket of a deploy, in that order. The functions it calls share
// its input by pointer: a copy of it in each frame of the waiting
// goroutine's stack would be kept for the whole wait.
func (e *Engine) waitWorkflow(ctx dbos.Context, input WaitInput) (DeployResult, error) {
	in := &input
	in.ID = in.deployID()
	if len(in.Wait.After) > 0 {
		res, done, err := e.waitDependencies(ctx, in)
		if err != nil || done {
			return res, err
		}
	}
	if in.Wait.At != nil {
		res, done, err := e.waitUntil(ctx, in)
		if err != nil || done {
			return res, err
		}
	}
	if !in.Wait.Approvals && in.Wait.Change == nil {
		return e.enqueueWaited(ctx, in, nil)
	}
	return e.waitApprovals(ctx, in)
}

// job is the job of the deploy the wait holds: the one its input carries
// (a wait enqueued by an earlier version), otherwise its row's.
func (e *Engine) job(ctx context.Context, in *WaitInput) (deploy.Job, error) {
	if in.Job != nil {
		return *in.Job, nil
	}
	j, err := e.store.Job(ctx, in.ID)
	if err != nil {
		return deploy.Job{}, fmt.Errorf("read the job of %s: %w", in.ID, err)
	}
	return j, nil
}

// waitDependencies waits until every deploy of after succeeded: woken at
// once when one ends (a Send from its workflow, or from what ended it: a
// cancel, the end of its wait), and otherwise only by its expiry, a
// durable timer. A wake-up that never came (lost in a crash or a database
// outage, a dependency ended by hand) is sent again by the sweeper
// (sweep.go), one query for all the waits of the cluster: no wait looks
// on its own, so a waiting deploy costs no work while it waits. done
// reports that the wait ended the deploy (dependency failed, expired, or
// cancelled).
func (e *Engine) waitDependencies(ctx dbos.Context, in *WaitInput) (DeployResult, bool, error) {
	for {
		st, err := readStep(ctx, stepAfterEvaluate, func(c context.Context) (waitReading, error) {
			return e.evaluateDependencies(c, in)
		})
		if err != nil {
			return DeployResult{}, true, err
		}
		switch st.Outcome {
		case readGone:
			return st.ended(), true, nil
		case readSatisfied:
			return DeployResult{}, false, nil
		case readFailed:
			res, err := e.endWait(ctx, in, deploy.StateDependencyFailed, st.Reason)
			return res, true, err
		}
		if _, err := sleepOrWake(ctx, topicWait, time.Until(in.Wait.AfterExpiresAt)); err != nil {
			return DeployResult{}, true, fmt.Errorf("wait for dependencies: %w", err)
		}
	}
}

// evaluateDependencies reads the deploy and the states of its dependencies.
func (e *Engine) evaluateDependencies(ctx context.Context, in *WaitInput) (waitReading, error) {
	d, err := e.store.Get(ctx, in.ID)
	if err != nil {
		return waitReading{}, err
	}
	if d.State.Terminal() {
		return gone(d), nil
	}
	states, err := e.store.DependencyStates(ctx, in.Wait.After)
	if err != nil {
		return waitReading{}, err
	}
	var failed []string
	pending := 0
	for _, id := range in.Wait.After {
		st, ok := states[id]
		switch {
		case !ok:
			failed = append(failed, id+" no longer exists")
		case st == deploy.StateSuccess:
		case st.Terminal():
			failed = append(failed, fmt.Sprintf("%s ended %s", id, st))
		default:
			pending++
		}
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return waitReading{Outcome: readFailed, Reason: "dependency did not succeed: " + strings.Join(failed, ", ")}, nil
	}
	if pending == 0 {
		return waitReading{Outcome: readSatisfied}, nil
	}
	if !time.Now().Before(in.Wait.AfterExpiresAt) {
		return waitReading{Outcome: readFailed, Reason: fmt.Sprintf("the wait for %d dependenc(ies) expired at %s",
			pending, in.Wait.AfterExpiresAt.UTC().Format(time.RFC3339))}, nil
	}
	return waitReading{Outcome: readWaiting}, nil
}

// waitUntil holds the deploy DELAYED until schedule.at. The wait is a
// durable timer (DBOS records when it ends), interrupted by a cancel.
func (e *Engine) waitUntil(ctx dbos.Context, in *WaitInput) (DeployResult, bool, error) {
	at := *in.Wait.At
	for {
		st, err := readStep(ctx, stepAtEvaluate, func(c context.Context) (waitReading, error) {
			d, err := e.store.Get(c, in.ID)
			if err != nil {
				return waitReading{}, err
			}
			if d.State.Terminal() {
				return gone(d), nil
			}
			if !time.Now().Before(at) {
				return waitReading{Outcome: readSatisfied}, nil
			}
			if _, err := e.store.Transition(c, in.ID, deploy.StateDelayed, nil); err != nil {
				return waitReading{}, err
			}
			return waitReading{Outcome: readWaiting}, nil
		})
		if err != nil {
			return DeployResult{}, true, err
		}
		switch st.Outcome {
		case readGone:
			return st.ended(), true, nil
		case readSatisfied:
			return DeployResult{}, false, nil
		}
		if _, err := sleepOrWake(ctx, topicWait, time.Until(at)); err != nil {
			return DeployResult{}, true, fmt.Errorf("wait for schedule.at: %w", err)
		}
	}
}

// waitApprovals requests the approvals (and opens the change ticket) now
// that the deploy can really start, and waits for them: woken by every
// answer and by a cancel (Send), by its expiry (the Recv timeout, a durable
// sleep), and by a poll of the ITSM, which does not call back.
func (e *Engine) waitApprovals(ctx dbos.Context, in *WaitInput) (DeployResult, error) {
	w := in.Wait
	expires, err := readStep(ctx, stepApprovalsRequest, func(c context.Context) (time.Time, error) {
		if !w.ExpiresAt.IsZero() {
			return w.ExpiresAt, nil
		}
		at := time.Now().UTC().Add(w.Require.Expiry)
		if _, err := e.store.Transition(c, in.ID, deploy.StateAwaitingApproval, &at); err != nil {
			return at, err
		}
		j, err := e.job(c, in)
		if err != nil {
			return at, err
		}
		// Recorded before the step is: a step made again records the same
		// event (same ID), never none.
		n := newNotice(in.ID, deploy.NoticeApproval, "", string(deploy.StateAwaitingApproval))
		return at, e.recordNotice(nil, n, &j.Descriptor, jobDeployment(&j))
	})
	if err != nil {
		return DeployResult{}, err
	}
	in.Wait.ExpiresAt = expires
	var ticket *deploy.ChangeTicket
	if w.Change != nil {
		t, failed, err := e.openChange(ctx, in)
		if err != nil {
			return DeployResult{}, err
		}
		if failed != "" {
			// Without a ticket the deploy does not start.
			return e.endWait(ctx, in, deploy.StateError, "change:open failed: "+failed)
		}
		if t == nil {
			return DeployResult{State: deploy.StateCancelled}, nil
		}
		ticket = t
	}
	for {
		st, err := readStep(ctx, stepApprovalsEvaluate, func(c context.Context) (waitReading, error) {
			return e.evaluateApprovals(c, in, ticket)
		})
		if err != nil {
			return DeployResult{}, err
		}
		switch st.Outcome {
		case readGone:
			if ticket != nil {
				e.closeChange(ctx, in.ID, ticket, "cancelled")
			}
			return st.ended(), nil
		case readSatisfied:
			return e.enqueueWaited(ctx, in, ticket)
		case readRejected, readExpired:
			state := deploy.StateRejected
			if st.Outcome == readExpired {
				state = deploy.StateExpired
			}
			// A change the ITSM rejected needs no closing; one still open does.
			if ticket != nil && !st.ChangeRejected {
				e.closeChange(ctx, in.ID, ticket, "cancelled")
			}
			return e.endWait(ctx, in, state, st.Reason)
		}
		// The timeout is computed from the stored expiry, so a resumed wait
		// ends at the same instant.
		wait := time.Until(in.Wait.ExpiresAt)
		if ticket != nil && wait > e.changePollInterval() {
			wait = e.changePollInterval()
		}
		if _, err := sleepOrWake(ctx, topicWait, wait); err != nil {
			return DeployResult{}, fmt.Errorf("wait for approvals: %w", err)
		}
	}
}

// evaluateApprovals reads the deploy, its answers and the state of its
// change ticket once.
func (e *Engine) evaluateApprovals(ctx context.Context, in *WaitInput, ticket *deploy.ChangeTicket) (waitReading, error) {
	d, err := e.store.Get(ctx, in.ID)
	if err != nil {
		return waitReading{}, err
	}
	if d.State.Terminal() {
		return gone(d), nil
	}
	changeApproved := ticket == nil
	if ticket != nil {
		cs, err := e.changes[ticket.Connector].Status(ctx, ticket.ID)
		switch {
		case err != nil && deploy.IsPermanent(err):
			return waitReading{Outcome: readRejected, ChangeRejected: true,
				Reason: fmt.Sprintf("change %s: %v", ticketLabel(ticket), err)}, nil
		case err != nil:
			// A temporary ITSM failure: look again at the next poll.
			e.log.Warn("read change state", "deployment", in.ID, "ticket", ticket.ID, "error", err)
		case cs == deploy.ChangeRejected:
			return waitReading{Outcome: readRejected, ChangeRejected: true,
				Reason: fmt.Sprintf("change %s rejected in the ITSM", ticketLabel(ticket))}, nil
		case cs == deploy.ChangeApproved:
			changeApproved = true
		}
	}
	required := in.Wait.Require.Count
	if !in.Wait.Approvals {
		required = 0
	}
	approvers := 0
	for _, a := range d.Approvals {
		if a.Identity == d.Requester {
			continue // refused at Approve; never counted even if written by hand
		}
		if !a.Approved {
			return waitReading{Outcome: readRejected, Reason: deploy.RejectionReason(a)}, nil
		}
		approvers++
	}
	if approvers >= required && changeApproved {
		return waitReading{Outcome: readSatisfied}, nil
	}
	if !time.Now().Before(in.Wait.ExpiresAt) {
		reason := fmt.Sprintf("%d of %d approvals before %s", approvers, required, in.Wait.ExpiresAt.UTC().Format(time.RFC3339))
		if !changeApproved {
			reason = fmt.Sprintf("change %s not approved in the ITSM before %s", ticketLabel(ticket), in.Wait.ExpiresAt.UTC().Format(time.RFC3339))
		}
		return waitReading{Outcome: readExpired, Reason: reason}, nil
	}
	return waitReading{Outcome: readWaiting}, nil
}

// enqueueWaited moves the deploy to ENQUEUED and enqueues its workflow
// with its job (and the change ticket opened while it waited, nil for
// none), in one transaction: the job is read from the deploy's row in it.
func (e *Engine) enqueueWaited(ctx dbos.Context, in *WaitInput, ticket *deploy.ChangeTicket) (DeployResult, error) {
	moved, err := readStep(ctx, stepWaitEnqueue, func(c context.Context) (bool, error) {
		return e.store.EnqueueWaiting(c, in.ID, func(tx any, j deploy.Job) error {
			if in.Job != nil {
				j = *in.Job
			}
			j.Change = ticket
			return e.EnqueueDeploy(tx, j)
		})
	})
	if err != nil {
		return DeployResult{}, err
	}
	if !moved {
		return DeployResult{State: deploy.StateCancelled}, nil
	}
	return DeployResult{State: deploy.StateEnqueued}, nil
}

// endWait records the end of a wait that did not let the deploy run.
func (e *Engine) endWait(ctx dbos.Context, in *WaitInput, state deploy.State, reason string) (DeployResult, error) {
	_, err := readStep(ctx, stepWaitFinish, func(c context.Context) (bool, error) {
		j, err := e.job(c, in)
		if err != nil {
			return false, err
		}
		// The store writes after.finish with the end of a wait for
		// dependencies, in the same transaction.
		if err := e.store.FinishDeployment(c, deploy.Outcome{ID: in.ID, State: state,
			Error: reason, FinishedAt: time.Now().UTC(), Actor: j.Requester}); err != nil {
			return false, err
		}
		e.wakeWaiters(c, in.ID)
		return true, nil
	})
	if err != nil {
		return DeployResult{}, err
	}
	return DeployResult{State: state, Error: reason}, nil
}
