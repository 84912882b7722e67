package engine

import (
	"context"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// Store is what the workflows read and write of the read model, by role.
type Store interface {
	deploy.DeploymentReader
	deploy.Submissions
	deploy.WaitStore
	deploy.AuditLog
	deploy.LogStore
	deploy.ExecutorStore
	deploy.ReleaseStore
	deploy.ScheduleStore
	deploy.SuccessHistory
	deploy.DeliveryStore
	// Purge removes what is older than the retention and records the run
	// in the audit, in one transaction.
	Purge(ctx context.Context, actor string, r deploy.Retention) (deploy.Purged, error)
	// ExecutorFenced reports whether another worker took over the
	// executor's deploys.
	ExecutorFenced(ctx context.Context, executorID string) (bool, error)
	// CountRun counts one more process that starts the operation and
	// returns how many did.
	CountRun(ctx context.Context, id string, key deploy.StepKey) (int, error)
	// RecordAttempt records that the running operation makes its attempt
	// n, a retry (never the first: the start says 1).
	RecordAttempt(ctx context.Context, id string, key deploy.StepKey, n int) error
}

// Recorder writes the record of a deploy's run inside the transactions in
// which DBOS records the workflow's steps (dbos.RunAsTransaction), so the
// read model changes exactly once per step and never drifts from the
// workflow. q is the transaction.
type Recorder interface {
	// StartRun moves an ENQUEUED deploy to PENDING; false when it is no
	// longer waiting to start (cancelled in the queue). notifyLater leaves
	// the deploy's notification to the caller, as BeginOptions.NotifyLater
	// does an operation's.
	StartRun(ctx context.Context, q dbos.Querier, id string, at time.Time, notifyLater bool) (bool, error)
	// Advance records the end of an operation (done, with its effects) and
	// the start of the next (RUNNING, one run) unless, when o asks, a cancel
	// was requested; either may be nil. It returns what the start found.
	Advance(ctx context.Context, q dbos.Querier, done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) (*deploy.Begun, error)
	// AdvancesAtOnce reports that Advance of these arguments is a single
	// statement, atomic without a transaction around it; it still is with
	// next nil and o zero.
	AdvancesAtOnce(done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) bool
	// TakeRolloutRequest clears the deploy's pending rollout request when
	// it is of action: the workflow took it (it paused, it resumed).
	TakeRolloutRequest(ctx context.Context, q dbos.Querier, id string, action deploy.RolloutAction) error
	// BeginPause clears, as a pause begins, the deploy's pending pause
	// (which it returns, nil for none: the pause takes it, whoever began
	// it) and any resume pending (stale: it answered an earlier pause).
	BeginPause(ctx context.Context, q dbos.Querier, id string) (*deploy.RolloutRequest, error)
	// SkipSteps records planned operations that will not run (SKIPPED or
	// CANCELLED), leaving those that ended as they are.
	SkipSteps(ctx context.Context, q dbos.Querier, id string, steps []deploy.Step) error
	// SetRollback records the rollback outcome of a deploy (one of a
	// release, undone after it ended).
	SetRollback(ctx context.Context, q dbos.Querier, id, state string) error
	// AppendLog appends lines to the log of the deploy id.
	AppendLog(ctx context.Context, q dbos.Querier, id string, lines []deploy.LogLine) error
	// FinishRun records the outcome of a deploy that is not final yet: its
	// state, inventory, last failure and deployment.finish audit entry.
	FinishRun(ctx context.Context, q dbos.Querier, o deploy.Outcome) (deploy.Finished, error)
}

// Checks is the port back to the service: the checks a deploy runs again
// when it starts, and the submissions a release makes.
type Checks interface {
	// Configure resolves the imports, reads the environment configuration
	// valid now and merges it with the descriptor (the config step). When
	// the rollout rejects a target, the Effective returned with the error
	// holds the plan refused (RolloutPlan).
	Configure(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (deploy.Effective, map[string]string, error)
	// Recheck runs governance again (freezes, policy); note says why a
	// freeze was overridden.
	Recheck(ctx context.Context, who deploy.Identity, d deploy.Descriptor) (note string, err error)
	// WaveFrozen returns the freeze window in force now over one of the
	// targets (a wave's), by their labels; nil when none.
	WaveFrozen(ctx context.Context, who deploy.Identity, d deploy.Descriptor, targets []deploy.Target) (*deploy.Freeze, error)
	// FreezeInForce returns the freeze window in force now over the
	// deploy's environment or one of targets, in a dry run too (the custom
	// command steps of a dry run are skipped in one); Overridden when the
	// descriptor's freezeOverride is accepted. nil when none.
	FreezeInForce(ctx context.Context, who deploy.Identity, d deploy.Descriptor, targets []deploy.Target) (*deploy.Freeze, error)
	// SubmitMember submits a deploy of a release with the identity in ctx.
	SubmitMember(ctx context.Context, d deploy.Descriptor, opts deploy.SubmitOptions) (*deploy.Submission, error)
	// RollbackMember submits the rollback of a deploy of a release.
	RollbackMember(ctx context.Context, r deploy.RollbackRequest, from, release string) (*deploy.Submission, error)
	// MayRollBack says whether the identity in ctx may roll back the
	// deploy id of res, of an artifact of type artifactType, as a rollback
	// deploy would be checked: a refusal is a *deploy.Error.
	MayRollBack(ctx context.Context, res deploy.Resource, id, artifactType string) error
}
