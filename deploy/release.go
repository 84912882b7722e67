package deploy

import (
	"context"
	"slices"
	"time"
)

// ReleaseState is the state of a composite release.
type ReleaseState string

const (
	// ReleasePending: at least one deploy has not finished.
	ReleasePending ReleaseState = "PENDING"
	// ReleaseSuccess: every deploy succeeded.
	ReleaseSuccess ReleaseState = "SUCCESS"
	// ReleaseError: at least one deploy did not succeed (Release.Error lists them).
	ReleaseError ReleaseState = "ERROR"
	// ReleaseCancelled: the release was cancelled.
	ReleaseCancelled ReleaseState = "CANCELLED"
)

// Terminal reports whether the release has ended.
func (s ReleaseState) Terminal() bool { return s != "" && s != ReleasePending }

// Rollback states of a deploy of a release that are not the state of a
// rollback deploy: the rollback was refused (no previous release, an artifact
// type that cannot be rolled back), or not attempted because an earlier
// rollback of the sequence did not succeed.
const (
	RollbackRefused = "REFUSED"
	RollbackSkipped = "SKIPPED"
)

// Release is the read model of a composite release.
type Release struct {
	ID         string
	Requester  string
	OnFailure  string
	State      ReleaseState
	Descriptor ReleaseDescriptor
	CreatedAt  time.Time
	FinishedAt *time.Time
	UpdatedAt  time.Time
	// Error lists the deploys that did not succeed.
	Error   string
	Deploys []ReleaseDeploy
}

// ReleaseDeploy is one deploy of a release, in the order of the descriptor.
type ReleaseDeploy struct {
	Name         string
	DeploymentID string
	Tenant       string
	Application  string
	Environment  string
	// After names the deploys of the release this one follows.
	After []string
	// State is the deploy's state; for a deploy the release never created
	// (refused when the release queued it, or not queued after a refusal)
	// the state the release recorded; "" while it is not queued yet.
	State State
	// Error is the deploy's error, or why the release did not create it.
	Error string
	// RollbackDeploymentID is the rollback deploy (onFailure: rollback) and
	// RollbackState its state, or RollbackRefused / RollbackSkipped.
	RollbackDeploymentID string
	RollbackState        string
	RollbackError        string
}

// DependentsFirst lists the deploys of r so that each comes before every
// deploy of r it follows (after). Cancelled in this order, no deploy still
// waiting sees one of its dependencies end before it is cancelled itself,
// which would end it DEPENDENCY_FAILED instead of CANCELLED.
func (r *Release) DependentsFirst() []ReleaseDeploy {
	index := make(map[string]int, len(r.Deploys))
	for i, d := range r.Deploys {
		index[d.Name] = i
	}
	// A depth-first walk puts every deploy after those it follows; the
	// reverse of that order puts it before them. visited guards against a
	// cycle, which the descriptor refuses anyway.
	visited := make([]bool, len(r.Deploys))
	order := make([]ReleaseDeploy, 0, len(r.Deploys))
	var visit func(i int)
	visit = func(i int) {
		if visited[i] {
			return
		}
		visited[i] = true
		for _, name := range r.Deploys[i].After {
			if j, ok := index[name]; ok {
				visit(j)
			}
		}
		order = append(order, r.Deploys[i])
	}
	for i := range r.Deploys {
		visit(i)
	}
	slices.Reverse(order)
	return order
}

// Resource is what permissions on the deploy are checked on.
func (d ReleaseDeploy) Resource() Resource {
	return Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
}

// ReleaseSubmission is the answer to a release submission.
type ReleaseSubmission struct {
	Release Release
	// Created is false when the release already existed and was returned.
	Created bool
}

// ReleaseFilter selects releases, newest first.
type ReleaseFilter struct {
	// Readable keeps the releases whose every deploy it accepts; nil keeps all.
	Readable func(Resource) bool
	First    int
	After    string
}

// ReleasePage is one page of releases.
type ReleasePage struct {
	Items       []Release
	EndCursor   string
	HasNextPage bool
}

// ReleaseStore is the part of the Store that holds releases. Every write
// notifies subscribers with an EventRelease of the release's ID.
type ReleaseStore interface {
	// CreateRelease inserts r (PENDING) with its deploys and, in the same
	// transaction, calls enqueue with it (a *sql.Tx). When a release with
	// r.ID exists, nothing is written and it is returned with created false;
	// a deploy ID already claimed by another release is ECONFLICT.
	CreateRelease(ctx context.Context, r Release, enqueue func(tx any) error) (existing *Release, created bool, err error)
	// GetRelease returns a release with the states of its deploys and of
	// their rollbacks, in one query. ENOTFOUND.
	GetRelease(ctx context.Context, id string) (*Release, error)
	// ListReleases returns a page of releases, newest first.
	ListReleases(ctx context.Context, f ReleaseFilter) (ReleasePage, error)
	// MarkReleaseDeploy records the state of a deploy the release did not
	// create (refused: ERROR, not queued: CANCELLED) and why.
	MarkReleaseDeploy(ctx context.Context, releaseID, name string, state State, reason string) error
	// SetReleaseRollback records the rollback of a deploy of the release:
	// its deploy ID, or a state (RollbackRefused, RollbackSkipped) and why.
	SetReleaseRollback(ctx context.Context, releaseID, name, deploymentID, state, reason string) error
	// FinishRelease ends a PENDING release and appends the release.finish
	// audit entry; false when it had already ended.
	FinishRelease(ctx context.Context, id string, state ReleaseState, reason, actor string) (bool, error)
	// DeploymentRelease returns the release a deploy belongs to, "" for none.
	DeploymentRelease(ctx context.Context, deploymentID string) (string, error)
}

// RollbackRequest asks for a manual rollback of an environment.
type RollbackRequest struct {
	Tenant      string
	Application string
	Environment string
	// To is the deploy whose artifact is redeployed; default the release
	// before the one in service (InventoryEntry.Previous: the last deploy
	// that went in service there before it and succeeded).
	To string
	// ID names the rollback deploy; generated when empty.
	ID string
}

// ReleaseService is the part of Service that handles releases and rollbacks.
type ReleaseService interface {
	// SubmitRelease checks a kind: Release document as a whole (every deploy
	// inline) and accepts it; resubmitting returns the existing release.
	// EINVALID, EUNAUTHENTICATED, EFORBIDDEN, EUNPROCESSABLE, ECONFLICT.
	SubmitRelease(ctx context.Context, raw []byte) (*ReleaseSubmission, error)
	// GetRelease returns a release readable in full. ENOTFOUND.
	GetRelease(ctx context.Context, id string) (*Release, error)
	// ListReleases returns the releases readable in full.
	ListReleases(ctx context.Context, f ReleaseFilter) (ReleasePage, error)
	// CancelRelease stops the release and cancels its unfinished deploys.
	// ENOTFOUND, EFORBIDDEN, ECONFLICT (already ended).
	CancelRelease(ctx context.Context, id string) (*Release, error)
	// RollbackTo redeploys the previous release in service of an
	// environment through the normal pipeline. EFORBIDDEN (no
	// deployment.rollback), EUNPROCESSABLE (nothing to roll back to, an
	// artifact type that cannot be rolled back), ENOTFOUND.
	RollbackTo(ctx context.Context, r RollbackRequest) (*Submission, error)
}
