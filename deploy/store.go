package deploy

import (
	"context"
	"time"
)

// ListFilter selects deploys. Zero fields match everything.
type ListFilter struct {
	Tenant        string
	Application   string
	Environment   string
	States        []State
	Requester     string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	// ActiveOnly keeps the deploys that are running or waiting.
	ActiveOnly bool
	// Readable restricts the list to the resources the caller may read; nil
	// means no restriction (internal callers).
	Readable func(Resource) bool
	// First is the page size (default 50, at most 500); After is the cursor
	// of the last item of the previous page.
	First int
	After string
}

// Page is one page of deploys, newest first.
type Page struct {
	Items       []Deployment
	EndCursor   string
	HasNextPage bool
	// Cursors, when the store fills it, holds the cursor of each item (Relay
	// edges have one each); EndCursor is the cursor of the last item.
	Cursors []string
}

// Cursor returns the cursor of Items[i], to pass as After to read what
// follows it, or "" when the store gave none for it.
func (p Page) Cursor(i int) string {
	if i < len(p.Cursors) {
		return p.Cursors[i]
	}
	if i == len(p.Items)-1 {
		return p.EndCursor
	}
	return ""
}

// Outcome is how a deploy ended, recorded by its workflow.
type Outcome struct {
	ID         string
	State      State
	Error      string
	SHA256     string
	FinishedAt time.Time
	// Actor is who the deploy.finish audit entry names (the requester).
	Actor string
}

// CancelResult says what a cancel request did.
type CancelResult struct {
	// Before is the state the deploy had when the request arrived.
	Before State
	// Immediate is true when the deploy had not started and is now CANCELLED;
	// false when it runs and will stop at the start of its next step.
	Immediate bool
}

