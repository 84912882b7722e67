package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// Submit runs the submission checks in the spec's order (descriptor,
// identity and permissions, sources, environment configuration,
// governance, plan) and, unless opts.ValidateOnly, stores the deploy and
// enqueues its workflow in one transaction.
func (s *Service) Submit(ctx context.Context, raw []byte, opts deploy.SubmitOptions) (*deploy.Submission, error) {
	d, err := descriptor.Parse(raw)
	if err == nil {
		var sub *deploy.Submission
		if sub, err = s.submitDescriptor(ctx, d, opts); err == nil {
			return sub, nil
		}
	}
	// A validation asks and changes nothing: only a real submission's
	// refusal is an attempt worth keeping.
	if !opts.ValidateOnly {
		details := map[string]any{}
		target := ""
		if d != nil {
			target = d.ID
			details["tenant"], details["application"], details["environment"] = d.Tenant, d.Application, d.Environment
			details["version"], details["dryRun"] = d.Artifact.Version, d.DryRun
		}
		s.auditRefused(ctx, "deployment.submit", target, err, details)
	}
	return nil, err
}

// submitDescriptor is Submit after parsing: releases and rollbacks submit
// descriptors they built (release.go, rollback.go).
func (s *Service) submitDescriptor(ctx context.Context, d *deploy.Descriptor, opts deploy.SubmitOptions) (*deploy.Submission, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if d.Tenant == "" {
		d.Tenant = s.cfg.Server.DefaultTenant
	}
	res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
	perm := deploy.PermSubmit
	switch {
	case d.DryRun:
		perm = deploy.PermDryRun
	case opts.RollbackOf != "":
		// A rollback needs deployment.rollback, not deployment.submit:
		// rollback checked it, and it is what lets an on-call undo a
		// release it may not ship.
		perm = deploy.PermRollback
	}
	if err := s.require(id, res, perm); err != nil {
		return nil, err
	}
	if err := s.cfg.CheckSource(d.Artifact.Source); err != nil {
		return nil, err
	}
	if errs := s.cfg.CheckCallbacks(d); errs != nil {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "callbacks refused by manent.yml's callbacks policy", Fields: errs}
	}
	eff, err := s.effectiveAtSubmit(ctx, id, d, opts.SkipAfterCheckFor)
	if err != nil {
		return nil, err
	}
	decision, err := s.decide(ctx, id, d, eff)
	if err != nil {
		return nil, err
	}
	plan, err := s.cfg.Plan(d)
	if err != nil {
		return nil, err
	}
	if err := config.ResolveCustomSteps(plan, d, &eff); err != nil {
		return nil, err
	}
	if err := s.specs.Seal(&plan); err != nil {
		return nil, fmt.Errorf("seal the plan: %w", err)
	}
	if plan.Rollout, err = planRollout(eff); err != nil {
		return nil, err
	}
	if d.Schedule != nil && d.Schedule.Cron != "" {
		if opts.ValidateOnly {
			dep := deploy.Deployment{ID: d.ID, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
				State: deploy.StateScheduled, Requester: id.Subject, Artifact: d.Artifact, Descriptor: *d,
				Effective: eff, Plan: plan, Decision: decision}
			return &deploy.Submission{Deployment: dep, Validated: true}, nil
		}
		return s.submitSchedule(ctx, id, d, eff, plan, decision)
	}
	if d.ID == "" {
		d.ID = newID(d)
	}
	now := time.Now().UTC()
	dep := deploy.Deployment{
		ID: d.ID, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: deploy.StateEnqueued, Requester: id.Subject, CreatedAt: now, UpdatedAt: now,
		DryRun: d.DryRun, Artifact: d.Artifact, Descriptor: *d, Effective: eff, Plan: plan,
		Decision: decision, Release: opts.Release, RollbackOf: opts.RollbackOf, PromotedFrom: opts.PromotedFrom,
	}
	// A resubmit returns the existing deploy before the dependency checks,
	// which could refuse it now that its dependencies have ended.
	if existing, err := s.store.Get(ctx, d.ID); err == nil {
		return s.resubmitted(id, &dep, existing)
	}
	wait, err := s.planWait(ctx, id, d, decision, now, opts.SkipAfterCheckFor)
	if err != nil {
		return nil, err
	}
	if wait != nil {
		dep.State = wait.initial
		dep.ApprovalExpiresAt = wait.approvalExpires
		if len(d.After) > 0 {
			dep.AfterExpiresAt = &wait.plan.AfterExpiresAt
		}
	}
	if opts.ValidateOnly {
		return &deploy.Submission{Deployment: dep, Validated: true}, nil
	}
	dep.RequesterGroups = id.Groups
	job := dep.Job()
	s.specs.SignPlan(&job, "")
	// The row holds the plan as signed: a wait lets the deploy go with
	// the job its row holds.
	dep.Plan = job.Plan
	stored, created, err := s.store.CreateDeployment(ctx, dep, func(tx any) error {
		if wait != nil {
			return s.engine.EnqueueWait(tx, job, wait.plan)
		}
		return s.engine.EnqueueDeploy(tx, job)
	})
	if err != nil {
		return nil, fmt.Errorf("store deploy: %w", err)
	}
	if !created {
		return s.resubmitted(id, &dep, stored)
	}
	// The store answers the deploy as stored: read again, it would be two
	// more round trips to say what was just written. The answer shows what
	// Get would show the caller of the deploys around it.
	return &deploy.Submission{Deployment: *s.viewOf(id, stored), Created: true}, nil
}

