package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// Promote implements deploy.Service: the promotion of a deploy that
// succeeded is a new deploy of its artifact and descriptor in another
// environment of its application, submitted as any descriptor is (its own
// permissions, environment configuration, governance: freeze, mandatory
// promotion, approvals), without the source's after and deployment imports.
func (s *Service) Promote(ctx context.Context, r deploy.PromoteRequest) (*deploy.Submission, error) {
	sub, err := s.promote(ctx, r)
	if err != nil {
		s.auditRefused(ctx, "deployment.promote", r.ID, err, map[string]any{"to": r.To, "id": r.NewID})
	}
	return sub, err
}

func (s *Service) promote(ctx context.Context, r deploy.PromoteRequest) (*deploy.Submission, error) {
	who := deploy.IdentityFrom(ctx)
	src, err := s.source(ctx, who, r.ID)
	if err != nil {
		return nil, err
	}
	if err := s.promotable(who, src, r.To); err != nil {
		return nil, err
	}
	desc := promotionDescriptor(src, r.NewID, r.To)
	sub, err := s.rerun(ctx, who, src, &desc, "deployment.promote")
	if err != nil {
		return nil, targetsNotPromoted(err, src, r.To)
	}
	return sub, nil
}

// targetsNotPromoted says why a promotion of src has no target when src's
// descriptor named its own: they are those of its environment, dropped.
func targetsNotPromoted(err error, src *deploy.Deployment, to string) error {
	var de *deploy.Error
	if len(src.Descriptor.Deploy.Targets) == 0 || !errors.As(err, &de) {
		return err
	}
	fields := slices.Clone(de.Fields)
	for i, f := range fields {
		if f.Path == "deploy.targets" && f.Message == config.MsgNoTarget {
			fields[i].Message = fmt.Sprintf("no target: the targets %s names are those of %s, which a promotion never reuses; the environment configuration of %s must give them",
				src.ID, src.Environment, to)
		}
	}
	return &deploy.Error{Code: de.Code, Message: de.Message, Fields: fields}
}

// promotionDescriptor is the descriptor of the promotion of src to env:
// src's made again (rerunDescriptor), without the targets it names (spec
// 001: the targets of another environment must not be reused; they come
// from env's configuration, which a submission without any must name).
func promotionDescriptor(src *deploy.Deployment, id, env string) deploy.Descriptor {
	d := rerunDescriptor(src.Descriptor, id,
		fmt.Sprintf("promotion of %s from %s (%s)", src.ID, src.Environment, src.Artifact.Version))
	d.Environment = env
	d.Deploy.Targets = nil
	return d
}

// Redeploy implements deploy.Service: the descriptor of an ended deploy
// submitted again in its environment, as Promote does.
func (s *Service) Redeploy(ctx context.Context, r deploy.RedeployRequest) (*deploy.Submission, error) {
	who := deploy.IdentityFrom(ctx)
	src, err := s.source(ctx, who, r.ID)
	if err == nil {
		err = s.redeployable(who, src)
	}
	if err == nil {
		desc := rerunDescriptor(src.Descriptor, r.NewID, fmt.Sprintf("redeploy of %s (%s)", src.ID, src.Artifact.Version))
		// A dry run is redeployed as a dry run: the same check again.
		desc.DryRun = src.DryRun
		var sub *deploy.Submission
		if sub, err = s.rerun(ctx, who, src, &desc, "deployment.redeploy"); err == nil {
			return sub, nil
		}
	}
	s.auditRefused(ctx, "deployment.redeploy", r.ID, err, map[string]any{"id": r.NewID})
	return nil, err
}

