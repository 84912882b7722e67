package graph

import (
	"context"
	"log/slog"

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

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// followRelease sends the release now, then again whenever it, one of its
// deploys or one of their rollbacks changes, read with the caller's
// permissions; the channel closes once the release has ended.
func followRelease(ctx context.Context, svc deploy.Service, events deploy.Events, log *slog.Logger, id string) <-chan *model.Release {
	out := make(chan *model.Release, 1)
	go func() {
		defer close(out)
		// Every event: a release's deploys have IDs of their own.
		ch := events.Subscribe(ctx, "")
		ids, ended := map[string]bool{id: true}, false
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
				ended = r.State.Terminal()
			case <-ctx.Done():
				ended = true
			}
		}
		refresh()
		for !ended {
			select {
			case <-ctx.Done():
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