// resubmitted is the answer to a submission of dep whose ID exists: a
// submit is idempotent by ID, but never a way to learn about someone
// else's deploy. A deploy of a release is the existing one only when the
// release created it (deploy.Derived): its ID may be one manent derived.
func (s *Service) resubmitted(who deploy.Identity, dep, existing *deploy.Deployment) (*deploy.Submission, error) {
	if dep.Release != "" {
		want := deploy.Derived{ID: dep.ID, Resource: dep.Resource(), Release: dep.Release, RollbackOf: dep.RollbackOf}
		if !want.Is(existing) {
			return nil, want.Taken()
		}
	} else if !s.readable(who, existing.Resource()) {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", dep.ID)
	}
	return &deploy.Submission{Deployment: *s.viewOf(who, existing)}, nil
}

// effective reads the environment configuration, with its imports resolved
// for who, and merges the descriptor into it under the descriptor policy; a
// missing configuration, an import that cannot be resolved, a conflict, a
// forbidden parameter or no target is EUNPROCESSABLE. sources records the
// releases the environment configuration imported (envconfig.import.<name>).
func (s *Service) effective(ctx context.Context, who deploy.Identity, d *deploy.Descriptor) (eff deploy.Effective, sources map[string]string, err error) {
	env, sources, err := s.envConfig(ctx, who, d)
	if err != nil {
		return deploy.Effective{}, nil, err
	}
	eff, err = config.Merge(d, env, s.cfg.Pipeline.DescriptorPolicy, s.cfg.Server.DefaultTenant)
	if err != nil {
		return deploy.Effective{}, nil, err
	}
	p, ok := s.plugins[eff.Plugin]
	if !ok {
		return deploy.Effective{}, nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "environment configuration refused",
			Fields: []deploy.FieldError{{Path: "plugin", Message: fmt.Sprintf("unknown plugin %q", eff.Plugin)}}}
	}
	if errs := p.ValidateTargets(eff.Targets, eff.Params); len(errs) > 0 {
		return deploy.Effective{}, nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "targets refused by plugin " + p.Name(), Fields: errs}
	}
	// A target the rollout rejects fails the deploy here, at submission
	// and in the config step, before any target is touched. The plan it
	// refuses goes with the error, for the config step's record.
	if rp, err := planRollout(eff); err != nil {
		return deploy.Effective{RolloutPlan: rp}, nil, err
	}
	return eff, sources, nil
}

