package deploy

import (
	"context"
	"errors"
	"time"
)

// ErrUnavailable is wrapped by the errors of a store or of DBOS that could
// not reach the database: an infrastructure fault, never a failure of a
// deploy; the engine waits for the database and goes on.
var ErrUnavailable = errors.New("the database is unavailable")

// Unavailable reports whether err means the database could not be reached.
func Unavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

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
	// AwaitingApproval keeps the deploys that await an approval now: their
	// own (AWAITING_APPROVAL), or a wave's of their running rollout.
	AwaitingApproval bool
	// Readable restricts the list to the resources the caller may read; nil
	// means no restriction (internal callers).
	Readable func(Resource) bool
	// First is the page size (default 50, at most MaxPageSize); After is the cursor
	// of the last item of the previous page.
	First int
	After string
}

// The bounds of one read of a list: the store applies them, and the GraphQL
// complexity limit counts a list by them.
const (
	// MaxPageSize is the most deploys or releases one page holds.
	MaxPageSize = 500
	// MaxLogLines is the most log lines one read returns.
	MaxLogLines = 5000
)

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
	// Rollback is the outcome of the automatic rollback ("" for a wait
	// that ended the deploy).
	Rollback string
	// FailedStep is the step that failed; with an ERROR state it makes the
	// deploy the last failure of its environment.
	FailedStep string
	// InService makes a successful deploy the release in service (a plan
	// without activation: activation does it otherwise, see StepEffects).
	InService bool
	// Exports are the checked exports of a succeeded deploy.
	Exports []Export
}

// CancelResult says what a cancel request did.
type CancelResult struct {
	// Before is the state the deploy had when the request arrived.
	Before State
	// Immediate is true when the deploy had not started and is now CANCELLED;
	// false when it runs and will stop at the start of its next step.
	Immediate bool
}

// The product's read model in PostgreSQL is reached through the narrow
// roles below; each consumer names the ones it uses. Every write that
// changes a deploy, a step or the log also notifies subscribers (see
// Events). Methods return *Error with ENOTFOUND for an unknown deploy and
// ECONFLICT where they say so; an error that wraps ErrUnavailable means the
// database could not be reached (retrying later helps); any other error is
// internal.

// DeploymentReader reads deploys.
type DeploymentReader interface {
	// Get returns a deploy with its steps, approvals and the states of its
	// dependencies.
	Get(ctx context.Context, id string) (*Deployment, error)
	// List returns a page of deploys matching f, newest first, each with
	// its steps, approvals and the states of its dependencies, as Get.
	List(ctx context.Context, f ListFilter) (Page, error)
	// Logs returns up to limit lines with Seq > after, in order.
	Logs(ctx context.Context, id string, after int64, limit int) ([]LogLine, error)
	// Inventory returns the releases in service and the last failures of
	// environments, optionally for one tenant.
	Inventory(ctx context.Context, tenant string) ([]InventoryEntry, error)
	// InventoryOf returns the inventory entry of one environment, read by
	// its key: only res (no DeploymentID, no LastFailure) when nothing was
	// ever in service there and nothing failed.
	InventoryOf(ctx context.Context, res Resource) (*InventoryEntry, error)
	// InService returns the releases in service of one application, by
	// tenant and environment: of one tenant, or of every tenant when tenant
	// is empty; of one environment, or of every one when environment is
	// empty. No Previous, no LastFailure.
	InService(ctx context.Context, tenant, application, environment string) ([]InventoryEntry, error)
	// ReleaseBefore returns the ID of the deploy that last went in service
	// in res before id did and ended SUCCESS, "" when none did: what a
	// rollback of id goes back to (InventoryEntry.Previous of the release
	// in service).
	ReleaseBefore(ctx context.Context, res Resource, id string) (string, error)
	// DependencyStates returns the states of the deploys, in one query; an
	// unknown ID is absent from the map.
	DependencyStates(ctx context.Context, ids []string) (map[string]State, error)
	// DependentsOf lists every deploy whose after names id, with its state
	// and resource (at most 500): what a viewer of id sees waiting on it.
	DependentsOf(ctx context.Context, id string) ([]Dependency, error)
	// Dependents lists the deploys still waiting on id (after).
	Dependents(ctx context.Context, id string) ([]string, error)
}

// SuccessHistory is manent's record of the releases that succeeded.
type SuccessHistory interface {
	// SucceededVersions returns the artifact versions of the deploys of
	// res that ended SUCCESS (dry runs aside), newest success first, each
	// once, at most n.
	SucceededVersions(ctx context.Context, res Resource, n int) ([]string, error)
}

// Submissions records what the API accepts.
type Submissions interface {
	// CreateDeployment inserts d, its deployment.submit audit entry and, in
	// the same transaction, calls enqueue with the transaction (a *sql.Tx)
	// so the workflow is enqueued atomically with the row, and returns the
	// deploy as stored, as Get reads it right after, with created true.
	// When a deploy with d.ID exists, nothing is written and the existing
	// deploy is returned with created false.
	CreateDeployment(ctx context.Context, d Deployment, enqueue func(tx any) error) (stored *Deployment, created bool, err error)
	// RequestCancel cancels a deploy not started yet at once, or flags a
	// PENDING one to stop at its next step, recording actor as who
	// cancelled it (the first request's). ECONFLICT when it already ended.
	RequestCancel(ctx context.Context, id, actor string) (CancelResult, error)
	// AddApproval records an identity's answer to a deploy AWAITING_APPROVAL
	// (ECONFLICT otherwise) and its audit entry; a rejection (by another
	// identity than the requester) ends the deploy REJECTED in the same
	// transaction, and replaces that identity's approval when it gave one.
	// A second approval of the same identity changes nothing: ECONFLICT.
	// An answer to a wave of a running rollout (a.Pass > 0) is stored
	// while the wave asks it. wake, when not nil, is called in the
	// transaction (a *sql.Tx): the wake-up of the workflow that reads the
	// answer commits with it, or neither does.
	AddApproval(ctx context.Context, a Approval, wake func(tx any) error) error
}

