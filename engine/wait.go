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
)

// sleepOrWake waits for a message on topic, or for d to pass: a durable
// timer (DBOS records when it ends, so a resumed workflow wakes at the same
// instant) that a Send interrupts. A timeout is not an error. Every wait of
// the engine goes through it, so the sequence of a workflow's steps never
// depends on the clock.
func sleepOrWake(ctx dbos.Context, topic string, d time.Duration) (string, error) {
	msg, err := dbos.Recv[string](ctx, topic, max(d, 0)+20*time.Millisecond)
	if err != nil && !errors.Is(err, dbos.ErrTimeout) {
		return "", err
	}
	return msg, nil
}

// waitingStates are the states of a deploy its wait workflow owns.
var waitingStates = []deploy.State{deploy.StateWaitingDependency, deploy.StateDelayed, deploy.StateAwaitingApproval}

// depsState is one reading of the dependencies.
type depsState struct {
	Outcome string `json:"outcome"` // waiting, satisfied, failed, gone
	Reason  string `json:"reason,omitempty"`
}

// waitDependencies waits until every deploy of after succeeded: woken at
// once when one ends (Send from its workflow), and by a safety poll from
// chains.poll_interval doubling up to 5 minutes, for the cases without a
// notification (a deploy deleted by retention). done reports that the wait
// ended the deploy (dependency failed, expired, or cancelled).
func (e *Engine) waitDependencies(ctx dbos.Context, in ApprovalInput) (DeployResult, bool, error) {
	poll := e.chainsPollInterval()
	for {
		st, err := dbos.RunAsStep(ctx, func(c context.Context) (depsState, error) {
			return e.evaluateDependencies(c, in)
		}, dbos.WithStepName("manent.after.evaluate"), dbos.WithStepMaxRetries(10))
		if err != nil {
			return DeployResult{}, true, err
		}
		switch st.Outcome {
		case "gone":
			return DeployResult{State: deploy.StateCancelled}, true, nil
		case "satisfied":
			return DeployResult{}, false, nil
		case "failed":
			res, err := e.endWait(ctx, in, nil, deploy.StateDependencyFailed, st.Reason)
			return res, true, err
		}
		wait := min(poll, time.Until(in.AfterExpiresAt))
		if _, err := sleepOrWake(ctx, governanceTopic, wait); err != nil {
			return DeployResult{}, true, fmt.Errorf("wait for dependencies: %w", err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
}

// evaluateDependencies reads the deploy and its dependencies with one query.
func (e *Engine) evaluateDependencies(ctx context.Context, in ApprovalInput) (depsState, error) {
	d, err := e.store.Get(ctx, in.Deploy.ID)
	if err != nil {
		return depsState{}, err
	}
	if d.State.Terminal() {
		return depsState{Outcome: "gone"}, nil
	}
	states, err := e.store.DependencyStates(ctx, in.After)
	if err != nil {
		return depsState{}, err
	}
	var failed []string
	pending := 0
	for _, id := range in.After {
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
		return depsState{Outcome: "failed", Reason: "dependency did not succeed: " + strings.Join(failed, ", ")}, nil
	}
	if pending == 0 {
		return depsState{Outcome: "satisfied"}, nil
	}
	if !time.Now().Before(in.AfterExpiresAt) {
		return depsState{Outcome: "failed", Reason: fmt.Sprintf("the wait for %d dependenc(ies) expired at %s",
			pending, in.AfterExpiresAt.UTC().Format(time.RFC3339))}, nil
	}
	return depsState{Outcome: "waiting"}, nil
}

// waitUntil holds the deploy DELAYED until schedule.at. The wait is a
// durable timer (DBOS records when it ends), interrupted by a cancel.
func (e *Engine) waitUntil(ctx dbos.Context, in ApprovalInput) (DeployResult, bool, error) {
	for {
		st, err := dbos.RunAsStep(ctx, func(c context.Context) (depsState, error) {
			d, err := e.store.Get(c, in.Deploy.ID)
			if err != nil {
				return depsState{}, err
			}
			if d.State.Terminal() {
				return depsState{Outcome: "gone"}, nil
			}
			if !time.Now().Before(*in.At) {
				return depsState{Outcome: "satisfied"}, nil
			}
			if _, err := e.store.Transition(c, in.Deploy.ID, waitingStates, deploy.StateDelayed, nil); err != nil {
				return depsState{}, err
			}
			return depsState{Outcome: "waiting"}, nil
		}, dbos.WithStepName("manent.schedule.at"), dbos.WithStepMaxRetries(10))
		if err != nil {
			return DeployResult{}, true, err
		}
		switch st.Outcome {
		case "gone":
			return DeployResult{State: deploy.StateCancelled}, true, nil
		case "satisfied":
			return DeployResult{}, false, nil
		}
		wait := time.Until(*in.At)
		if _, err := sleepOrWake(ctx, governanceTopic, wait); err != nil {
			return DeployResult{}, true, fmt.Errorf("wait for schedule.at: %w", err)
		}
	}
}

// release moves the deploy to ENQUEUED and enqueues its workflow, in one
// transaction.
func (e *Engine) release(ctx dbos.Context, in ApprovalInput) (DeployResult, error) {
	released, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		return e.store.ReleaseApproved(c, in.Deploy.ID, func(tx any) error {
			return e.enqueueDeploy(in.Deploy, tx)
		})
	}, dbos.WithStepName("manent.wait.release"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return DeployResult{}, err
	}
	if !released {
		return DeployResult{State: deploy.StateCancelled}, nil
	}
	return DeployResult{State: deploy.StateEnqueued}, nil
}

func (e *Engine) chainsPollInterval() time.Duration {
	if d := e.cfg.Chains.PollInterval; d > 0 {
		return d
	}
	return deploy.DefaultChainsPoll
}

// wakeDependents tells the deploys waiting on id that it ended: they read
// the states again at once instead of at their next poll.
func (e *Engine) wakeDependents(ctx context.Context, id string) {
	// The release the deploy belongs to, if any, applies onFailure before
	// its dependents look (release.go).
	e.wakeRelease(ctx, id)
	ids, err := e.store.Dependents(ctx, id)
	if err != nil {
		e.log.Warn("list dependents", "deployment", id, "error", err)
		return
	}
	for _, dep := range ids {
		e.wake(dep)
	}
}