// decide runs governance: freeze windows, mandatory promotion, approvals
// and change management. Dry-runs are not subject to it.
func (s *Service) decide(ctx context.Context, id deploy.Identity, d *deploy.Descriptor, _ deploy.Effective) (deploy.Decision, error) {
	if s.gov == nil || d.DryRun {
		return deploy.Decision{}, nil
	}
	in, err := s.governanceInput(ctx, id, d, time.Now().UTC())
	if err != nil {
		return deploy.Decision{}, err
	}
	// An override counts only from someone who holds deployment.freeze-override;
	// from anyone else it is ignored, and a deploy in a freeze is refused (422).
	stripped := false
	if in.FreezeOverride != "" {
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if ok, err := s.authz.Allowed(id, res, deploy.PermFreezeOverride); err != nil {
			return deploy.Decision{}, fmt.Errorf("authorize: %w", err)
		} else if !ok {
			in.FreezeOverride, stripped = "", true
		}
	}
	dec, err := s.gov.Decide(ctx, in)
	if err != nil {
		var de *deploy.Error
		if stripped && errors.As(err, &de) {
			de.Fields = append(de.Fields, deploy.FieldError{Path: "freezeOverride",
				Message: fmt.Sprintf("ignored: %s does not hold %s", id.Subject, deploy.PermFreezeOverride)})
		}
		return deploy.Decision{}, err
	}
	if dec.Change != nil && s.changes[dec.Change.Connector] == nil {
		return deploy.Decision{}, deploy.Errorf(deploy.EUNPROCESSABLE,
			"rule %s requires a change ticket through connector %q, which is not configured", dec.Rule, dec.Change.Connector)
	}
	return dec, nil
}

func (s *Service) governanceInput(ctx context.Context, id deploy.Identity, d *deploy.Descriptor, now time.Time) (deploy.GovernanceInput, error) {
	// Governance sees the releases in service: an environment that only
	// has a failure has none.
	inv, err := s.store.InService(ctx, d.Tenant, d.Application, "")
	if err != nil {
		return deploy.GovernanceInput{}, fmt.Errorf("read inventory: %w", err)
	}
	in := deploy.GovernanceInput{
		Identity: id, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		Labels: d.Labels, Artifact: d.Artifact, Time: now, Inventory: inv,
	}
	if d.FreezeOverride != nil {
		in.FreezeOverride = d.FreezeOverride.Reason
	}
	return in, nil
}

// Cancel cancels a deploy: at once when it has not started, at the start of
// its next step when it runs.
func (s *Service) Cancel(ctx context.Context, deployID string) (_ *deploy.Deployment, err error) {
	defer func() { s.auditRefused(ctx, "deployment.cancel", deployID, err, nil) }()
	id := deploy.IdentityFrom(ctx)
	d, err := s.Get(ctx, deployID)
	if err != nil {
		return nil, err
	}
	if err := s.require(id, resourceOf(d), deploy.PermCancel); err != nil {
		return nil, err
	}
	res, err := s.store.RequestCancel(ctx, deployID, id.Subject)
	if err != nil {
		return nil, err
	}
	s.engine.Cancelled(ctx, d, res)
	return s.store.Get(ctx, deployID)
}

// Get returns a readable deploy; one the caller may not read is not found.
func (s *Service) Get(ctx context.Context, deployID string) (*deploy.Deployment, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	d, err := s.store.Get(ctx, deployID)
	if err != nil {
		return nil, err
	}
	if !s.readable(id, resourceOf(d)) {
		return nil, deploy.DeploymentNotFound(deployID)
	}
	deps, err := s.store.DependentsOf(ctx, deployID)
	if err != nil {
		return nil, err
	}
	d.Dependents = deps
	d = s.viewOf(id, d)
	d.RolloutMayResume = s.mayResume(d)
	return d, nil
}

// holders is what an authorizer that can list its policy tells.
type holders interface {
	Holders(res deploy.Resource, perm string) ([]string, error)
}

