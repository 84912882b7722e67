package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// SubmitRelease implements deploy.Service: the release is checked as a
// whole, then every deploy with the submission checks of a single deploy
// (its dependencies inside the release excepted), and only then accepted.
func (s *Service) SubmitRelease(ctx context.Context, raw []byte) (*deploy.ReleaseSubmission, error) {
	rd, err := descriptor.ParseRelease(raw)
	if err == nil {
		var sub *deploy.ReleaseSubmission
		if sub, err = s.submitRelease(ctx, rd); err == nil {
			return sub, nil
		}
	}
	target := ""
	if rd != nil {
		target = rd.ID
	}
	s.auditRefused(ctx, "release.submit", target, err, nil)
	return nil, err
}

func (s *Service) submitRelease(ctx context.Context, rd *deploy.ReleaseDescriptor) (*deploy.ReleaseSubmission, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	ds, err := descriptor.ValidateReleaseMembers(rd)
	if err != nil {
		return nil, err
	}
	resolved, err := descriptor.ResolveReleaseMembers(rd, ds)
	if err != nil {
		return nil, err
	}
	for _, d := range resolved {
		if d.Tenant == "" {
			d.Tenant = s.cfg.Server.DefaultTenant
		}
	}
	// The permissions come first, as for a deploy: who may not submit the
	// release learns nothing of one that exists under its ID.
	var denied releaseRefusal
	for i, d := range resolved {
		perm := deploy.PermSubmit
		if d.DryRun {
			perm = deploy.PermDryRun
		}
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if err := s.require(who, res, perm); err != nil {
			if deploy.ErrorCode(err) == deploy.EINTERNAL {
				return nil, err
			}
			denied.add(fmt.Sprintf("deploys[%d]", i), err)
		}
	}
	if err := denied.err(); err != nil {
		return nil, err
	}
	// A resubmit returns the existing release before the other checks,
	// which could refuse it now that its deploys exist.
	if existing, err := s.store.GetRelease(ctx, rd.ID); err == nil {
		if !s.mayReadRelease(who, existing) {
			return nil, deploy.Errorf(deploy.ECONFLICT, "release ID %q is already in use", rd.ID)
		}
		return &deploy.ReleaseSubmission{Release: *existing}, nil
	} else if deploy.ErrorCode(err) != deploy.ENOTFOUND {
		return nil, err
	}
	ids := make([]string, len(resolved))
	for i, d := range resolved {
		ids[i] = d.ID
	}
	var refusal releaseRefusal
	for i, d := range resolved {
		p := fmt.Sprintf("deploys[%d]", i)
		cp := *d
		sub, err := s.submitDescriptor(ctx, &cp, deploy.SubmitOptions{ValidateOnly: true, SkipAfterCheckFor: ids, Release: rd.ID})
		switch {
		case err != nil && deploy.ErrorCode(err) == deploy.EINTERNAL:
			return nil, err
		case err != nil:
			refusal.add(p, err)
		case !sub.Validated:
			refusal.add(p, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID))
		}
		if rd.OnFailure == deploy.OnFailureRollback {
			res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
			if err := s.require(who, res, deploy.PermRollback); err != nil {
				if deploy.ErrorCode(err) == deploy.EINTERNAL {
					return nil, err
				}
				refusal.add(p, &deploy.Error{Code: deploy.ErrorCode(err), Message: "onFailure rollback: " + deploy.ErrorMessage(err)})
			}
		}
	}
	if err := refusal.err(); err != nil {
		return nil, err
	}
	order, err := descriptor.TopoOrder(rd)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]int, len(rd.Deploys))
	rel := deploy.Release{ID: rd.ID, Requester: who.Subject, OnFailure: rd.OnFailure, State: deploy.ReleasePending, Descriptor: *rd}
	for i, m := range rd.Deploys {
		byName[m.Name] = i
		d := resolved[i]
		rel.Deploys = append(rel.Deploys, deploy.ReleaseDeploy{Name: m.Name, DeploymentID: d.ID, Tenant: d.Tenant,
			Application: d.Application, Environment: d.Environment, After: m.After})
	}
	plan := deploy.ReleasePlan{ID: rd.ID, Requester: who.Subject, RequesterGroups: who.Groups, OnFailure: rd.OnFailure}
	for _, name := range order {
		plan.Members = append(plan.Members, deploy.PlannedMember{Name: name, Deploy: *resolved[byName[name]]})
	}
	existing, created, err := s.store.CreateRelease(ctx, rel, func(tx any) error { return s.engine.EnqueueRelease(tx, plan) })
	if err != nil {
		return nil, err
	}
	if !created {
		if !s.mayReadRelease(who, existing) {
			return nil, deploy.Errorf(deploy.ECONFLICT, "release ID %q is already in use", rd.ID)
		}
		return &deploy.ReleaseSubmission{Release: *existing}, nil
	}
	return &deploy.ReleaseSubmission{Release: *existing, Created: true}, nil
}

// releaseRefusal gathers the refusals of every deploy of a release, so the
// author sees them all at once.
type releaseRefusal struct {
	code   deploy.Code
	fields []deploy.FieldError
}

// codeRank orders the codes of a refusal: the answer carries the first.
var codeRank = []deploy.Code{deploy.EUNAUTHENTICATED, deploy.EFORBIDDEN, deploy.EINVALID, deploy.ECONFLICT, deploy.EUNPROCESSABLE}

