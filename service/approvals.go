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
	return s.answer(ctx, id, comment, true)
}

// Reject implements deploy.Service.
func (s *Service) Reject(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
	return s.answer(ctx, id, comment, false)
}

func (s *Service) answer(ctx context.Context, id, comment string, approved bool) (*deploy.Deployment, error) {
	who := deploy.IdentityFrom(ctx)
	d, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.mayAnswer(who, d); err != nil {
		return nil, err
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
	if err := s.store.AddApproval(ctx, deploy.Approval{DeploymentID: id, Identity: who.Subject,
		Approved: approved, Comment: comment, Time: time.Now().UTC()}); err != nil {
		return nil, err
	}
	if approved {
		s.engine.Wake(id)
	} else {
		// The store ended the deploy with the rejection: the answer shows
		// the state it produced.
		s.engine.Rejected(ctx, id)
	}
	return s.store.Get(ctx, id)
}

// mayAnswer checks that who may approve or reject d.
func (s *Service) mayAnswer(who deploy.Identity, d *deploy.Deployment) error {
	if err := s.require(who, resourceOf(d), deploy.PermApprove); err != nil {
		return err
	}
	if d.State != deploy.StateAwaitingApproval || d.Decision.Approvals == nil {
		return deploy.Errorf(deploy.ECONFLICT, "deployment %q is not awaiting approval: %s", d.ID, d.State)
	}
	if who.Subject == d.Requester {
		return deploy.Errorf(deploy.EFORBIDDEN, "you requested deployment %q: another identity must approve it", d.ID)
	}
	req := d.Decision.Approvals
	if len(req.Groups) == 0 && len(req.Roles) == 0 {
		return nil
	}
	if slices.ContainsFunc(who.Groups, func(g string) bool { return slices.Contains(req.Groups, g) }) {
		return nil
	}
	for _, role := range req.Roles {
		ok, err := s.authz.HasRole(who, d.Tenant, role)
		if err != nil {
			return fmt.Errorf("read roles: %w", err)
		}
		if ok {
			return nil
		}
	}
	var from []string
	if len(req.Groups) > 0 {
		from = append(from, "a member of "+strings.Join(req.Groups, ", "))
	}
	if len(req.Roles) > 0 {
		from = append(from, "a holder of "+strings.Join(req.Roles, ", "))
	}
	return deploy.Errorf(deploy.EFORBIDDEN, "approvals of %q must come from %s", d.ID, strings.Join(from, " or "))
}

// PendingApprovals implements deploy.Service.
func (s *Service) PendingApprovals(ctx context.Context) ([]deploy.Deployment, error) {
	who := deploy.IdentityFrom(ctx)
	page, err := s.List(ctx, deploy.ListFilter{States: []deploy.State{deploy.StateAwaitingApproval}, First: deploy.MaxPageSize})
	if err != nil {
		return nil, err
	}
	out := []deploy.Deployment{}
	for _, d := range page.Items {
		full, err := s.store.Get(ctx, d.ID)
		if err != nil {
			continue
		}
		if s.mayAnswer(who, full) != nil {
			continue
		}
		answered := slices.ContainsFunc(full.Approvals, func(a deploy.Approval) bool { return a.Identity == who.Subject })
		if !answered {
			out = append(out, *full)
		}
	}
	return out, nil
}