// mayResume lists who may resume or abort the rollout of d (the subjects
// holding deploy.PermRolloutControl) while it may still pause; nil
// otherwise. The status shows them while it is paused: telling that here
// would build the rollout's view twice per read.
func (s *Service) mayResume(d *deploy.Deployment) []string {
	h, ok := s.authz.(holders)
	if !ok || d.State.Terminal() || !d.HasRollout() {
		return nil
	}
	subs, err := h.Holders(resourceOf(d), deploy.PermRolloutControl)
	if err != nil {
		s.log.Warn("list who may resume a rollout", "deployment", d.ID, "error", err)
		return nil
	}
	return subs
}

// hideDependencies blanks the states of the dependencies of d that id may
// not read: the answer then looks the same as for a deploy removed by
// retention.
func (s *Service) hideDependencies(id deploy.Identity, d *deploy.Deployment) {
	for i, dep := range d.Dependencies {
		if !s.readable(id, dep.Resource) {
			d.Dependencies[i].State = ""
		}
	}
}

// List returns the deploys the caller may read.
func (s *Service) List(ctx context.Context, f deploy.ListFilter) (deploy.Page, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return deploy.Page{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	f.Readable = func(r deploy.Resource) bool {
		ok, err := s.authz.Allowed(id, r, deploy.PermRead)
		return err == nil && ok
	}
	page, err := s.store.List(ctx, f)
	if err != nil {
		return deploy.Page{}, err
	}
	for i := range page.Items {
		s.hideDependencies(id, &page.Items[i])
	}
	return page, nil
}

// Logs returns the log of a readable deploy.
func (s *Service) Logs(ctx context.Context, deployID string, after int64, limit int) ([]deploy.LogLine, error) {
	if _, err := s.Get(ctx, deployID); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > deploy.MaxLogLines {
		limit = deploy.MaxLogLines
	}
	return s.store.Logs(ctx, deployID, after, limit)
}

// Inventory returns the readable releases in service.
func (s *Service) Inventory(ctx context.Context) ([]deploy.InventoryEntry, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	all, err := s.store.Inventory(ctx, "")
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, in := range all {
		res := deploy.Resource{Tenant: in.Tenant, Application: in.Application, Environment: in.Environment}
		if ok, err := s.authz.Allowed(id, res, deploy.PermRead); err == nil && ok {
			out = append(out, in)
		}
	}
	return out, nil
}

// Environment implements deploy.Service.
func (s *Service) Environment(ctx context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if res.Tenant == "" {
		res.Tenant = s.cfg.Server.DefaultTenant
	}
	if err := resourceProblem(res, "environment"); err != nil {
		return nil, err
	}
	if !s.readable(id, res) {
		return nil, deploy.Errorf(deploy.ENOTFOUND, "environment %s/%s not found", res.Application, res.Environment)
	}
	in, err := s.store.InventoryOf(ctx, res)
	if err != nil {
		return nil, fmt.Errorf("read inventory: %w", err)
	}
	return in, nil
}

// Can reports whether the caller holds perm on res; an empty tenant is the
// default one.
func (s *Service) Can(ctx context.Context, res deploy.Resource, perm string) bool {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return false
	}
	if res.Tenant == "" {
		res.Tenant = s.cfg.Server.DefaultTenant
	}
	ok, err := s.authz.Allowed(id, res, perm)
	return err == nil && ok
}

// Holders implements deploy.Service.
func (s *Service) Holders(ctx context.Context, res deploy.Resource, perm string) []string {
	h, ok := s.authz.(holders)
	if !ok || !s.readable(deploy.IdentityFrom(ctx), res) {
		return []string{}
	}
	subs, err := h.Holders(res, perm)
	if err != nil {
		s.log.Warn("list the holders of a permission", "permission", perm, "error", err)
		return []string{}
	}
	return subs
}

// HasRole implements deploy.Service.
func (s *Service) HasRole(ctx context.Context, tenant, role string) bool {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return false
	}
	ok, err := s.authz.HasRole(id, tenant, role)
	return err == nil && ok
}

// newID names a deploy that the descriptor did not name.
func newID(d *deploy.Descriptor) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s", d.Application, d.Environment, hex.EncodeToString(b[:]))
}
