package main

import (
	"time"

	"manent.dev/manent/client"
)

// The JSON of the release commands (status, list, submit, cancel): snake_case
// as the status JSON of a deploy, whatever GraphQL calls the fields.

type releaseView struct {
	ID         string              `json:"id"`
	State      client.ReleaseState `json:"state"`
	OnFailure  string              `json:"on_failure"`
	Requester  string              `json:"requester"`
	CreatedAt  time.Time           `json:"created_at"`
	FinishedAt *time.Time          `json:"finished_at"`
	Error      *string             `json:"error"`
	Deploys    []releaseDeployView `json:"deploys"`
}

type releaseDeployView struct {
	Name         string                  `json:"name"`
	DeploymentID string                  `json:"deployment_id"`
	State        *client.DeploymentState `json:"state"`
	Error        *string                 `json:"error"`
	After        []string                `json:"after"`
	// Rollback is the deploy's rollback (onFailure: rollback), null when
	// none was decided.
	Rollback *releaseRollbackView `json:"rollback"`
	// Exports are only in release status: always a list there, empty until
	// the deploy succeeds.
	Exports *[]client.Export `json:"exports,omitempty"`
}

type releaseRollbackView struct {
	// State is the rollback deploy's state, or REFUSED or SKIPPED.
	State        string  `json:"state"`
	DeploymentID *string `json:"deployment_id"`
	Error        *string `json:"error"`
}

func toReleaseView(r *client.ReleaseDetail) releaseView {
	v := releaseView{ID: r.Id, State: r.State, OnFailure: r.OnFailure, Requester: r.Requester,
		CreatedAt: r.CreatedAt.UTC(), FinishedAt: optionalTime(r.FinishedAt), Error: nonEmpty(r.Error),
		Deploys: make([]releaseDeployView, len(r.Deploys))}
	for i, d := range r.Deploys {
		dv := releaseDeployView{Name: d.Name, DeploymentID: d.DeploymentId, Error: nonEmpty(d.Error), After: nonNilStrings(d.After)}
		if d.State != "" {
			state := d.State
			dv.State = &state
		}
		if d.RollbackState != "" {
			dv.Rollback = &releaseRollbackView{State: d.RollbackState, DeploymentID: nonEmpty(d.RollbackDeploymentId),
				Error: nonEmpty(d.RollbackError)}
		}
		v.Deploys[i] = dv
	}
	return v
}

func toReleaseViews(rs []client.ReleaseDetail) []releaseView {
	out := make([]releaseView, len(rs))
	for i := range rs {
		out[i] = toReleaseView(&rs[i])
	}
	return out
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
