package deploy

import (
	"context"
	"time"
)

// SubmitOptions changes what a submission does.
type SubmitOptions struct {
	// ValidateOnly runs every check and computes the plan, enqueuing nothing.
	ValidateOnly bool
	// SkipAfterCheckFor lists dependencies (after) that are not checked at
	// submission: the deploys of the same release, which may not exist yet
	// or may already have ended; the wait reads their states.
	SkipAfterCheckFor []string
	// Release is the release the deploy belongs to.
	Release string
	// RollbackOf is the deploy a rollback deploy undoes.
	RollbackOf string
	// PromotedFrom is the deploy a promotion or a redeploy was made from.
	PromotedFrom string
}

// Submission is the answer to a submit or a validation.
type Submission struct {
	Deployment Deployment
	// Created is false when a deploy with the same ID already existed and was
	// returned instead (a submit is idempotent by ID).
	Created bool
	// Validated is true for a validation: nothing was stored.
	Validated bool
	// Schedule is set for a schedule.cron descriptor: a recurring schedule
	// was created or updated (HTTP 201), and Deployment describes it with
	// the state SCHEDULED.
	Schedule *RecurringSchedule
}

// Service is what the APIs call: every method authorizes the identity in ctx.
type Service interface {
	ScheduleService
	// ReleaseService handles composite releases and manual rollbacks.
	ReleaseService
	// AuditService reads the audit log.
	AuditService
	// PromotionService promotes and redeploys, and tells what the caller may do.
	PromotionService
	// Submit runs the submission checks in the spec's order and enqueues the
	// deploy. EINVALID, EUNAUTHENTICATED, EFORBIDDEN, EUNPROCESSABLE.
	Submit(ctx context.Context, descriptor []byte, opts SubmitOptions) (*Submission, error)
	// Cancel cancels a deploy. ENOTFOUND, EFORBIDDEN, ECONFLICT.
	Cancel(ctx context.Context, id string) (*Deployment, error)
	// ReplayCallbacks sends the dead deliveries of a deploy's callbacks
	// again (disabled ones too when asked), deliveryID "" for all.
	// ENOTFOUND (also when not readable, or no such delivery), EFORBIDDEN,
	// EUNPROCESSABLE (no callbacks), ECONFLICT (nothing to replay).
	ReplayCallbacks(ctx context.Context, id, deliveryID string, disabled bool) ([]Delivery, error)
	// PauseRollout asks a running rollout to pause after the batch in
	// flight; ResumeRollout resumes a paused one (it goes on as if what
	// paused it had passed): the pause named (RolloutPauseStatus.Step),
	// the one in force when pause is ""; AbortRollout aborts it (then the
	// rollback policy). ENOTFOUND (also when not readable), EFORBIDDEN,
	// EUNPROCESSABLE (the text, the pause's name), ECONFLICT (not in a
	// state allowing it, the pause named has ended).
	PauseRollout(ctx context.Context, id, reason string) (*Deployment, error)
	ResumeRollout(ctx context.Context, id, comment, pause string) (*Deployment, error)
	AbortRollout(ctx context.Context, id, reason string) (*Deployment, error)
	// Get returns a deploy. ENOTFOUND (also when not readable).
	Get(ctx context.Context, id string) (*Deployment, error)
	// List returns the readable deploys matching f.
	List(ctx context.Context, f ListFilter) (Page, error)
	// Logs returns log lines after a sequence number. ENOTFOUND.
	Logs(ctx context.Context, id string, after int64, limit int) ([]LogLine, error)
	// Inventory returns the readable releases in service.
	Inventory(ctx context.Context) ([]InventoryEntry, error)
	// Environment returns the inventory entry of one environment (its
	// tenant filled in; no DeploymentID when nothing is in service there).
	// ENOTFOUND (also when not readable), EUNAUTHENTICATED.
	Environment(ctx context.Context, res Resource) (*InventoryEntry, error)
	// Can reports whether the caller holds perm on res (for UI affordances);
	// an empty tenant is the default one.
	Can(ctx context.Context, res Resource, perm string) bool
	// Holders lists the subjects of the RBAC policy of res's tenant (roles,
	// groups or identities) that hold perm on res, for a res the caller
	// may read; none otherwise, or when the authorizer cannot tell.
	Holders(ctx context.Context, res Resource, perm string) []string
	// HasRole reports whether the caller holds the RBAC role in the tenant
	// (for UI affordances: approvals restricted to roles).
	HasRole(ctx context.Context, tenant, role string) bool
	// Approve records the caller's approval of a deploy AWAITING_APPROVAL.
	// ENOTFOUND, EFORBIDDEN (no deployment.approve, the requester, not in
	// the required groups), ECONFLICT (not awaiting approval).
	Approve(ctx context.Context, id, comment string) (*Deployment, error)
	// Reject refuses a deploy AWAITING_APPROVAL: it ends REJECTED. Same errors.
	Reject(ctx context.Context, id, comment string) (*Deployment, error)
	// PendingApprovals lists the deploys awaiting approval that the caller may answer.
	PendingApprovals(ctx context.Context) ([]Deployment, error)
	// FreezeCalendar lists the freeze windows of an environment that
	// intersect [from, to), sorted (see FreezeCalendar); the range is cut
	// to MaxFreezeCalendarRange and an empty tenant is the default one.
	// ENOTFOUND (also when not readable: deployment.read),
	// EUNPROCESSABLE (a governance that cannot list its windows), EINVALID.
	FreezeCalendar(ctx context.Context, res Resource, from, to time.Time) ([]FreezeWindow, error)
	// FreezeCalendars lists the calendars of several environments over one
	// range, in the order given, as FreezeCalendar does each: one request
	// for a view of many (the environments matrix). An environment the
	// caller may not read is not an error: its entry is not Readable.
	// EUNAUTHENTICATED, EUNPROCESSABLE (more than MaxFreezeCalendars, a
	// governance that cannot list its windows, a range that ends first).
	FreezeCalendars(ctx context.Context, envs []Resource, from, to time.Time) ([]EnvironmentFreezes, error)
}

// MaxFreezeCalendarRange bounds the range of a freeze calendar.
const MaxFreezeCalendarRange = 90 * 24 * time.Hour

// MaxFreezeCalendars bounds the environments of one FreezeCalendars.
const MaxFreezeCalendars = 500

// EnvironmentFreezes is the freeze calendar of one environment of
// FreezeCalendars.
type EnvironmentFreezes struct {
	// Resource is the environment, its tenant filled in when it was empty.
	Resource Resource
	// Readable is false when the caller may not read the environment (or
	// it cannot exist): Windows is then nil.
	Readable bool
	Windows  []FreezeWindow
}
