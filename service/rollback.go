package service

import (
	"context"
	"errors"
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
	if release == "" {
		if err := rollbackRequestProblem(res, r); err != nil {
			return nil, err
		}
	}
	if err := s.require(who, res, deploy.PermRollback); err != nil {
		return nil, err
	}
	if release == "" && !s.readable(who, res) {
		// The rollback would show the caller the release in service and the
		// one before it: an environment it may not read has neither, as
		// one where nothing was ever deployed.
		return nil, nothingInService(res)
	}
	// A rollback submitted again (a resumed release step, a request sent
	// again after a lost answer) is the existing one.
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
	d := rollbackDescriptor(target, r.ID, current)
	sub, err := s.submitDescriptor(ctx, &d, deploy.SubmitOptions{Release: release, RollbackOf: current})
	if err != nil {
		return nil, err
	}
	if !sub.Created {
		// Submitted at the same time under the same ID.
		return s.rollbackAgain(who, &sub.Deployment, res, current, release)
	}
	s.audit(ctx, who.Subject, "deployment.rollback", sub.Deployment.ID, map[string]any{
		"tenant": r.Tenant, "application": r.Application, "environment": r.Environment,
		"from": current, "to": target.ID, "version": target.Artifact.Version, "release": release,
	})
	return sub, nil
}

// rollbackRequestProblem is EINVALID when a manual rollback's request
// names no environment, or a deploy with what no deploy ID can be (to, id):
// checked before anything is read, or written into a refusal's audit entry.
func rollbackRequestProblem(res deploy.Resource, r deploy.RollbackRequest) error {
	var fields []deploy.FieldError
	if de := (*deploy.Error)(nil); errors.As(resourceProblem(res, "rollback"), &de) {
		fields = de.Fields
	}
	if r.To != "" {
		if msg := descriptor.DeployRefProblem(r.To); msg != "" {
			fields = append(fields, deploy.FieldError{Path: "to", Message: msg})
		}
	}
	if r.ID != "" {
		if msg := descriptor.DeployIDProblem(r.ID); msg != "" {
			fields = append(fields, deploy.FieldError{Path: "id", Message: msg})
		}
	}
	if fields == nil {
		return nil
	}
	return &deploy.Error{Code: deploy.EINVALID, Message: "invalid rollback", Fields: fields}
}

// rollbackPlan is what a rollback of res undoes (from, default the release
// in service) and goes back to (to, default the release before it), both
// of artifact types a rollback can undo.
func (s *Service) rollbackPlan(ctx context.Context, res deploy.Resource, from, to string) (current string, target *deploy.Deployment, err error) {
	if from != "" {
		return s.memberRollbackPlan(ctx, res, from)
	}
	c := s.rollbackChoice(ctx, res)
	if to == "" {
		if to, err = c.Default(); err != nil {
			return "", nil, err
		}
		if target, err = s.store.Get(ctx, to); err != nil {
			return "", nil, err
		}
		// Read again: the rules of a target hold for the default one too.
		if err = c.To(target); err != nil {
			return "", nil, err
		}
	} else if target, err = s.rollbackTarget(ctx, c, to); err != nil {
		return "", nil, err
	}
	return c.current, target, nil
}

// memberRollbackPlan is the plan of the rollback of from, a deploy of a
// release: back to the release before it, by the rule of the inventory's
// Previous.
func (s *Service) memberRollbackPlan(ctx context.Context, res deploy.Resource, from string) (string, *deploy.Deployment, error) {
	current, err := s.store.Get(ctx, from)
	if err != nil {
		return "", nil, err
	}
	if err := rollbackable(current.ID, current.Artifact.Type); err != nil {
		return "", nil, err
	}
	before, err := s.store.ReleaseBefore(ctx, res, from)
	if err != nil {
		return "", nil, err
	}
	if before == "" {
		return "", nil, nothingBefore(res, from)
	}
	target, err := s.store.Get(ctx, before)
	if err != nil {
		return "", nil, err
	}
	if err := rollbackable(target.ID, target.Artifact.Type); err != nil {
		return "", nil, err
	}
	return current.ID, target, nil
}

// MayRollBackTo implements deploy.Service: the checks of RollbackTo but
// for the ID of the new deploy.
func (s *Service) MayRollBackTo(ctx context.Context, r deploy.RollbackRequest) error {
	if r.Tenant == "" {
		r.Tenant = s.cfg.Server.DefaultTenant
	}
	c := s.rollbackChoice(ctx, deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment})
	if r.To == "" {
		_, err := c.Default()
		return err
	}
	_, err := s.rollbackTarget(ctx, c, r.To)
	return err
}

// Rollbacks implements deploy.Service.
func (s *Service) Rollbacks(ctx context.Context, res deploy.Resource) deploy.RollbackChoice {
	if res.Tenant == "" {
		res.Tenant = s.cfg.Server.DefaultTenant
	}
	return s.rollbackChoice(ctx, res)
}