// rerun submits desc, made from src, and audits it as action: a deploy of
// that ID made from src before is returned as it is (the same request
// again), any other is a conflict.
func (s *Service) rerun(ctx context.Context, who deploy.Identity, src *deploy.Deployment, desc *deploy.Descriptor, action string) (*deploy.Submission, error) {
	if desc.ID != "" {
		if msg := descriptor.DeployIDProblem(desc.ID); msg != "" {
			return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid " + action,
				Fields: []deploy.FieldError{{Path: "id", Message: msg}}}
		}
		if d, err := s.store.Get(ctx, desc.ID); err == nil {
			return s.rerunAgain(who, d, src, desc)
		} else if deploy.ErrorCode(err) != deploy.ENOTFOUND {
			return nil, err
		}
	}
	// The same bytes, not whatever the source serves under that version now:
	// the digest src downloaded pins the artifact, unless it pinned one.
	if desc.Artifact.SHA256 == "" {
		desc.Artifact.SHA256 = src.SHA256
	}
	sub, err := s.submitDescriptor(ctx, desc, deploy.SubmitOptions{PromotedFrom: src.ID})
	if err != nil {
		return nil, err
	}
	if !sub.Created {
		return s.rerunAgain(who, &sub.Deployment, src, desc)
	}
	s.audit(ctx, who.Subject, action, sub.Deployment.ID, map[string]any{
		"tenant": src.Tenant, "application": src.Application, "environment": desc.Environment,
		"from": src.ID, "from_environment": src.Environment, "version": src.Artifact.Version,
		"state": sub.Deployment.State,
	})
	return sub, nil
}

// rerunAgain is the answer to a promotion or redeploy whose new ID exists:
// the existing deploy when it was made from src in the same environment
// and the caller may read it, a conflict otherwise (which tells nothing of
// a deploy the caller may not read).
func (s *Service) rerunAgain(who deploy.Identity, d, src *deploy.Deployment, desc *deploy.Descriptor) (*deploy.Submission, error) {
	if !s.readable(who, d.Resource()) || d.PromotedFrom != src.ID || d.Environment != desc.Environment || d.Release != "" {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", d.ID)
	}
	return &deploy.Submission{Deployment: *s.viewOf(who, d)}, nil
}

// promotable is the check of a promotion of src (read for who) before
// its submission, shared by Promote and MayPromote: src readable and
// succeeded, to another valid environment, deployment.submit there.
func (s *Service) promotable(who deploy.Identity, src *deploy.Deployment, to string) error {
	if err := s.sourceReadable(who, src); err != nil {
		return err
	}
	if msg := descriptor.NameProblem(to); msg != "" {
		return &deploy.Error{Code: deploy.EINVALID, Message: "invalid promotion",
			Fields: []deploy.FieldError{{Path: "to", Message: msg}}}
	}
	switch {
	case src.DryRun:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s is a dry run: only a deploy that succeeded can be promoted", src.ID)
	case src.State != deploy.StateSuccess:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s did not succeed (%s): only a deploy that succeeded can be promoted", src.ID, src.State)
	case to == src.Environment:
		return deploy.Errorf(deploy.EUNPROCESSABLE, "%s already ran in %s: promote it to another environment, or redeploy it", src.ID, to)
	}
	res := deploy.Resource{Tenant: src.Tenant, Application: src.Application, Environment: to}
	return s.require(who, res, deploy.PermSubmit)
}

// redeployable is the check of a redeploy of src (read for who), shared by
// Redeploy and MayRedeploy: src readable and ended, and the permission its
// submission needs (deployment.dry-run for a dry run).
func (s *Service) redeployable(who deploy.Identity, src *deploy.Deployment) error {
	if err := s.sourceReadable(who, src); err != nil {
		return err
	}
	if !src.State.Terminal() {
		return deploy.Errorf(deploy.ECONFLICT, "%s has not ended (%s): nothing to redeploy yet", src.ID, src.State)
	}
	perm := deploy.PermSubmit
	if src.DryRun {
		perm = deploy.PermDryRun
	}
	return s.require(who, src.Resource(), perm)
}

