package service

import (
	"context"
	"slices"

	"manent.dev/manent/deploy"
)

// The live fan-out (graph.Hub) reads a deploy once per change for every
// subscriber of the process and authorizes each subscriber in memory: a
// thousand screens then cost one read, not a thousand. ReadShared and
// LogsShared authorize nobody; what they return reaches a caller only
// through View.

// ReadShared returns a deploy as the store has it, with every dependent,
// for View to cut per caller. ENOTFOUND.
func (s *Service) ReadShared(ctx context.Context, deployID string) (*deploy.Deployment, error) {
	d, err := s.store.Get(ctx, deployID)
	if err != nil {
		return nil, err
	}
	deps, err := s.store.DependentsOf(ctx, deployID)
	if err != nil {
		return nil, err
	}
	d.Dependents = deps
	d.RolloutMayResume = s.mayResume(d)
	return d, nil
}

// LogsShared returns the log lines of a deploy after a sequence number,
// for callers View let read it.
func (s *Service) LogsShared(ctx context.Context, deployID string, after int64, limit int) ([]deploy.LogLine, error) {
	return s.store.Logs(ctx, deployID, after, limit)
}

// View returns what the identity in ctx may see of a deploy read by
// ReadShared, which it leaves untouched (other callers share it): the same
// answer as Get, ENOTFOUND when the caller may not read it,
// EUNAUTHENTICATED without an identity. A caller who may see all of it gets
// shared itself, so that what is made of it (the GraphQL model) can be
// shared too; nobody may change it.
func (s *Service) View(ctx context.Context, shared *deploy.Deployment) (*deploy.Deployment, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if !s.readable(id, resourceOf(shared)) {
		return nil, deploy.DeploymentNotFound(shared.ID)
	}
	return s.viewOf(id, shared), nil
}

// viewOf is d cut to what id may read of the deploys around it (another
// team may wait on this deploy, or this one on another team's): d itself
// when nothing is cut, a copy otherwise. d.Dependents holds every
// dependent.
func (s *Service) viewOf(id deploy.Identity, d *deploy.Deployment) *deploy.Deployment {
	whole := true
	for _, dep := range d.Dependents {
		whole = whole && s.readable(id, dep.Resource)
	}
	for _, dep := range d.Dependencies {
		whole = whole && (dep.State == "" || s.readable(id, dep.Resource))
	}
	if whole {
		return d
	}
	v := *d
	v.Dependents = nil
	for _, dep := range d.Dependents {
		if s.readable(id, dep.Resource) {
			v.Dependents = append(v.Dependents, dep)
		}
	}
	v.Dependencies = slices.Clone(d.Dependencies)
	s.hideDependencies(id, &v)
	return &v
}
