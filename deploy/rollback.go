package deploy

import (
	"slices"
	"time"
)

// RollbackPolicy is the automatic rollback of a deploy (spec: failure and
// rollback): when a step of On fails after its retries, the steps already
// started are compensated in reverse order. The environment configuration
// decides it; a descriptor may change it only where descriptor_policy
// allows.
type RollbackPolicy struct {
	Enabled bool `json:"enabled"`
	// On lists the steps whose failure rolls the deploy back.
	On []string `json:"on,omitempty"`
}

// RollbackOverride is a descriptor's change to the rollback policy of its
// environment: what it gives replaces the environment's.
type RollbackOverride struct {
	Enabled *bool    `json:"enabled,omitempty"`
	On      []string `json:"on,omitempty"`
}

// DefaultRollbackOn is what a policy enabled without on rolls back for.
var DefaultRollbackOn = []string{StepDeploy, StepPostTest, StepActivation}

// Covers reports whether a failure of step rolls the deploy back.
func (p RollbackPolicy) Covers(step string) bool {
	return p.Enabled && slices.Contains(p.On, step)
}

// Rollback outcomes of a deploy (status JSON rollback.state, inventory
// last_failure.rollback).
const (
	// RollbackCompleted: every compensation succeeded; the targets are
	// back at their checkpoints.
	RollbackCompleted = "completed"
	// RollbackFailed: a compensation failed and the sequence stopped there.
	RollbackFailed = "failed"
	// RollbackNotNeeded: the deploy succeeded, was cancelled, or failed in
	// a step that is not in rollback.on.
	RollbackNotNeeded = "not_needed"
	// RollbackDisabled: the deploy failed and its rollback policy is off.
	RollbackDisabled = "disabled"
	// RollbackRunning: the compensations are running.
	RollbackRunning = "running"
)

// LastFailure is the last deploy of an environment that did not succeed,
// kept beside the release in service.
type LastFailure struct {
	DeploymentID string    `json:"deployment"`
	Step         string    `json:"step"`
	Error        string    `json:"error"`
	FinishedAt   time.Time `json:"finished_at"`
	// Rollback is the outcome of its automatic rollback.
	Rollback string `json:"rollback"`
}

// RollbackStatus is the rollback section of the status JSON.
type RollbackStatus struct {
	State string               `json:"state"`
	Steps []RollbackStatusStep `json:"steps"`
}

// RollbackStatusStep is one compensation of the rollback section.
type RollbackStatusStep struct {
	Name       string     `json:"name"`
	State      StepState  `json:"state"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	Error      *string    `json:"error"`
}
