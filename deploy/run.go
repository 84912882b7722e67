package deploy

import "time"

// BeginOptions says what the start of an operation checks and reads.
type BeginOptions struct {
	// HonourCancel stops the operation when a cancel was requested: the
	// steps of the plan do, compensations and cleanup do not.
	HonourCancel bool
	// ReadInService returns the deploy in service in the environment now
	// (the checkpoint of activation records it, so that its compensation
	// gives the inventory back).
	ReadInService bool
	// NotifyLater leaves the notifications of the change (the step's and
	// the deploy's) to the caller, which sends them once the change
	// committed, many changes' in one transaction: a NOTIFY takes a lock
	// of the whole database at its commit. Only an Advance that is a
	// statement on its own (AdvancesAtOnce) honours it.
	NotifyLater bool
}

// Begun is what the start of an operation found.
type Begun struct {
	// Cancelled: a cancel was requested; nothing was written.
	Cancelled bool `json:"cancelled,omitempty"`
	// CancelledBy is who asked for the cancel, when Cancelled.
	CancelledBy string `json:"cancelled_by,omitempty"`
	// Aborted: an abort of the rollout was asked (by AbortedBy, for
	// AbortReason); nothing was written.
	Aborted     bool   `json:"aborted,omitempty"`
	AbortedBy   string `json:"aborted_by,omitempty"`
	AbortReason string `json:"abort_reason,omitempty"`
	// InService is the deploy in service (ReadInService), "" for none.
	InService string `json:"in_service,omitempty"`
	// StartedAt is the start the operation's record keeps: the first one
	// written, when a start is written again (its step ran again after a
	// crash). Nil when nothing was written.
	StartedAt *time.Time `json:"started_at,omitempty"`
}

// StepEffects are what an operation changes of its deploy beside its own
// record, written in the same transaction as the record.
type StepEffects struct {
	// Effective is the deploy as the config step decided it.
	Effective *Effective
	// SHA256 is the digest of the downloaded artifact.
	SHA256 string
	// InService makes the deploy the release in service: activation put it
	// in service on its targets.
	InService bool
	// Restore gives the environment its release in service back after a
	// compensation of activation: the deploy in service before (the
	// checkpoint's), "" for none. Only when the deploy is still the one in
	// service.
	Restore *string
	// Rollback is the rollback outcome so far (RollbackRunning, ...).
	Rollback string
}

// Finished is what waits on a deploy that just ended: the deploys whose
// after names it and are still waiting, and its release.
type Finished struct {
	Dependents []string `json:"dependents,omitempty"`
	Release    string   `json:"release,omitempty"`
}
