package service

import (
	"context"
	"fmt"
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// NonRollbackArtifactTypes are the artifact types a manual rollback refuses:
// redeploying the previous version of a database migration does not undo
// it. A release with onFailure: rollback stops its sequence of rollbacks there.
var NonRollbackArtifactTypes = []string{"migration"}

// RollbackTo implements deploy.Service: a manual rollback redeploys the
// previous release in service of an environment (or r.To) through the normal
// pipeline, as a new deploy with that deploy's descriptor, without its
// dependencies (after) and deployment imports.
func (s *Service) RollbackTo(ctx context.Context, r deploy.RollbackRequest) (*deploy.Submission, error) {
	sub, err := s.rollback(ctx, r, "", "")
	if err != nil {
		// The refused rollback has no deploy: its entry names the deploy
		// asked for (id or to), and the environment in its details.
		target := r.ID
		if target == "" {
			target = r.To
		}
		s.auditRefused(ctx, "deployment.rollback", target, err, map[string]any{
			"tenant": r.Tenant, "application": r.Application, "environment": r.Environment, "to": r.To})
	}
	return sub, err
}

// RollbackMember is the rollback of a deploy of a release with onFailure:
// rollback, submitted by the release's workflow with the identity of the
// release's requester in ctx: r.ID names it, from is the deploy it undoes.
func (s *Service) RollbackMember(ctx context.Context, r deploy.RollbackRequest, from, release string) (*deploy.Submission, error) {
	return s.rollback(ctx, r, from, release)
}

// rollback is RollbackTo for a release too: from is the deploy being
// undone (default the one in service) and release the release the rollback
// deploy belongs to, so that its end wakes the release.
func (s *Service) rollback(ctx context.Context, r deploy.RollbackRequest, from, release string) (*deploy.Submission, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if r.Tenant == "" {
		r.Tenant = s.cfg.Server.DefaultTenant
	}
	res := deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}
	if err := s.require(who, res, deploy.PermRollback); err != nil {
		return nil, err
	}
	if release == "" && !s.readable(who, res) {
		// The rollback would show the caller the release in service and the
		// one before it: an environment it may not read has neither, as
		// one where nothing was ever deployed.
		return nil, nothingInService(res)
	}
	if release == "" && r.ID != "" {
		if msg := descriptor.DeployIDProblem(r.ID); msg != "" {
			return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid rollback",
				Fields: []deploy.FieldError{{Path: "id", Message: msg}}}
		}
	}
	// A rollback submitted again (a resumed release step) is the existing one.
	if r.ID != "" {
		d, err := s.store.Get(ctx, r.ID)
		if err == nil {
			return s.rollbackAgain(who, d, res, from, release)
		}
		if deploy.ErrorCode(err) != deploy.ENOTFOUND {
			return nil, err
		}
	}
	current, target, err := s.rollbackPlan(ctx, res, from, r.To)
	if err != nil {
		return nil, err
	}
	d := rollbackDescriptor(target.Descriptor, r.ID, current.ID)
	sub, err := s.submitDescriptor(ctx, &d, deploy.SubmitOptions{Release: release, RollbackOf: current.ID})
	if err != nil {
		return nil, err
	}
	if !sub.Created {
		// Submitted at the same time under the same ID.
		return s.rollbackAgain(who, &sub.Deployment, res, current.ID, release)
	}
	s.audit(ctx, who.Subject, "deployment.rollback", sub.Deployment.ID, map[string]any{
		"tenant": r.Tenant, "application": r.Application, "environment": r.Environment,
		"from": current.ID, "to": target.ID, "version": target.Artifact.Version, "release": release,
	})
	return sub, nil
}

// rollbackPlan is what a rollback of res undoes (from, default the release
// in service) and goes back to (to, default the release before it), both
// of artifact types a rollback can undo.
func (s *Service) rollbackPlan(ctx context.Context, res deploy.Resource, from, to string) (current, target *deploy.Deployment, err error) {
	if current, err = s.currentDeploy(ctx, res, from); err != nil {
		return nil, nil, err
	}
	if target, err = s.rollbackTarget(ctx, res, current, to); err != nil {
		return nil, nil, err
	}
	for _, d := range []*deploy.Deployment{current, target} {
		if err := rollbackable(d.ID, d.Artifact.Type); err != nil {
			return nil, nil, err
		}
	}
	return current, target, nil
}

// MayRollBackTo implements deploy.Service: the checks of RollbackTo but
// for the ID of the new deploy.
func (s *Service) MayRollBackTo(ctx context.Context, r deploy.RollbackRequest) error {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if r.Tenant == "" {
		r.Tenant = s.cfg.Server.DefaultTenant
	}
	res := deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}
	if err := s.require(who, res, deploy.PermRollback); err != nil {
		return err
	}
	_, _, err := s.rollbackPlan(ctx, res, "", r.To)
	return err
}

