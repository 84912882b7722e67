package deploy

import "context"

// PromoteRequest asks for a promotion: a new deploy of the artifact and
// descriptor of the deploy ID in another environment of the same
// application and tenant.
type PromoteRequest struct {
	// ID is the deploy promoted; it must have succeeded.
	ID string
	// To is the environment it is promoted to.
	To string
	// NewID names the new deploy (as a descriptor's id); generated when empty.
	NewID string
}

// RedeployRequest asks for a redeploy: a new deploy of the descriptor of
// the deploy ID in its own environment.
type RedeployRequest struct {
	ID string
	// NewID names the new deploy; generated when empty.
	NewID string
}

// PromotionService promotes and redeploys deploys, and tells which of the
// actions a person could take on them the caller may take now. Each May*
// is the check its action runs before anything else (permission and state),
// so an affordance never disagrees with its mutation; the submission's own
// checks (governance, environment configuration) still come after it.
type PromotionService interface {
	// Promote submits the promotion of r.ID to r.To through the normal
	// submission: its own permissions (deployment.submit on r.To), checks
	// and governance, without the source's after and deployment imports.
	// ENOTFOUND (also when not readable), EINVALID, EFORBIDDEN,
	// EUNPROCESSABLE (not succeeded, same environment, refused by the
	// submission's checks), ECONFLICT (r.NewID taken).
	Promote(ctx context.Context, r PromoteRequest) (*Submission, error)
	// Redeploy submits the descriptor of an ended deploy again in its
	// environment, as Promote does. Same errors.
	Redeploy(ctx context.Context, r RedeployRequest) (*Submission, error)
	// MayPromote is nil when the caller may promote d, a deploy read
	// through this Service for the caller, to env now.
	MayPromote(ctx context.Context, d *Deployment, env string) error
	// PromotionTargets lists the environments the caller may promote d (a
	// deploy read for the caller) to now: those whose promotion rules name
	// its environment as from.
	PromotionTargets(ctx context.Context, d *Deployment) ([]string, error)
	// MayRedeploy is nil when the caller may redeploy d (a deploy read for
	// the caller) now.
	MayRedeploy(ctx context.Context, d *Deployment) error
	// MayRollBackTo is nil when the caller may roll back an environment
	// now, to the deploy to ("" for the release before the one in service).
	MayRollBackTo(ctx context.Context, r RollbackRequest) error
	// Rollbacks is what the caller may roll res back to now, read once (the
	// inventory entry of res) for every check of it: the affordances of a
	// page (each history row's canRollbackTo) ask it once per environment.
	Rollbacks(ctx context.Context, res Resource) RollbackChoice
	// MayCancelRelease is nil when the caller may cancel the release now.
	MayCancelRelease(ctx context.Context, id string) error
	// MayDeleteSchedule is nil when the caller may delete the schedule now.
	MayDeleteSchedule(ctx context.Context, name string) error
}

// RollbackChoice is what a caller may roll one environment back to, as it
// stood when Rollbacks read it: the checks of RollbackTo, without a read
// of their own.
type RollbackChoice interface {
	// Default is the deploy a rollback without To goes back to (the
	// inventory's Previous, "" when there is none) and nil when the caller
	// may roll back to it now.
	Default() (string, error)
	// To is nil when the caller may roll back to d, a deploy read through
	// the Service for the caller.
	To(d *Deployment) error
}
