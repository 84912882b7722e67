package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// A composite release is followed by its release workflow on the wait
// queue: it never takes a deploy slot. It queues the release's deploys with
// the requester's identity, follows them and applies onFailure.

// ReleaseResult is the release workflow's output.
type ReleaseResult struct {
	State deploy.ReleaseState `json:"state"`
	Error string              `json:"error,omitempty"`
}

// releaseQueued is what the first step of a release did.
type releaseQueued struct {
	// Stopped: the release had already ended (cancelled) before it ran.
	Stopped bool   `json:"stopped,omitempty"`
	Refused string `json:"refused,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// releaseReading is one reading of the release's deploys.
type releaseReading struct {
	// Ended is set when the release is no longer PENDING (cancelled).
	Ended  deploy.ReleaseState     `json:"ended,omitempty"`
	States map[string]deploy.State `json:"states"`
	Errors map[string]string       `json:"errors,omitempty"`
}

func (r releaseReading) allEnded(in deploy.ReleasePlan) bool {
	for _, m := range in.Members {
		if !r.States[m.Name].Terminal() {
			return false
		}
	}
	return true
}

// failed lists the deploys that ended without success, in topological order.
func (r releaseReading) failed(in deploy.ReleasePlan) []string {
	var out []string
	for _, m := range in.Members {
		if st := r.States[m.Name]; st.Terminal() && st != deploy.StateSuccess {
			out = append(out, fmt.Sprintf("%s ended %s", m.Name, st))
		}
	}
	return out
}

// releaseWorkflowFn queues the deploys as its first step, then follows
// them, woken when one ends (wakeRelease) and by a safety poll, and applies
// onFailure. It only orchestrates: every side effect is a step.
func (e *Engine) releaseWorkflow(ctx dbos.Context, in deploy.ReleasePlan) (ReleaseResult, error) {
	q, err := readStep(ctx, stepReleaseQueue, func(c context.Context) (releaseQueued, error) {
		return e.queueReleaseMembers(c, in)
	})
	if err != nil {
		return ReleaseResult{}, err
	}
	if q.Stopped {
		return ReleaseResult{State: deploy.ReleaseCancelled}, nil
	}
	if q.Refused != "" {
		return e.finishRelease(ctx, in, deploy.ReleaseError, q.Reason)
	}
	poll := e.chainsPollInterval()
	stopped := false
	var st releaseReading
	for {
		st, err = readStep(ctx, stepReleaseEvaluate, func(c context.Context) (releaseReading, error) {
			return e.readRelease(c, in)
		})
		if err != nil {
			return ReleaseResult{}, err
		}
		if st.Ended != "" {
			return ReleaseResult{State: st.Ended}, nil
		}
		if !stopped && in.OnFailure != deploy.OnFailureContinue && len(st.failed(in)) > 0 {
			// stop and rollback: the deploys not started yet are cancelled,
			// those running finish.
			if _, err := readStep(ctx, stepReleaseStop, func(c context.Context) (bool, error) {
				return true, e.stopRelease(c, in, st)
			}); err != nil {
				return ReleaseResult{}, err
			}
			stopped = true
			continue
		}
		if st.allEnded(in) {
			break
		}
		if _, err := sleepOrWake(ctx, topicRelease, poll); err != nil {
			return ReleaseResult{}, fmt.Errorf("wait for the release's deploys: %w", err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
	failed := st.failed(in)
	if len(failed) == 0 {
		return e.finishRelease(ctx, in, deploy.ReleaseSuccess, "")
	}
	reason := "deploys did not succeed: " + strings.Join(failed, ", ")
	if in.OnFailure == deploy.OnFailureRollback {
		if err := e.rollbackRelease(ctx, in, st); err != nil {
			return ReleaseResult{}, err
		}
	}
	return e.finishRelease(ctx, in, deploy.ReleaseError, reason)
}

// queueReleaseMembers submits the deploys in topological order with the
// requester's identity. A resumed step finds those already submitted and
// gets them back (Submit is idempotent by ID). A deploy refused now (a
// freeze started meanwhile) ends the release: those already queued are
// cancelled, the refused one is ERROR, the following ones CANCELLED.
func (e *Engine) queueReleaseMembers(ctx context.Context, in deploy.ReleasePlan) (releaseQueued, error) {
	ids := in.MemberIDs()
	cctx := deploy.WithIdentity(ctx, in.Identity())
	for i, m := range in.Members {
		// A cancel of the release stops the queuing between two deploys.
		rel, err := e.store.GetRelease(ctx, in.ID)
		if err != nil {
			return releaseQueued{}, err
		}
		if rel.State != deploy.ReleasePending {
			return releaseQueued{Stopped: true}, nil
		}
		// A step run again after a crash finds the deploys it already
		// created: they are not submitted (nor checked) again. Another
		// deploy that took the ID is never taken for the release's.
		want := deploy.Derived{ID: m.Deploy.ID, Resource: m.Deploy.Resource(), Release: in.ID}
		if existing, err := e.store.Get(ctx, m.Deploy.ID); err == nil && want.Is(existing) {
			continue
		}
		sub, err := e.checks.SubmitMember(cctx, m.Deploy, deploy.SubmitOptions{SkipAfterCheckFor: ids, Release: in.ID})
		if err == nil && !want.Is(&sub.Deployment) {
			err = want.Taken()
		}
		if err == nil {
			continue
		}
		if deploy.ErrorCode(err) == deploy.EINTERNAL {
			return releaseQueued{}, err
		}
		reason := deploy.ErrorMessage(err)
		if err := e.store.MarkReleaseDeploy(ctx, in.ID, m.Name, deploy.StateError, "refused: "+reason); err != nil {
			return releaseQueued{}, err
		}
		for _, later := range in.Members[i+1:] {
			if err := e.store.MarkReleaseDeploy(ctx, in.ID, later.Name, deploy.StateCancelled, "not queued: "+m.Name+" was refused"); err != nil {
				return releaseQueued{}, err
			}
		}
		for _, earlier := range in.Members[:i] {
			if err := e.cancel(ctx, earlier.Deploy.ID, in.Requester, nil); err != nil {
				return releaseQueued{}, err
			}
		}
		return releaseQueued{Refused: m.Name, Reason: fmt.Sprintf("deploy %s refused: %s", m.Name, reason)}, nil
	}
	return releaseQueued{}, nil
}

// readRelease reads the release and the states of its deploys in one query.
func (e *Engine) readRelease(ctx context.Context, in deploy.ReleasePlan) (releaseReading, error) {
	rel, err := e.store.GetRelease(ctx, in.ID)
	if err != nil {
		return releaseReading{}, err
	}
	out := releaseReading{States: map[string]deploy.State{}, Errors: map[string]string{}}
	if rel.State != deploy.ReleasePending {
		out.Ended = rel.State
	}
	for _, m := range rel.Deploys {
		st := m.State
		if st == "" {
			// Queued by the first step but gone since (retention): it will
			// never end, so the release does not wait for it.
			st = deploy.StateCancelled
		}
		out.States[m.Name] = st
		if m.Error != "" {
			out.Errors[m.Name] = m.Error
		}
	}
	return out, nil
}

// stopRelease cancels the deploys of the release that have not started,
// dependents first (Members are in topological order): see
// deploy.Release.DependentsFirst.
func (e *Engine) stopRelease(ctx context.Context, in deploy.ReleasePlan, st releaseReading) error {
	for _, m := range slices.Backward(in.Members) {
		if slices.Contains(deploy.NotStarted, st.States[m.Name]) {
			if err := e.cancel(ctx, m.Deploy.ID, in.Requester, deploy.NotStarted); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) finishRelease(ctx dbos.Context, in deploy.ReleasePlan, state deploy.ReleaseState, reason string) (ReleaseResult, error) {
	_, err := readStep(ctx, stepReleaseFinish, func(c context.Context) (bool, error) {
		return e.store.FinishRelease(c, in.ID, state, reason, in.Requester)
	})
	if err != nil {
		return ReleaseResult{}, fmt.Errorf("record release outcome: %w", err)
	}
	return ReleaseResult{State: state, Error: reason}, nil
}

// stopOnFailure cancels the deploys of the release not started yet when
// deploymentID, one of its deploys, ended without success and the release
// stops on failure.
func (e *Engine) stopOnFailure(ctx context.Context, releaseID, deploymentID string) error {
	r, err := e.store.GetRelease(ctx, releaseID)
	if err != nil {
		return err
	}
	if r.State != deploy.ReleasePending || r.OnFailure == deploy.OnFailureContinue {
		return nil
	}
	failed := false
	for _, m := range r.Deploys {
		if m.DeploymentID == deploymentID {
			failed = m.State.Terminal() && m.State != deploy.StateSuccess
		}
	}
	if !failed {
		return nil
	}
	for _, m := range r.DependentsFirst() {
		if slices.Contains(deploy.NotStarted, m.State) {
			if err := e.cancel(ctx, m.DeploymentID, r.Requester, deploy.NotStarted); err != nil {
				return err
			}
		}
	}
	return nil
}
