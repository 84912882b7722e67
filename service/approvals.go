package service

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

// Approve implements deploy.Service.
func (s *Service) Approve(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	return s.answer(ctx, id, comment, true, -1)
}

// Reject implements deploy.Service.
func (s *Service) Reject(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	return s.answer(ctx, id, comment, false, -1)
}

// AnswerPass approves (or rejects) the approval of pass alone: 0 the
// deploy's own, N the wave N of its rollout. It is the answer of a button
// that names what it asks (a chat message's), given maybe after the deploy
// moved on: when the deploy awaits another approval now, or none, it is
// ECONFLICT and nothing is recorded. The store checks the pass again in
// the transaction that records the answer, so an approval asked between
// this read and that one is never given in its place.
func (s *Service) AnswerPass(ctx context.Context, id string, pass int, approved bool, comment string) (*deploy.Deployment, error) {
	if pass < 0 {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "pass must be 0 (the deploy's own approval) or a wave's")
	}
	return s.answer(ctx, id, comment, approved, pass)
}

// answer records the caller's answer to the deploy id: to the approval of
// pass expected, or when expected is -1 to whichever it awaits now.
func (s *Service) answer(ctx context.Context, id, comment string, approved bool, expected int) (_ *deploy.Deployment, err error) {
	defer func() {
		action := "deployment.approve"
		if !approved {
			action = "deployment.reject"
		}
		s.auditRefused(ctx, action, id, err, nil)
	}()
	who := deploy.IdentityFrom(ctx)
	d, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	pass, err := s.mayAnswer(who, d)
	if err != nil {
		return nil, err
	}
	if expected >= 0 && pass != expected {
		return nil, deploy.Errorf(deploy.ECONFLICT, "this approval is no longer asked: deployment %q now awaits %s", id, approvalName(pass))
	}
	if len(comment) > 2048 {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "comment longer than 2048 characters")
	}
	// Free text, like a descriptor's description: shown in terminals and
	// quoted in the deploy's error, it may hold lines, never what a
	// terminal would act on.
	if why := deploy.UnsafeText(comment, "\n\t"); why != "" {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "comment must be text without control characters (other than new lines and tabs): %s", why)
	}
	// The workflow that counts the answers is woken with the answer's
	// commit: the rollout's, for a wave (it goes on, or a rejection aborts
	// it), otherwise the deploy's wait (it lets the deploy go, or stops).
	wake := func(tx any) error { return s.engine.Answered(tx, id) }
	if pass > 0 {
		wake = func(tx any) error { return s.engine.RolloutRequested(tx, id) }
	}
	if err := s.store.AddApproval(ctx, deploy.Approval{DeploymentID: id, Pass: pass, Identity: who.Subject,
		Approved: approved, Comment: comment, Time: time.Now().UTC()}, wake); err != nil {
		return nil, err
	}
	if pass == 0 && !approved {
		// The store ended the deploy with the rejection: the answer shows
		// the state it produced.
		s.engine.Rejected(ctx, id)
	}
	return s.store.Get(ctx, id)
}

func approvalName(pass int) string {
	if pass > 0 {
		return fmt.Sprintf("the approval of wave %d", pass)
	}
	return "its own approval"
}

// awaiting is what d awaits approvals for now: itself (pass 0, while
// AWAITING_APPROVAL) or the wave pass of its running rollout, with what
// they must be; false when it awaits none.
func awaiting(d *deploy.Deployment) (int, deploy.ApprovalRequirement, bool) {
	switch {
	case d.State == deploy.StateAwaitingApproval && d.Decision.Approvals != nil:
		return 0, *d.Decision.Approvals, true
	case d.State == deploy.StatePending:
		if pass := d.WaveAwaitingApproval(); pass > 0 {
			return pass, deploy.WaveApprovalRequirement(d.Decision.Approvals), true
		}
	}
	return 0, deploy.ApprovalRequirement{}, false
}

