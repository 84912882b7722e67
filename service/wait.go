package service

import (
	"context"
	"fmt"
	"slices"
	"time"

	"manent.dev/manent/deploy"
)

// plannedWait is what a submitted deploy waits for before its queue.
type plannedWait struct {
	initial         deploy.State
	plan            deploy.WaitPlan
	approvalExpires *time.Time
}

// planWait checks the dependencies (every one must exist, be readable by
// the requester, not be a dry-run and not have ended without success) and
// decides the first state: WAITING_DEPENDENCY, DELAYED, AWAITING_APPROVAL,
// or nil for a deploy queued at once.
// skip lists dependencies not checked (deploys of the same release): they
// count as not succeeded yet, and the wait reads their states.
func (s *Service) planWait(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, dec deploy.Decision, now time.Time, skip []string) (*plannedWait, error) {
	pending, err := s.checkDependencies(ctx, who, d, skip)
	if err != nil {
		return nil, err
	}
	w := &plannedWait{plan: deploy.WaitPlan{Approvals: dec.Approvals != nil, Change: dec.Change}}
	if dec.Approvals != nil {
		w.plan.Require = *dec.Approvals
		if w.plan.Require.Expiry <= 0 {
			w.plan.Require.Expiry = 24 * time.Hour
		}
		if w.plan.Require.Count < 1 {
			w.plan.Require.Count = 1
		}
	} else if dec.Change != nil {
		w.plan.Require = deploy.ApprovalRequirement{Expiry: 24 * time.Hour}
	}
	if len(d.After) > 0 {
		timeout := d.AfterTimeout
		if timeout <= 0 {
			timeout = deploy.DefaultAfterTimeout
		}
		w.plan.After = d.After
		w.plan.AfterExpiresAt = now.Add(timeout)
	}
	if d.Schedule != nil && d.Schedule.At != nil {
		at := d.Schedule.At.UTC()
		w.plan.At = &at
	}
	switch {
	case pending > 0:
		w.initial = deploy.StateWaitingDependency
	case w.plan.At != nil && now.Before(*w.plan.At):
		w.initial = deploy.StateDelayed
	case w.plan.Approvals || w.plan.Change != nil:
		w.initial = deploy.StateAwaitingApproval
		exp := now.Add(w.plan.Require.Expiry)
		w.plan.ExpiresAt, w.approvalExpires = exp, &exp
	default:
		return nil, nil
	}
	return w, nil
}

// checkDependencies returns how many dependencies have not succeeded yet.
// They are read in one query, not one deploy at a time.
func (s *Service) checkDependencies(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, skip []string) (int, error) {
	var checked []string
	for _, id := range d.After {
		if !slices.Contains(skip, id) {
			checked = append(checked, id)
		}
	}
	found, err := s.store.Prerequisites(ctx, checked)
	if err != nil {
		return 0, err
	}
	var fields []deploy.FieldError
	pending := 0
	for i, id := range d.After {
		if slices.Contains(skip, id) {
			pending++
			continue
		}
		path := fmt.Sprintf("after[%d]", i)
		dep, exists := found[id]
		readable := false
		if exists {
			ok, err := s.authz.Allowed(who, dep.Resource, deploy.PermRead)
			if err != nil {
				return 0, fmt.Errorf("authorize: %w", err)
			}
			readable = ok
		}
		switch {
		case !exists || !readable:
			// An unreadable deploy looks like a missing one: the answer
			// must not reveal another team's deploys.
			fields = append(fields, deploy.FieldError{Path: path, Message: fmt.Sprintf("no deploy %q (or no deployment.read on it)", id)})
		case dep.DryRun:
			fields = append(fields, deploy.FieldError{Path: path, Message: fmt.Sprintf("%q is a dry-run: nothing can wait for it", id)})
		case dep.State.Terminal() && dep.State != deploy.StateSuccess:
			fields = append(fields, deploy.FieldError{Path: path, Message: fmt.Sprintf("%q already ended %s", id, dep.State)})
		case dep.State != deploy.StateSuccess:
			pending++
		}
	}
	if len(fields) > 0 {
		return 0, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "dependencies refused", Fields: fields}
	}
	return pending, nil
}