// rollbackAgain is the answer to a rollback whose ID exists: the existing
// deploy, when it is that rollback. The rollback of a deploy of a release
// has an ID manent derived: only the deploy the release created for it is
// (deploy.Derived). A manual rollback's ID is the caller's: a rollback of
// the same environment they may read.
func (s *Service) rollbackAgain(who deploy.Identity, d *deploy.Deployment, res deploy.Resource, from, release string) (*deploy.Submission, error) {
	if release != "" {
		want := deploy.Derived{ID: d.ID, Resource: res, Release: release, RollbackOf: from}
		if !want.Is(d) {
			return nil, want.Taken()
		}
		return &deploy.Submission{Deployment: *d}, nil
	}
	if !s.readable(who, d.Resource()) || d.Resource() != res || d.RollbackOf == "" || d.Release != "" {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID)
	}
	return &deploy.Submission{Deployment: *d}, nil
}

// MayRollBack is the engine's check before it undoes a deploy of a release
// with its own compensations (no rollback deploy): the rules of rollback.
func (s *Service) MayRollBack(ctx context.Context, res deploy.Resource, id, artifactType string) error {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if err := s.require(who, res, deploy.PermRollback); err != nil {
		return err
	}
	return rollbackable(id, artifactType)
}

// rollbackable refuses the artifact types a rollback cannot undo.
func rollbackable(id, artifactType string) error {
	if slices.Contains(NonRollbackArtifactTypes, artifactType) {
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s: artifact type %s cannot be rolled back", id, artifactType)
	}
	return nil
}

// currentDeploy is the deploy a rollback undoes: from, or the release in
// service of the environment.
func (s *Service) currentDeploy(ctx context.Context, res deploy.Resource, from string) (*deploy.Deployment, error) {
	if from == "" {
		inv, err := s.store.Inventory(ctx, res.Tenant)
		if err != nil {
			return nil, fmt.Errorf("read inventory: %w", err)
		}
		for _, in := range inv {
			if in.Application == res.Application && in.Environment == res.Environment && in.DeploymentID != "" {
				from = in.DeploymentID
			}
		}
		if from == "" {
			return nil, nothingInService(res)
		}
	}
	d, err := s.store.Get(ctx, from)
	if err != nil {
		return nil, err
	}
	return d, nil
}

func nothingInService(res deploy.Resource) error {
	return deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back: %s/%s has no release in service", res.Application, res.Environment)
}

// rollbackTarget is to, which must be a succeeded deploy of the same
// environment, or else the last succeeded deploy of the environment
// created before current.
func (s *Service) rollbackTarget(ctx context.Context, res deploy.Resource, current *deploy.Deployment, to string) (*deploy.Deployment, error) {
	if to != "" {
		d, err := s.store.Get(ctx, to)
		if err != nil && deploy.ErrorCode(err) != deploy.ENOTFOUND {
			return nil, err
		}
		// A deploy the caller may not read is one that does not exist: its
		// application and environment are not theirs to learn.
		if err == nil {
			if ok, _ := s.authz.Allowed(deploy.IdentityFrom(ctx), resourceOf(d), deploy.PermRead); !ok || d.Tenant != res.Tenant {
				d, err = nil, deploy.Errorf(deploy.ENOTFOUND, "not found")
			}
		}
		if err != nil {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "no deploy %q to roll back to", to)
		}
		switch {
		case resourceOf(d) != res:
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s is a deploy of %s/%s, not of %s/%s", to, d.Application, d.Environment, res.Application, res.Environment)
		case d.State != deploy.StateSuccess || d.DryRun:
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s did not succeed (%s): nothing to roll back to", to, d.State)
		case d.ID == current.ID:
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s is the release in service", to)
		}
		return d, nil
	}
	f := deploy.ListFilter{Tenant: res.Tenant, Application: res.Application, Environment: res.Environment,
		States: []deploy.State{deploy.StateSuccess}, CreatedBefore: &current.CreatedAt, First: 100}
	for {
		page, err := s.store.List(ctx, f)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			d := page.Items[i]
			if d.ID == current.ID || d.DryRun || !d.CreatedAt.Before(current.CreatedAt) && !d.CreatedAt.Equal(current.CreatedAt) {
				continue
			}
			return s.store.Get(ctx, d.ID)
		}
		if !page.HasNextPage {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back to: no deploy of %s/%s succeeded before %s",
				res.Application, res.Environment, current.ID)
		}
		f.After = page.EndCursor
	}
}

// rollbackDescriptor is the descriptor of the rollback deploy: the
// target's, made again (rerunDescriptor), under the environment's rollback
// policy: the source's override may no longer be allowed, and a rollback
// that fails should not undo itself.
func rollbackDescriptor(src deploy.Descriptor, id, from string) deploy.Descriptor {
	d := rerunDescriptor(src, id, fmt.Sprintf("rollback of %s to %s (%s)", from, src.ID, src.Artifact.Version))
	d.Rollback = nil
	return d
}