// mayAnswer checks that who may approve or reject d now, and returns what
// the answer is for: 0 for the deploy, the wave's pass for a wave of its
// rollout. The same rules for both: deployment.approve, never the
// requester, from the groups or roles the governance names.
func (s *Service) mayAnswer(who deploy.Identity, d *deploy.Deployment) (int, error) {
	if err := s.require(who, resourceOf(d), deploy.PermApprove); err != nil {
		return 0, err
	}
	pass, req, ok := awaiting(d)
	if !ok {
		return 0, deploy.Errorf(deploy.ECONFLICT, "deployment %q is not awaiting approval: %s", d.ID, d.State)
	}
	if who.Subject == d.Requester {
		return 0, deploy.Errorf(deploy.EFORBIDDEN, "you requested deployment %q: another identity must approve it", d.ID)
	}
	if len(req.Groups) == 0 && len(req.Roles) == 0 {
		return pass, nil
	}
	if slices.ContainsFunc(who.Groups, func(g string) bool { return slices.Contains(req.Groups, g) }) {
		return pass, nil
	}
	for _, role := range req.Roles {
		ok, err := s.authz.HasRole(who, d.Tenant, role)
		if err != nil {
			return 0, fmt.Errorf("read roles: %w", err)
		}
		if ok {
			return pass, nil
		}
	}
	var from []string
	if len(req.Groups) > 0 {
		from = append(from, "a member of "+strings.Join(req.Groups, ", "))
	}
	if len(req.Roles) > 0 {
		from = append(from, "a holder of "+strings.Join(req.Roles, ", "))
	}
	return 0, deploy.Errorf(deploy.EFORBIDDEN, "approvals of %q must come from %s", d.ID, strings.Join(from, " or "))
}

// PendingApprovals implements deploy.Service: the deploys awaiting an
// approval, their own or a wave's, that the caller may give and has not
// given yet, newest first, at most deploy.MaxPageSize. The store selects
// the deploys awaiting one, page by page, however many others run; the
// rules of mayAnswer (the requester, the groups and roles) keep the
// caller's, so a page may keep none and the next is read.
func (s *Service) PendingApprovals(ctx context.Context) ([]deploy.Deployment, error) {
	who := deploy.IdentityFrom(ctx)
	out := []deploy.Deployment{}
	f := deploy.ListFilter{AwaitingApproval: true, First: deploy.MaxPageSize}
	for {
		page, err := s.List(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Items {
			if s.mayGive(who, &d) {
				out = append(out, d)
			}
			if len(out) == deploy.MaxPageSize {
				return s.withDeliveries(ctx, out)
			}
		}
		if !page.HasNextPage || page.EndCursor == "" {
			return s.withDeliveries(ctx, out)
		}
		f.After = page.EndCursor
	}
}

// mayGive reports whether who may answer the approval d awaits and has not
// answered it yet.
func (s *Service) mayGive(who deploy.Identity, d *deploy.Deployment) bool {
	pass, err := s.mayAnswer(who, d)
	if err != nil {
		return false
	}
	answers := d.Approvals
	if pass > 0 {
		answers = d.WaveApprovals
	}
	return !slices.ContainsFunc(answers, func(a deploy.Approval) bool { return a.Identity == who.Subject && a.Pass == pass })
}

// withDeliveries gives the deploys of the inbox that have callbacks their
// deliveries, which a page of List leaves out: a card of the inbox is the
// deploy as its status shows it.
func (s *Service) withDeliveries(ctx context.Context, ds []deploy.Deployment) ([]deploy.Deployment, error) {
	for i := range ds {
		if len(ds[i].Descriptor.Callbacks) == 0 {
			continue
		}
		full, err := s.store.Get(ctx, ds[i].ID)
		if deploy.ErrorCode(err) == deploy.ENOTFOUND {
			continue // gone since the page was read (retention)
		}
		if err != nil {
			return nil, err
		}
		ds[i].Deliveries = full.Deliveries
	}
	return ds, nil
}