func (r *releaseRefusal) add(path string, err error) {
	code := deploy.ErrorCode(err)
	if r.code == "" || slices.Index(codeRank, code) < slices.Index(codeRank, r.code) {
		r.code = code
	}
	var de *deploy.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		for _, f := range de.Fields {
			switch f.Path {
			case "":
				f.Path = path + ".descriptor"
			default:
				f.Path = path + ".descriptor." + f.Path
			}
			if de.Message != "" {
				f.Message = de.Message + ": " + f.Message
			}
			r.fields = append(r.fields, f)
		}
		return
	}
	r.fields = append(r.fields, deploy.FieldError{Path: path, Message: deploy.ErrorMessage(err)})
}

func (r *releaseRefusal) err() error {
	if len(r.fields) == 0 {
		return nil
	}
	return &deploy.Error{Code: r.code, Message: "release refused", Fields: r.fields}
}

// mayReadRelease reports whether who holds deployment.read on every deploy.
func (s *Service) mayReadRelease(who deploy.Identity, r *deploy.Release) bool {
	for _, m := range r.Deploys {
		if ok, err := s.authz.Allowed(who, m.Resource(), deploy.PermRead); err != nil || !ok {
			return false
		}
	}
	return true
}

// GetRelease implements deploy.Service: a release one of whose deploys the
// caller may not read is not found.
func (s *Service) GetRelease(ctx context.Context, id string) (*deploy.Release, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	r, err := s.store.GetRelease(ctx, id)
	if err != nil {
		return nil, err
	}
	if !s.mayReadRelease(who, r) {
		return nil, deploy.ReleaseNotFound(id)
	}
	return r, nil
}

// ListReleases implements deploy.Service: only fully readable releases.
func (s *Service) ListReleases(ctx context.Context, f deploy.ReleaseFilter) (deploy.ReleasePage, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.ReleasePage{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	f.Readable = func(r deploy.Resource) bool {
		ok, err := s.authz.Allowed(who, r, deploy.PermRead)
		return err == nil && ok
	}
	return s.store.ListReleases(ctx, f)
}

// CancelRelease implements deploy.Service: the workflow is stopped first,
// so it queues or rolls back nothing more, then the unfinished deploys are
// cancelled (those running stop at their next step).
func (s *Service) CancelRelease(ctx context.Context, id string) (_ *deploy.Release, err error) {
	defer func() { s.auditRefused(ctx, "release.cancel", id, err, nil) }()
	who := deploy.IdentityFrom(ctx)
	if _, err := s.releaseCancellable(ctx, who, id); err != nil {
		return nil, err
	}
	s.engine.StopRelease(id)
	if _, err := s.store.FinishRelease(ctx, id, deploy.ReleaseCancelled, "cancelled by "+who.Subject, who.Subject); err != nil {
		return nil, err
	}
	// Read again: the workflow may have queued deploys until it stopped.
	r, err := s.store.GetRelease(ctx, id)
	if err != nil {
		return nil, err
	}
	// Only deploys of this release: a state comes from a deploy that
	// carries the release (or its rollback), never from another deploy
	// that took the same ID. Dependents first: a deploy that waits is
	// cancelled before what it waits for ends, so every deploy that never
	// started ends CANCELLED, whatever the timing.
	for _, m := range r.DependentsFirst() {
		if m.State.Active() {
			if err := s.cancelMember(ctx, m.DeploymentID, who.Subject); err != nil {
				return nil, err
			}
		}
		if st := deploy.State(m.RollbackState); m.RollbackDeploymentID != "" && st.Valid() && !st.Terminal() {
			if err := s.cancelMember(ctx, m.RollbackDeploymentID, who.Subject); err != nil {
				return nil, err
			}
		}
	}
	return s.store.GetRelease(ctx, id)
}

// cancelMember cancels a deploy of a release the caller may cancel as a
// whole (checked for every deploy): one that ended meanwhile is left alone.
func (s *Service) cancelMember(ctx context.Context, id, actor string) error {
	d, err := s.store.Get(ctx, id)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if d.State.Terminal() {
		return nil
	}
	res, err := s.store.RequestCancel(ctx, id, actor)
	if deploy.ErrorCode(err) == deploy.ECONFLICT {
		return nil
	}
	if err != nil {
		return err
	}
	s.engine.Cancelled(ctx, d, res)
	return nil
}

// releaseCancellable is the check of CancelRelease, shared with
// MayCancelRelease: the release readable in full, deployment.cancel on
// every deploy of it, and not ended.
func (s *Service) releaseCancellable(ctx context.Context, who deploy.Identity, id string) (*deploy.Release, error) {
	r, err := s.GetRelease(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, m := range r.Deploys {
		if err := s.require(who, m.Resource(), deploy.PermCancel); err != nil {
			return nil, err
		}
	}
	if r.State.Terminal() {
		return nil, deploy.Errorf(deploy.ECONFLICT, "release %q already ended: %s", id, r.State)
	}
	return r, nil
}

// MayCancelRelease implements deploy.Service.
func (s *Service) MayCancelRelease(ctx context.Context, id string) error {
	_, err := s.releaseCancellable(ctx, deploy.IdentityFrom(ctx), id)
	return err
}
