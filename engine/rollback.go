package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// NonRollbackArtifactTypes are the artifact types a manual rollback refuses:
// redeploying the previous version of a database migration does not undo
// it. A release with onFailure: rollback stops its sequence of rollbacks there.
var NonRollbackArtifactTypes = []string{"migration"}

// RollbackTo implements deploy.Service: a manual rollback redeploys the
// previous release in service of an environment (or r.To) through the normal
// pipeline, as a new deploy with that deploy's descriptor, without its
// dependencies (after) and deployment imports.
func (e *Engine) RollbackTo(ctx context.Context, r deploy.RollbackRequest) (*deploy.Submission, error) {
	return e.rollback(ctx, r, "", "")
}

// rollback is RollbackTo for a release too: from is the deploy being
// undone (default the one in service) and release the release the rollback
// deploy belongs to, so that its end wakes the release.
func (e *Engine) rollback(ctx context.Context, r deploy.RollbackRequest, from, release string) (*deploy.Submission, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if r.Tenant == "" {
		r.Tenant = e.cfg.Server.DefaultTenant
	}
	res := deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}
	if err := e.require(who, res, deploy.PermRollback); err != nil {
		return nil, err
	}
	// A rollback submitted again (a resumed release step) is the existing one.
	if r.ID != "" {
		if d, err := e.store.Get(ctx, r.ID); err == nil {
			if ok, _ := e.authz.Allowed(who, resourceOf(d), deploy.PermRead); !ok {
				return nil, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q is already in use", r.ID)
			}
			return &deploy.Submission{Deployment: *d}, nil
		}
	}
	current, err := e.currentDeploy(ctx, res, from)
	if err != nil {
		return nil, err
	}
	target, err := e.rollbackTarget(ctx, res, current, r.To)
	if err != nil {
		return nil, err
	}
	for _, d := range []*deploy.Deployment{current, target} {
		if slices.Contains(NonRollbackArtifactTypes, d.Artifact.Type) {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%s: artifact type %s cannot be rolled back", d.ID, d.Artifact.Type)
		}
	}
	d := rollbackDescriptor(target.Descriptor, r.ID, current.ID)
	sub, err := e.submitDescriptor(ctx, &d, deploy.SubmitOptions{Release: release})
	if err != nil {
		return nil, err
	}
	if sub.Created {
		e.audit(ctx, who.Subject, "deployment.rollback", sub.Deployment.ID, map[string]any{
			"tenant": r.Tenant, "application": r.Application, "environment": r.Environment,
			"from": current.ID, "to": target.ID, "version": target.Artifact.Version, "release": release,
		})
	}
	return sub, nil
}

// currentDeploy is the deploy a rollback undoes: from, or the release in
// service of the environment.
func (e *Engine) currentDeploy(ctx context.Context, res deploy.Resource, from string) (*deploy.Deployment, error) {
	if from == "" {
		inv, err := e.store.Inventory(ctx, res.Tenant)
		if err != nil {
			return nil, fmt.Errorf("read inventory: %w", err)
		}
		for _, in := range inv {
			if in.Application == res.Application && in.Environment == res.Environment {
				from = in.DeploymentID
			}
		}
		if from == "" {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back: %s/%s has no release in service", res.Application, res.Environment)
		}
	}
	d, err := e.store.Get(ctx, from)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// rollbackTarget is to, which must be a succeeded deploy of the same
// environment, or else the last succeeded deploy of the environment
// created before current.
func (e *Engine) rollbackTarget(ctx context.Context, res deploy.Resource, current *deploy.Deployment, to string) (*deploy.Deployment, error) {
	if to != "" {
		d, err := e.store.Get(ctx, to)
		if deploy.ErrorCode(err) == deploy.ENOTFOUND {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "no deploy %q to roll back to", to)
		}
		if err != nil {
			return nil, err
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
		page, err := e.store.List(ctx, f)
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			d := page.Items[i]
			if d.ID == current.ID || d.DryRun || !d.CreatedAt.Before(current.CreatedAt) && !d.CreatedAt.Equal(current.CreatedAt) {
				continue
			}
			return e.store.Get(ctx, d.ID)
		}
		if !page.HasNextPage {
			return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "nothing to roll back to: no deploy of %s/%s succeeded before %s",
				res.Application, res.Environment, current.ID)
		}
		f.After = page.EndCursor
	}
}