// Store is the product's read model in PostgreSQL. Every write that changes
// a deploy, a step or the log also notifies subscribers (see Events).
//
// Methods return *Error with ENOTFOUND for an unknown deploy and ECONFLICT
// where they say so; any other error is internal.
type Store interface {
	ScheduleStore
	// ReleaseStore holds composite releases.
	ReleaseStore
	// CreateDeployment inserts d and, in the same transaction, calls enqueue
	// with the transaction (a *sql.Tx) so the workflow is enqueued atomically
	// with the row. When a deploy with d.ID exists, nothing is written and the
	// existing deploy is returned with created false.
	CreateDeployment(ctx context.Context, d Deployment, enqueue func(tx any) error) (existing *Deployment, created bool, err error)
	// MarkStarted moves an ENQUEUED deploy to PENDING. It returns false when the
	// deploy is no longer ENQUEUED (cancelled while queued, or already started).
	MarkStarted(ctx context.Context, id string, at time.Time) (started bool, err error)
	// BeginStep records an attempt of step: RUNNING, attempts+1, started_at
	// kept from the first attempt. It reports whether a cancel was requested,
	// in which case nothing is written and the step must not run.
	BeginStep(ctx context.Context, id string, step PlannedStep, position int, at time.Time) (cancelRequested bool, err error)
	// FinishStep records the end of a step.
	FinishStep(ctx context.Context, s Step) error
	// SkipSteps marks the steps not run (after a failure or a cancel).
	SkipSteps(ctx context.Context, id string, steps []PlannedStep, state StepState) error
	// SetEffective records the effective deploy computed by the config step.
	SetEffective(ctx context.Context, id string, e Effective) error
	// SetExports records the checked exports of a deploy.
	SetExports(ctx context.Context, id string, exports []Export) error
	// SetSHA256 records the digest of the downloaded artifact.
	SetSHA256(ctx context.Context, id, sha string) error
	// FinishDeployment records the outcome of a deploy that is not terminal yet,
	// updates the inventory on SUCCESS (one current release per environment)
	// and appends the deployment.finish audit entry, in one transaction.
	FinishDeployment(ctx context.Context, o Outcome) error
	// RequestCancel cancels an ENQUEUED deploy at once, or flags a PENDING one
	// to stop at its next step. ECONFLICT when the deploy already ended.
	RequestCancel(ctx context.Context, id, actor string) (CancelResult, error)
	// AppendLog appends lines to a deploy's log; Seq is assigned by the store.
	AppendLog(ctx context.Context, lines ...LogLine) error

	// Get returns a deploy with its steps.
	Get(ctx context.Context, id string) (*Deployment, error)
	// List returns a page of deploys matching f, newest first.
	List(ctx context.Context, f ListFilter) (Page, error)
	// Logs returns up to limit lines with Seq > after, in order.
	Logs(ctx context.Context, id string, after int64, limit int) ([]LogLine, error)
	// Inventory returns the releases in service, optionally for one tenant.
	Inventory(ctx context.Context, tenant string) ([]InventoryEntry, error)
	// AppendAudit appends an audit entry.
	AppendAudit(ctx context.Context, e AuditEntry) error
	// AddApproval records an identity's answer to a deploy AWAITING_APPROVAL
	// (ECONFLICT otherwise) and its audit entry. A second answer of the same
	// identity changes nothing and returns false.
	AddApproval(ctx context.Context, a Approval) (added bool, err error)
	// Approvals returns the answers given to a deploy, oldest first.
	Approvals(ctx context.Context, id string) ([]Approval, error)
	// ReleaseApproved moves a waiting deploy (WAITING_DEPENDENCY, DELAYED,
	// AWAITING_APPROVAL) to ENQUEUED and, in the same transaction, calls
	// enqueue with it (a *sql.Tx). False when it was no longer waiting
	// (cancelled meanwhile).
	ReleaseApproved(ctx context.Context, id string, enqueue func(tx any) error) (bool, error)
	// DependencyStates returns the states of the deploys, in one query; an
	// unknown ID is absent from the map.
	DependencyStates(ctx context.Context, ids []string) (map[string]State, error)
	// DependentsOf lists every deploy whose after names id, with its state
	// and resource (at most 500): what a viewer of id sees waiting on it.
	DependentsOf(ctx context.Context, id string) ([]Dependency, error)
	// Dependents lists the deploys still waiting on id (after).
	Dependents(ctx context.Context, id string) ([]string, error)
	// Transition moves a waiting deploy from one of the states to another
	// (recording the approval expiry when it enters AWAITING_APPROVAL);
	// false when it was in none of them.
	Transition(ctx context.Context, id string, from []State, to State, approvalExpires *time.Time) (bool, error)
	// RegisterExecutor records a worker process that starts with this
	// executor ID: alive now, and no longer fenced.
	RegisterExecutor(ctx context.Context, executorID, hostname string, pid int) error
	// Heartbeat records that the executor is alive. It reports fenced when
	// another worker took over its deploys: the process must stop running them.
	Heartbeat(ctx context.Context, executorID string) (fenced bool, err error)
	// ExecutorFenced reports whether another worker took over the executor's deploys.
	ExecutorFenced(ctx context.Context, executorID string) (bool, error)
	// StaleExecutors lists the executors silent since before and not fenced
	// since before.
	StaleExecutors(ctx context.Context, before time.Time) ([]string, error)
	// FenceExecutor fences an executor silent and not fenced since before (any
	// executor when force): only one caller wins, and it alone takes over
	// the deploys.
	FenceExecutor(ctx context.Context, executorID, by string, before time.Time, force bool) (bool, error)
	// ExecutorDeploys lists the deploy, wait, release and schedule workflows
	// DBOS runs on the executor (PENDING in its tables), with their queue
	// partition.
	ExecutorDeploys(ctx context.Context, executorID string) ([]ExecutorDeploy, error)
	// MarkRecoveryExceeded moves every non-terminal deploy whose workflow DBOS
	// stopped resuming to MAX_RECOVERY_ATTEMPTS_EXCEEDED and returns their IDs.
	MarkRecoveryExceeded(ctx context.Context) ([]string, error)
}

// ExecutorDeploy is a deploy workflow running on an executor.
type ExecutorDeploy struct {
	// ID is the workflow's: the deploy's, or <deploy>:approval for its wait.
	ID        string
	Workflow  string
	Partition string
}

// EventKind says what changed.
type EventKind string

const (
	EventDeployment EventKind = "deployment"
	EventStep       EventKind = "step"
	EventLog        EventKind = "log"
	// EventRelease: a release changed; the event's ID is the release's.
	EventRelease EventKind = "release"
)

// Event tells subscribers that something of a deploy changed; they read the
// new state from the Store (events carry no data, so no authorization is
// bypassed and no payload limit applies).
type Event struct {
	Kind         EventKind `json:"kind"`
	DeploymentID string    `json:"id"`
}

// Events fans out the changes written by any process.
type Events interface {
	// Subscribe delivers events until ctx ends. deploymentID "" means every
	// deploy. Slow subscribers may miss events but always get the latest one
	// of a burst; they must re-read the state.
	Subscribe(ctx context.Context, deploymentID string) <-chan Event
}
