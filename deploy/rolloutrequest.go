package deploy

import (
	"context"
	"time"
)

// RolloutAction is what a person asks of a running rollout. The request is
// stored with the deploy until its workflow takes it: a pause between two
// batches (never in the middle of one), a resume of a paused rollout, an
// abort at the next step boundary (then a rollback per the policy).
type RolloutAction string

// The rollout actions; they are stored.
const (
	RolloutActionPause  RolloutAction = "pause"
	RolloutActionResume RolloutAction = "resume"
	RolloutActionAbort  RolloutAction = "abort"
)

// RolloutRequest is the request a person made of a deploy's rollout that
// its workflow has not taken yet.
type RolloutRequest struct {
	Action RolloutAction
	By     string
	// Reason is the free text given with it (a pause's or an abort's
	// reason, a resume's comment), checked as approval comments are.
	Reason string
	At     time.Time
}

// RolloutRequests records what people ask of running rollouts.
type RolloutRequests interface {
	// RequestRollout stores r for the RUNNING deploy id when the request
	// pending (none is "") is one of from, with its audit entry (r's
	// action, details) and a change event, in one transaction. ECONFLICT
	// when the deploy is not RUNNING or another request is pending;
	// ENOTFOUND.
	RequestRollout(ctx context.Context, id string, r RolloutRequest, from []RolloutAction, details map[string]any) error
}

// The record of a pause of a rollout: an operation of the deploy
// (StepKey{Step: StepPause, Pass: the wave, Batch: the pause's number in
// the wave, from 1}: "pause[2/1]") of type StepTypeRollout, RUNNING while
// paused. Its output says why, by whom (empty when the rollout paused
// itself) and until when; its end says who resumed it, or why it aborted.
// These are stored names.
const (
	StepPause         = "pause"
	OutputPauseReason = "reason"
	OutputPauseBy     = "by"
	OutputPauseUntil  = "until"
	OutputResumedBy   = "resumed_by"
	OutputResumeNote  = "comment"
)

// RolloutAbortedBy is the error of a deploy whose rollout a person aborted:
// "rollout aborted by token:ci: the error rate climbs".
func RolloutAbortedBy(by, reason string) string {
	msg := "rollout aborted"
	if by != "" {
		msg += " by " + by
	}
	if reason != "" {
		msg += ": " + reason
	}
	return msg
}