// rollbackChoice reads what the caller may roll res back to: the checks
// of a manual rollback that do not depend on its target, and the release
// in service and the one before it (one inventory entry).
func (s *Service) rollbackChoice(ctx context.Context, res deploy.Resource) *rollbackChoice {
	c := &rollbackChoice{svc: s, who: deploy.IdentityFrom(ctx), res: res}
	if c.who.Anonymous() {
		c.refused = deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
		return c
	}
	if c.refused = s.require(c.who, res, deploy.PermRollback); c.refused != nil {
		return c
	}
	if !s.readable(c.who, res) {
		c.refused = nothingInService(res)
		return c
	}
	in, err := s.store.InventoryOf(ctx, res)
	switch {
	case err != nil:
		c.refused = fmt.Errorf("read inventory: %w", err)
	case in.DeploymentID == "":
		c.refused = nothingInService(res)
	default:
		c.current, c.previous = in.DeploymentID, in.Previous
		c.refused = rollbackable(in.DeploymentID, in.Artifact.Type)
	}
	return c
}

// rollbackChoice implements deploy.RollbackChoice: the one home of the
// rules of a manual rollback's target.
type rollbackChoice struct {
	svc *Service
	who deploy.Identity
	res deploy.Resource
	// refused is why no rollback of res is possible now (the permission,
	// an environment the caller may not read, nothing in service, a release
	// in service that cannot be rolled back), whatever the target.
	refused error
	// current is the release in service, previous the one before it.
	current  string
	previous *deploy.PreviousRelease
}

var _ deploy.RollbackChoice = (*rollbackChoice)(nil)

func (c *rollbackChoice) Default() (string, error) {
	if c.refused != nil {
		return "", c.refused
	}
	if c.previous == nil {
		return "", nothingBefore(c.res, c.current)
	}
	return c.previous.DeploymentID, rollbackable(c.previous.DeploymentID, c.previous.Artifact.Type)
}

// To is a rollback to d: a succeeded deploy of the same environment (and
// tenant), readable, not the release in service, of a type a rollback can
// undo.
func (c *rollbackChoice) To(d *deploy.Deployment) error {
	if c.refused != nil {
		return c.refused
	}
	// A deploy the caller may not read is one that does not exist: its
	// application and environment are not theirs to learn.
	if d == nil || !c.svc.readable(c.who, resourceOf(d)) || d.Tenant != c.res.Tenant {
		return noTarget(d)
	}
	switch {
	case resourceOf(d) != c.res:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s is a deploy of %s/%s, not of %s/%s", d.ID, d.Application, d.Environment, c.res.Application, c.res.Environment)
	case d.State != deploy.StateSuccess || d.DryRun:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s did not succeed (%s): nothing to roll back to", d.ID, d.State)
	case d.ID == c.current:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s is the release in service", d.ID)
	}
	return rollbackable(d.ID, d.Artifact.Type)
}

// rollbackTarget reads the deploy to and checks it with c.
func (s *Service) rollbackTarget(ctx context.Context, c *rollbackChoice, to string) (*deploy.Deployment, error) {
	if c.refused != nil {
		return nil, c.refused
	}
	d, err := s.store.Get(ctx, to)
	if err != nil && deploy.ErrorCode(err) != deploy.ENOTFOUND {
		return nil, err
	}
	if err != nil {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "no deploy %q to roll back to", to)
	}
	if err := c.To(d); err != nil {
		return nil, err
	}
	return d, nil
}

func noTarget(d *deploy.Deployment) error {
	id := ""
	if d != nil {
		id = d.ID
	}
	return deploy.Errorf(deploy.EUNPROCESSABLE, "no deploy %q to roll back to", id)
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
		return &deploy.Submission{Deployment: *s.viewOf(who, d)}, nil
	}
	if !s.readable(who, d.Resource()) || d.Resource() != res || d.RollbackOf == "" || d.Release != "" {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID)
	}
	return &deploy.Submission{Deployment: *s.viewOf(who, d)}, nil
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

func nothingInService(res deploy.Resource) error {
	return deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back to: %s/%s has no release in service", res.Application, res.Environment)
}

func nothingBefore(res deploy.Resource, current string) error {
	return deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back to: no release of %s/%s succeeded before %s went in service",
		res.Application, res.Environment, current)
}

// rollbackDescriptor is the descriptor of the rollback deploy of from to
// target: the target's, made again (rerunDescriptor), pinned to the digest
// the target downloaded (the bytes that were in service, not whatever the
// source serves under that version now, as a promotion is), under the
// environment's rollback policy: the source's override may no longer be
// allowed, and a rollback that fails should not undo itself.
func rollbackDescriptor(target *deploy.Deployment, id, from string) deploy.Descriptor {
	src := target.Descriptor
	d := rerunDescriptor(src, id, fmt.Sprintf("rollback of %s to %s (%s)", from, src.ID, src.Artifact.Version))
	d.Rollback = nil
	if d.Artifact.SHA256 == "" {
		d.Artifact.SHA256 = target.SHA256
	}
	return d
}