// source reads the deploy a promotion or a redeploy is made from; one the
// caller may not read is not found.
func (s *Service) source(ctx context.Context, who deploy.Identity, id string) (*deploy.Deployment, error) {
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	d, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.sourceReadable(who, d); err != nil {
		return nil, err
	}
	return d, nil
}

// sourceReadable is nil when who may read d: the affordances are asked of
// a deploy the caller read, and decide on it without reading it again.
func (s *Service) sourceReadable(who deploy.Identity, d *deploy.Deployment) error {
	if who.Anonymous() {
		return deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if d == nil || !s.readable(who, d.Resource()) {
		id := ""
		if d != nil {
			id = d.ID
		}
		return deploy.DeploymentNotFound(id)
	}
	return nil
}

// MayPromote implements deploy.Service.
func (s *Service) MayPromote(ctx context.Context, d *deploy.Deployment, env string) error {
	return s.promotable(deploy.IdentityFrom(ctx), d, env)
}

// MayRedeploy implements deploy.Service.
func (s *Service) MayRedeploy(ctx context.Context, d *deploy.Deployment) error {
	return s.redeployable(deploy.IdentityFrom(ctx), d)
}

// PromotionTargets implements deploy.Service: the next environments of
// the promotion order (the governance's promotion rules) that the caller
// may promote src to now; none under a governance that cannot tell its
// order (a Rego policy).
func (s *Service) PromotionTargets(ctx context.Context, src *deploy.Deployment) ([]string, error) {
	who := deploy.IdentityFrom(ctx)
	if err := s.sourceReadable(who, src); err != nil {
		return nil, err
	}
	order, ok := s.gov.(deploy.PromotionOrder)
	if !ok || src.State != deploy.StateSuccess || src.DryRun {
		return []string{}, nil
	}
	next := order.NextEnvironments(deploy.GovernanceInput{Identity: who, Tenant: src.Tenant,
		Application: src.Application, Environment: src.Environment, Labels: src.Descriptor.Labels, Artifact: src.Artifact})
	out := []string{}
	for _, env := range next {
		res := deploy.Resource{Tenant: src.Tenant, Application: src.Application, Environment: env}
		if s.readable(who, res) && s.Can(ctx, res, deploy.PermSubmit) {
			out = append(out, env)
		}
	}
	return out, nil
}

// rerunDescriptor is the descriptor of a deploy made again from src (a
// promotion, a redeploy, a manual rollback): src's, without what belonged
// to its own run: its dependencies (after) and the deployment imports
// read through them (the targets of another run must not be reused),
// its schedule, its freeze override, its dry run, and its remediation
// flag (src's claim to fix an earlier deploy: a promotion or a redeploy of
// it fixes nothing by itself, and a rollback counts as rework anyway).
func rerunDescriptor(src deploy.Descriptor, id, description string) deploy.Descriptor {
	d := src
	d.ID = id
	d.Description = description
	d.After, d.AfterTimeout, d.Schedule, d.FreezeOverride, d.DryRun = nil, 0, nil, nil, false
	d.Remediation = false
	dropped := map[string]bool{}
	if len(src.Imports) > 0 {
		d.Imports = map[string]deploy.Import{}
		for name, imp := range src.Imports {
			if imp.Deployment != "" {
				dropped[name] = true
				continue
			}
			d.Imports[name] = imp
		}
	}
	d.Deploy.TargetsFrom = nil
	for _, ref := range src.Deploy.TargetsFrom {
		if !dropped[ref.Import] {
			d.Deploy.TargetsFrom = append(d.Deploy.TargetsFrom, ref)
		}
	}
	if len(src.Deploy.ParamsFrom) > 0 {
		d.Deploy.ParamsFrom = map[string]deploy.ImportRef{}
		for k, ref := range src.Deploy.ParamsFrom {
			if !dropped[ref.Import] {
				d.Deploy.ParamsFrom[k] = ref
			}
		}
	}
	return d
}