// rollbackDescriptor is the descriptor of the rollback deploy: the
// target's, without what belongs to its own run (dependencies, deployment
// imports, schedule, freeze override).
func rollbackDescriptor(src deploy.Descriptor, id, from string) deploy.Descriptor {
	d := src
	d.ID = id
	d.Description = fmt.Sprintf("rollback of %s to %s (%s)", from, src.ID, src.Artifact.Version)
	d.After, d.AfterTimeout, d.Schedule, d.FreezeOverride, d.DryRun = nil, 0, nil, nil, false
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

// rollbackStarted is what one rollback step of a release did.
type rollbackStarted struct {
	ID      string `json:"id,omitempty"`
	Refused string `json:"refused,omitempty"`
}

// rollbackRelease rolls back the deploys of the release that succeeded,
// from the most dependent to the least (reverse topological order), one at
// a time, stopping at the first that is refused or does not succeed; the
// rest are SKIPPED.
func (e *Engine) rollbackRelease(ctx dbos.Context, in ReleaseInput, st releaseReading) error {
	var todo []ReleaseMemberInput
	for i := len(in.Members) - 1; i >= 0; i-- {
		if st.States[in.Members[i].Name] == deploy.StateSuccess {
			todo = append(todo, in.Members[i])
		}
	}
	for i, m := range todo {
		started, err := dbos.RunAsStep(ctx, func(c context.Context) (rollbackStarted, error) {
			return e.startMemberRollback(c, in, m)
		}, dbos.WithStepName("manent.release.rollback:"+m.Name), dbos.WithStepMaxRetries(10))
		if err != nil {
			return err
		}
		ok := started.Refused == ""
		if ok {
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
		_, err = dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
			for _, r := range rest {
				if err := e.store.SetReleaseRollback(c, in.ID, r.Name, "", deploy.RollbackSkipped,
					"not rolled back: the rollback of "+m.Name+" did not succeed"); err != nil {
					return false, err
				}
			}
			return true, nil
		}, dbos.WithStepName("manent.release.rollback.skip"), dbos.WithStepMaxRetries(10))
		return err
	}
	return nil
}

// startMemberRollback submits the manual rollback <release>.rollback.<name>
// with the requester's identity, or records why it was refused.
func (e *Engine) startMemberRollback(ctx context.Context, in ReleaseInput, m ReleaseMemberInput) (rollbackStarted, error) {
	d := m.Descriptor
	cctx := deploy.WithIdentity(ctx, in.identity())
	id := in.ID + ".rollback." + m.Name
	sub, err := e.rollback(cctx, deploy.RollbackRequest{Tenant: d.Tenant, Application: d.Application,
		Environment: d.Environment, ID: id}, d.ID, in.ID)
	if err != nil {
		if deploy.ErrorCode(err) == deploy.EINTERNAL {
			return rollbackStarted{}, err
		}
		msg := deploy.ErrorMessage(err)
		if err := e.store.SetReleaseRollback(ctx, in.ID, m.Name, "", deploy.RollbackRefused, msg); err != nil {
			return rollbackStarted{}, err
		}
		return rollbackStarted{Refused: msg}, nil
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
		st, err := dbos.RunAsStep(ctx, func(c context.Context) (deploy.State, error) {
			states, err := e.store.DependencyStates(c, []string{id})
			if err != nil {
				return "", err
			}
			s, ok := states[id]
			if !ok {
				return deploy.StateCancelled, nil
			}
			return s, nil
		}, dbos.WithStepName("manent.release.rollback.evaluate"), dbos.WithStepMaxRetries(10))
		if err != nil {
			return "", err
		}
		if st.Terminal() {
			return st, nil
		}
		if _, err := sleepOrWake(ctx, releaseTopic, poll); err != nil {
			return "", fmt.Errorf("wait for rollback %s: %w", id, err)
		}
		poll = min(2*poll, deploy.MaxChainsPollBackoff)
	}
}
