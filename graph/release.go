package graph

import (
	"context"
	"log/slog"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func toModelRelease(r *deploy.Release) *model.Release {
	out := &model.Release{
		ID: r.ID, State: model.ReleaseState(r.State), OnFailure: r.OnFailure, Requester: r.Requester,
		CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, Error: optionalString(r.Error),
		Deploys: make([]model.ReleaseDeploy, len(r.Deploys)), Edges: []model.ReleaseEdge{},
	}
	for i, m := range r.Deploys {
		d := model.ReleaseDeploy{
			Name: m.Name, DeploymentID: m.DeploymentID, Error: optionalString(m.Error), After: m.After,
			RollbackState: optionalString(m.RollbackState), RollbackDeploymentID: optionalString(m.RollbackDeploymentID),
			RollbackError: optionalString(m.RollbackError), Application: m.Application, Environment: m.Environment,
		}
		if d.After == nil {
			d.After = []string{}
		}
		if m.State != "" {
			st := model.DeploymentState(m.State)
			d.State = &st
		}
		out.Deploys[i] = d
		for _, from := range m.After {
			out.Edges = append(out.Edges, model.ReleaseEdge{From: from, To: m.Name})
		}
	}
	return out
}

// memberDeployment is the deploy of a member of a release, read once per
// answer for the caller; nil when there is none yet, when the caller may not
// read it, or when the deploy of that ID is not this member: one that no
// release created (the release refused the ID as in use; a deploy ID
// belongs to one release).
func (r *Resolver) memberDeployment(ctx context.Context, m *model.ReleaseDeploy) (*deploy.Deployment, error) {
	d, err := r.deploymentOf(ctx, m.DeploymentID)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if d.Release == "" {
		return nil, nil
	}
	return d, nil
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// releaseTail bounds how long a release that ended is still followed for
// the deploys of it that have not: a cancelled release ends before the
// deploys it cancels, and a running one stops only at the start of its
// next step.
const releaseTail = 30 * time.Minute

// followRelease sends the release now, then again whenever it, one of its
// deploys or one of their rollbacks changes, read with the caller's
// permissions; the channel closes once the release and every deploy of it
// (and every rollback deploy) have ended, or releaseTail after the release
// ended.
func followRelease(ctx context.Context, svc deploy.Service, events deploy.Events, log *slog.Logger, id string) <-chan *model.Release {
	out := make(chan *model.Release, 1)
	go func() {
		defer close(out)
		// Every event: a release's deploys have IDs of their own.
		ch := events.Subscribe(ctx, "")
		ids, ended := map[string]bool{id: true}, false
		// tail runs once the release has ended while deploys of it have not.
		var tail *time.Timer
		defer func() {
			if tail != nil {
				tail.Stop()
			}
		}()
		// refresh sends the release as it is now and learns the IDs of
		// its deploys and rollbacks, which appear as the release runs.
		refresh := func() {
			r, err := svc.GetRelease(ctx, id)
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("release subscription", "release", id, "error", err)
				}
				ended = true
				return
			}
			for _, m := range r.Deploys {
				ids[m.DeploymentID] = true
				if m.RollbackDeploymentID != "" {
					ids[m.RollbackDeploymentID] = true
				}
			}
			select {
			case out <- toModelRelease(r):
				ended = releaseSettled(r)
				if !ended && tail == nil && r.State.Terminal() {
					tail = time.NewTimer(releaseTail)
				}
			case <-ctx.Done():
				ended = true
			}
		}
		refresh()
		for !ended {
			var tailed <-chan time.Time
			if tail != nil {
				tailed = tail.C
			}
			select {
			case <-ctx.Done():
				return
			case <-tailed:
				return
			case ev, open := <-ch:
				if !open {
					return
				}
				if ids[ev.DeploymentID] || (ev.Kind == deploy.EventRelease && ev.DeploymentID == id) {
					refresh()
				}
			}
		}
	}()
	return out
}

// releaseSettled reports whether r and everything it started have ended:
// its deploys and their rollback deploys.
func releaseSettled(r *deploy.Release) bool {
	if !r.State.Terminal() {
		return false
	}
	for _, m := range r.Deploys {
		if m.State != "" && !m.State.Terminal() {
			return false
		}
		if st := deploy.State(m.RollbackState); m.RollbackDeploymentID != "" && st.Valid() && !st.Terminal() {
			return false
		}
	}
	return true
}
