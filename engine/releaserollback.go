package engine

import (
	"context"
	"fmt"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// rollbackStarted is what one rollback step of a release did.
type rollbackStarted struct {
	ID      string `json:"id,omitempty"`
	Refused string `json:"refused,omitempty"`
	// Undo is set when the deploy is undone with its own compensations
	// (undo.go) rather than by a rollback deploy.
	Undo bool `json:"undo,omitempty"`
}

// rollbackRelease rolls back the deploys of the release that succeeded,
// from the most dependent to the least (reverse topological order), one at
// a time, stopping at the first that is refused or does not succeed; the
// rest are SKIPPED.
func (e *Engine) rollbackRelease(ctx dbos.Context, in deploy.ReleasePlan, st releaseReading) error {
	var todo []deploy.PlannedMember
	for i := len(in.Members) - 1; i >= 0; i-- {
		if st.States[in.Members[i].Name] == deploy.StateSuccess {
			todo = append(todo, in.Members[i])
		}
	}
	for i, m := range todo {
		started, err := readStep(ctx, stepReleaseRollback+m.Name, func(c context.Context) (rollbackStarted, error) {
			return e.startMemberRollback(c, in, m)
		})
		if err != nil {
			return err
		}
		ok := started.Refused == ""
		switch {
		case ok && started.Undo:
			if ok, err = e.waitUndo(ctx, in, m); err != nil {
				return err
			}
		case ok:
			final, err := e.waitRollback(ctx, started.ID)
			if err != nil {
				return err
			}
			ok = final == deploy.StateSuccess
		}
		if ok {
			continue
		}
		rest := todo[i+1:]
		if len(rest) == 0 {
			return nil
		}
		_, err = readStep(ctx, stepReleaseRollbackSkip, func(c context.Context) (bool, error) {
			for _, r := range rest {
				if err := e.store.SetReleaseRollback(c, in.ID, r.Name, "", deploy.RollbackSkipped,
					"not rolled back: the rollback of "+m.Name+" did not succeed"); err != nil {
					return false, err
				}
			}
			return true, nil
		})
		return err
	}
	return nil
}

// startMemberRollback submits the manual rollback <release>.rollback.<name>
// with the requester's identity, or records why it was refused (among
// others: that ID taken by a deploy that is not this rollback).
func (e *Engine) startMemberRollback(ctx context.Context, in deploy.ReleasePlan, m deploy.PlannedMember) (rollbackStarted, error) {
	d := m.Deploy
	cctx := deploy.WithIdentity(ctx, in.Identity())
	refuse := func(err error) (rollbackStarted, error) {
		if deploy.ErrorCode(err) == deploy.EINTERNAL {
			return rollbackStarted{}, err
		}
		msg := deploy.ErrorMessage(err)
		if err := e.store.SetReleaseRollback(ctx, in.ID, m.Name, "", deploy.RollbackRefused, msg); err != nil {
			return rollbackStarted{}, err
		}
		return rollbackStarted{Refused: msg}, nil
	}
	if p, err := e.planUndo(ctx, d.ID); err != nil {
		return rollbackStarted{}, err
	} else if p.Fits {
		// The same rules as a rollback deploy: the requester may roll the
		// environment back, and the artifact is one that can be.
		eff := p.Job.Effective
		res := deploy.Resource{Tenant: eff.Tenant, Application: eff.Application, Environment: eff.Environment}
		if err := e.checks.MayRollBack(cctx, res, d.ID, eff.Artifact.Type); err != nil {
			return refuse(err)
		}
		if err := e.store.SetReleaseRollback(ctx, in.ID, m.Name, "", string(deploy.StatePending), ""); err != nil {
			return rollbackStarted{}, err
		}
		return rollbackStarted{Undo: true}, e.enqueueUndo(UndoInput{DeploymentID: d.ID, Release: in.ID, Member: m.Name}, p.Job.Partition())
	}
	id := deploy.ReleaseRollbackID(in.ID, m.Name)
	sub, err := e.checks.RollbackMember(cctx, deploy.RollbackRequest{Tenant: d.Tenant, Application: d.Application,
		Environment: d.Environment, ID: id}, d.ID, in.ID)
	if err != nil {
		return refuse(err)
	}
	if err := e.store.SetReleaseRollback(ctx, in.ID, m.Name, sub.Deployment.ID, "", ""); err != nil {
		return rollbackStarted{}, err
	}
	return rollbackStarted{ID: sub.Deployment.ID}, nil
}

// waitRollback waits until the rollback deploy ends: woken by its end
// (it belongs to the release) and by the safety poll.
func (e *Engine) waitRollback(ctx dbos.Context, id string) (deploy.State, error) {
	poll := e.chainsPollInterval()
	for {
		st, err := readStep(ctx, stepReleaseRollbackEval, func(c context.Context) (deploy.State, error) {
			states, err := e.store.DependencyStates(c, []string{id})
			if err != nil {
				return "", err
			}
			s, ok := states[id]
			if !ok {
				return deploy.StateCancelled, nil
			}
			return s, nil
		})
		if err != nil {
			return "", err
		}
		if st.Terminal() {
			return st, nil
		}
		if _, err := sleepOrWake(ctx, topicRelease, poll); err != nil {
			return "", fmt.Errorf("wait for rollback %s: %w", id, err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
}

// waitUndo waits until the undo of a deploy of the release ended, woken by
// the undo workflow and by the safety poll: the undo records its outcome
// in the release (undoWorkflow). An undo workflow that ended without one
// (it failed) is recorded as a failed rollback. A deploy with nothing left
// to undo (SKIPPED) does not stop the sequence.
func (e *Engine) waitUndo(ctx dbos.Context, in deploy.ReleasePlan, m deploy.PlannedMember) (bool, error) {
	poll := e.chainsPollInterval()
	for {
		state, err := readStep(ctx, stepReleaseRollbackEval, func(c context.Context) (string, error) {
			if st, err := e.memberRollbackState(c, in.ID, m.Name); err != nil || st != string(deploy.StatePending) {
				return st, err
			}
			failed, err := e.workflowFailed(c, m.Deploy.ID+undoSuffix)
			if err != nil || !failed {
				return "", err
			}
			// Read again: the undo may have recorded its outcome just before.
			if st, err := e.memberRollbackState(c, in.ID, m.Name); err != nil || st != string(deploy.StatePending) {
				return st, err
			}
			st := string(deploy.StateError)
			return st, e.store.SetReleaseRollback(c, in.ID, m.Name, "", st,
				"its undo stopped for an internal reason: see the worker log")
		})
		if err != nil {
			return false, err
		}
		if state != "" {
			return state == string(deploy.StateSuccess) || state == deploy.RollbackSkipped, nil
		}
		if _, err := sleepOrWake(ctx, topicRelease, poll); err != nil {
			return false, fmt.Errorf("wait for the undo of %s: %w", m.Deploy.ID, err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
}

// memberRollbackState is the rollback state of the deploy name of a release.
func (e *Engine) memberRollbackState(ctx context.Context, releaseID, name string) (string, error) {
	r, err := e.store.GetRelease(ctx, releaseID)
	if err != nil {
		return "", err
	}
	for _, d := range r.Deploys {
		if d.Name == name {
			return d.RollbackState, nil
		}
	}
	return "", fmt.Errorf("release %s has no deploy %s", releaseID, name)
}

// workflowFailed reports whether the workflow id ended without its result
// (an error, a cancel, too many recoveries).
func (e *Engine) workflowFailed(ctx context.Context, id string) (bool, error) {
	ws, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterWorkflowIDs(id), dbos.WithFilterLoadInput(false), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return false, fmt.Errorf("read the status of workflow %s: %w", id, err)
	}
	for _, w := range ws {
		switch w.Status {
		case dbos.WorkflowStatusError, dbos.WorkflowStatusCancelled, dbos.WorkflowStatusMaxRecoveryAttemptsExceeded:
			return true, nil
		}
	}
	return false, nil
}