// WaitStore moves waiting deploys along the lifecycle.
type WaitStore interface {
	// Transition moves a deploy to the state to, from any state the
	// lifecycle allows (or to itself), recording the approval expiry when
	// it enters AWAITING_APPROVAL; false when it was in none of them.
	Transition(ctx context.Context, id string, to State, approvalExpires *time.Time) (bool, error)
	// EnqueueWaiting moves a waiting deploy to ENQUEUED and, in the same
	// transaction, calls enqueue with it (a *sql.Tx) and the deploy's job
	// as its row holds it; false when it was no longer waiting (cancelled
	// meanwhile).
	EnqueueWaiting(ctx context.Context, id string, enqueue func(tx any, j Job) error) (bool, error)
	// Job returns the job of a deploy as its row holds it (ENOTFOUND).
	Job(ctx context.Context, id string) (Job, error)
	// WaitsToWake lists the deploys WAITING_DEPENDENCY with no dependency
	// active any more (each ended, or was removed) whose wait workflow
	// still waits, with no wake-up unread: those whose wake-up was lost.
	// At most limit of them.
	WaitsToWake(ctx context.Context, w WaitWorkflows, limit int) ([]string, error)
	// FinishDeployment ends a deploy that is not final yet (a wait that
	// ended it, a workflow that failed) and appends its deployment.finish
	// audit entry (and after.finish for DEPENDENCY_FAILED), in one
	// transaction. A deploy already final is left alone.
	FinishDeployment(ctx context.Context, o Outcome) error
}

// WaitWorkflows names the wait workflows of deploys in DBOS's tables: the
// suffix of their IDs after the deploy's, and the topic of their wake-ups.
type WaitWorkflows struct {
	Suffix, Topic string
}

// AuditLog appends to the append-only audit log.
type AuditLog interface {
	AppendAudit(ctx context.Context, e AuditEntry) error
}

// LogStore appends to deploy logs.
type LogStore interface {
	// AppendLog appends lines to the logs of their deploys in one
	// transaction; Seq is assigned by the store. The lines of a deploy that
	// no longer exists (retention) are dropped.
	AppendLog(ctx context.Context, lines ...LogLine) error
	// AppendLogBatch is AppendLog for a batch its writer may send again
	// when an error left its fate unknown (the connection cut after the
	// commit): a batch is stored at most once.
	AppendLogBatch(ctx context.Context, b LogBatch) error
}

// LogBatch is one transaction of a log writer's lines. The store keeps
// the last Number each Writer stored and ignores a batch at or below it,
// in the transaction of the lines.
type LogBatch struct {
	// Writer is unique to the writer: one per process.
	Writer string
	// Number grows with each new batch of lines of the writer (from 1); a
	// batch sent again keeps its number. A batch of events alone has none.
	Number uint64
	Lines  []LogLine
	// Events are notified with the lines (their deploys' log events are
	// anyway), in the same transaction; a batch of events alone is sent
	// as it is, again or not.
	Events []Event
}

// ExecutorStore keeps the liveness of worker processes and their fences.
type ExecutorStore interface {
	// RegisterExecutor records a worker process that starts with this
	// executor ID: alive now, and no longer fenced.
	RegisterExecutor(ctx context.Context, executorID, hostname string, pid int) error
	// Heartbeat records that the executor is alive. It reports fenced when
	// another worker took over its deploys: the process must stop running them.
	Heartbeat(ctx context.Context, executorID string) (fenced bool, err error)
	// StaleExecutors lists the executors silent since before and not fenced
	// since before.
	StaleExecutors(ctx context.Context, before time.Time) ([]string, error)
	// LiveExecutors counts the executors not fenced that recorded a
	// heartbeat since.
	LiveExecutors(ctx context.Context, since time.Time) (int, error)
	// FenceExecutor fences an executor silent and not fenced since before (any
	// executor when force): only one caller wins, and it alone takes over
	// the deploys.
	FenceExecutor(ctx context.Context, executorID, by string, before time.Time, force bool) (bool, error)
	// ExecutorWorkflows lists the workflows of the given names that DBOS
	// runs on the executor (PENDING in its tables), with their queue and
	// partition.
	ExecutorWorkflows(ctx context.Context, executorID string, names []string) ([]ExecutorDeploy, error)
	// FailAbandoned ends the deploys whose workflow, or the wait workflow
	// of ID <deploy><waitSuffix>, DBOS ended without them (ERROR: a failure
	// of manent's own, or MAX_RECOVERY_ATTEMPTS_EXCEEDED), and returns
	// their IDs.
	FailAbandoned(ctx context.Context, waitSuffix string) ([]string, error)
	// FailAbandonedReleases ends ERROR the PENDING releases whose workflow
	// (ID <release><suffix>) DBOS ended without them, and returns their IDs.
	FailAbandonedReleases(ctx context.Context, suffix string) ([]string, error)
}

// ExecutorDeploy is a workflow running on an executor.
type ExecutorDeploy struct {
	ID        string
	Workflow  string
	Queue     string
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
	// EventSchedule: a recurring schedule recorded a tick; the event's ID
	// is the schedule's name.
	EventSchedule EventKind = "schedule"
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
