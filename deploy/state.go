package deploy

import "slices"

// State is the state of a deploy, as the spec names it.
type State string

const (
	StateScheduled         State = "SCHEDULED"
	StateDelayed           State = "DELAYED"
	StateWaitingDependency State = "WAITING_DEPENDENCY"
	StateAwaitingApproval  State = "AWAITING_APPROVAL"
	StateEnqueued          State = "ENQUEUED"
	StatePending           State = "PENDING"
	StateSuccess           State = "SUCCESS"
	StateError             State = "ERROR"
	StateCancelled         State = "CANCELLED"
	StateRejected          State = "REJECTED"
	StateExpired           State = "EXPIRED"
	StateDependencyFailed  State = "DEPENDENCY_FAILED"
	// StateMaxRecoveryAttemptsExceeded: DBOS resumed the workflow too many
	// times after crashes and stopped resuming it.
	StateMaxRecoveryAttemptsExceeded State = "MAX_RECOVERY_ATTEMPTS_EXCEEDED"
)

// States lists every state in lifecycle order.
var States = []State{
	StateScheduled, StateDelayed, StateWaitingDependency, StateAwaitingApproval,
	StateEnqueued, StatePending, StateSuccess, StateError, StateCancelled,
	StateRejected, StateExpired, StateDependencyFailed, StateMaxRecoveryAttemptsExceeded,
}

// Terminal reports whether nothing more will happen to a deploy in this
// state (one of Final).
func (s State) Terminal() bool { return slices.Contains(Final, s) }

// Active reports whether the deploy is running or waiting (what Activity shows).
func (s State) Active() bool { return s != "" && !s.Terminal() }

// Valid reports whether s is one of the known states.
func (s State) Valid() bool { return slices.Contains(States, s) }

// Waiting reports whether the deploy is held by its wait workflow.
func (s State) Waiting() bool { return slices.Contains(Waiting, s) }

// StepState is the state of one step of a deploy.
type StepState string

const (
	StepPending   StepState = "PENDING"
	StepRunning   StepState = "RUNNING"
	StepSuccess   StepState = "SUCCESS"
	StepError     StepState = "ERROR"
	StepSkipped   StepState = "SKIPPED"
	StepCancelled StepState = "CANCELLED"
)

// Terminal reports whether the step has ended.
func (s StepState) Terminal() bool {
	return s == StepSuccess || s == StepError || s == StepSkipped || s == StepCancelled
}

// StepKind says what an operation of a step does: its run (or dry run),
// the checkpoint taken before it, or its compensation.
type StepKind string

const (
	KindRun        StepKind = "run"
	KindDryRun     StepKind = "dry-run"
	KindCheckpoint StepKind = "checkpoint"
	KindRollback   StepKind = "rollback"
)

// StepKinds lists every kind.
var StepKinds = []StepKind{KindRun, KindDryRun, KindCheckpoint, KindRollback}
