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

// PermRolloutControl is what pausing, resuming and aborting a rollout
// need on the deploy's environment: the permission to cancel. They hold or
// stop a deploy as a cancel does (an abort is a stop followed by the
// rollback policy), and a resume after a pause is the decision of the same
// people, who looked at the gates and judged.
const PermRolloutControl = PermCancel

// RolloutRequest is the request a person made of a deploy's rollout that
// its workflow has not taken yet.
type RolloutRequest struct {
	Action RolloutAction
	By     string
	// Reason is the free text given with it (a pause's or an abort's
	// reason, a resume's comment), checked as approval comments are.
	Reason string
	At     time.Time
	// Pause is the pause a resume answers, the name of its record
	// (PauseName): a resume ends that pause and no other. Empty for a
	// pause or an abort, and for a resume stored before it was named.
	Pause string
}

// PauseName is the name of the record of the seq-th pause of pass, which
// the status shows (RolloutPauseStatus.Step) and a resume names:
// "pause[2/1]".
func PauseName(pass, seq int) string {
	return StepKey{Step: StepPause, Pass: pass, Batch: seq}.Name()
}

// StaleResume says why a resume of the pause named cannot be taken while
// the pause current is in force ("" for none, and named "" for the one in
// force); "" when it can. A resume written for a pause that ended, read
// while the rollout has paused again, would end a pause nobody looked at.
func StaleResume(named, current string) string {
	switch {
	case current == "":
		return "its rollout is not paused"
	case named != "" && named != current:
		return "the pause its resume answers (" + named + ") has ended, and its rollout is paused again (" + current +
			"): look at why, then resume that pause"
	}
	return ""
}

// RolloutRequests records what people ask of running rollouts.
type RolloutRequests interface {
	// RequestRollout stores r for the RUNNING deploy id when the request
	// pending (none is "") is one of from, with its audit entry (r's
	// action, details) and a change event, in one transaction, in which it
	// calls wake (when not nil) with the transaction (a *sql.Tx): the
	// wake-up of the deploy's workflow commits with the request, or
	// neither does. ECONFLICT when the deploy is not RUNNING or another
	// request is pending; ENOTFOUND.
	RequestRollout(ctx context.Context, id string, r RolloutRequest, from []RolloutAction, details map[string]any, wake func(tx any) error) error
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

// rolloutControl is where a rollout stands beyond its state, for the
// requests people make of it.
type rolloutControl struct {
	deploy State
	dryRun bool
	// batchesLeft: a batch has not begun, before which a pause can take
	// effect (the engine looks for one only there).
	batchesLeft bool
	// wavesLeft: a wave has not passed (nor is empty): an abort still
	// stops something, a bake or gates included.
	wavesLeft bool
	// failed: a wave failed, and the deploy fails with it.
	failed bool
	// rollingBack: the rollback of the deploy runs.
	rollingBack bool
}

// observe adds wave w to what c knows.
func (c *rolloutControl) observe(w RolloutWaveStatus) {
	switch w.State {
	case WavePassed, WaveEmpty, WaveSkipped:
	case WaveFailed, WaveRolledBack:
		c.failed = true
	default:
		c.wavesLeft = true
	}
	for _, b := range w.Batches {
		c.batchesLeft = c.batchesLeft || (b.State == StepPending && b.StartedAt == nil)
	}
}

// RolloutRefusal says why the rollout st (nil: the deploy has none) does
// not allow action now; "" when it does. The one home of the rule: the
// service refuses by it (ECONFLICT), the APIs offer the actions by it.
// Once the rollout has nothing left for a request to act on (its last
// batch has begun, for a pause; its last wave passed, for an abort; a wave
// failed or the rollback runs, for any), the request is refused rather
// than stored to wait for what never comes.
func RolloutRefusal(st *RolloutStatus, action RolloutAction) string {
	if st == nil {
		return "it has no rollout"
	}
	c := st.control
	var pending RolloutAction
	if st.Request != nil {
		pending = st.Request.Action
	}
	switch {
	case c.deploy != StatePending || c.dryRun:
		return "its rollout is not running: " + string(c.deploy)
	case c.rollingBack:
		return "its rollout is being rolled back"
	case c.failed:
		return "its rollout failed: the deploy is ending"
	case pending == RolloutActionAbort:
		return "an abort of its rollout is already asked"
	}
	switch action {
	case RolloutActionPause:
		switch {
		case st.State == RolloutPaused:
			return "its rollout is already paused"
		case pending == RolloutActionPause:
			return "a pause of its rollout is already asked: it takes effect after the batch in flight"
		case !c.batchesLeft:
			return "its rollout has no batch left to start: a pause would never take effect"
		}
	case RolloutActionResume:
		if st.State != RolloutPaused {
			return "its rollout is not paused: " + string(st.State)
		}
		if pending != "" {
			return "a " + string(pending) + " of its rollout is already asked"
		}
	case RolloutActionAbort:
		if !c.wavesLeft {
			return "its rollout passed its last wave: the deploy is finishing its last steps (a cancel stops it, without rollback)"
		}
	default:
		return "unknown rollout action " + string(action)
	}
	return ""
}

// RolloutReplaces is the pending requests a request of action replaces:
// an abort any, a pause a resume not taken yet; a resume none.
func RolloutReplaces(action RolloutAction) []RolloutAction {
	switch action {
	case RolloutActionAbort:
		return []RolloutAction{"", RolloutActionPause, RolloutActionResume}
	case RolloutActionPause:
		return []RolloutAction{"", RolloutActionResume}
	}
	return []RolloutAction{""}
}

// The record of the approval a rollout asks before a wave with approval:
// true: an operation of the deploy (StepKey{Step: StepApproval, Pass: the
// wave}: "approval[3]") of type StepTypeRollout, RUNNING while it asks.
// Its output holds what it asks (OutputApprovalRequired approvals, by
// OutputApprovalGroups or Roles, until OutputApprovalExpires). These are
// stored names.
const (
	StepApproval           = "approval"
	OutputApprovalRequired = "required"
	OutputApprovalGroups   = "groups"
	OutputApprovalRoles    = "roles"
	OutputApprovalExpires  = "expires_at"
	// OutputApprovalEnd is how the approval ended, one of the ApprovalEnd
	// values: what the status tells, never guessed from the error's text.
	OutputApprovalEnd = "end"
)

// The ends of a wave's approval, as its record's OutputApprovalEnd stores
// them and the status (StatusApproval.Status) tells them.
const (
	ApprovalEndApproved  = "approved"
	ApprovalEndRejected  = "rejected"
	ApprovalEndExpired   = "expired"
	ApprovalEndCancelled = "cancelled"
)

// DefaultWaveApprovalExpiry is how long a wave waits for its approvals
// when the environment's governance asks for none of the deploy itself.
const DefaultWaveApprovalExpiry = 24 * time.Hour

// WaveApprovalRequirement is what the approval before a wave asks: the
// governance's approvals of the deploy (its count, groups, roles and
// expiry), or, when the governance asks for none, one approval by another
// identity than the requester holding deployment.approve, within
// DefaultWaveApprovalExpiry.
func WaveApprovalRequirement(deployRule *ApprovalRequirement) ApprovalRequirement {
	if deployRule == nil || deployRule.Count < 1 {
		return ApprovalRequirement{Count: 1, Expiry: DefaultWaveApprovalExpiry}
	}
	req := *deployRule
	if req.Expiry <= 0 {
		req.Expiry = DefaultWaveApprovalExpiry
	}
	return req
}

// The record of a wave deferred by a freeze window over one of its targets:
// an operation of the deploy (StepKey{Step: StepDefer, Pass: the wave}:
// "defer[2]") of type StepTypeRollout, RUNNING while it waits. Its output
// names the window, when it ends, the targets it selects and when the
// wait gives up (defer_timeout). These are stored names.
const (
	StepDefer           = "defer"
	OutputDeferWindow   = "window"
	OutputDeferUntil    = "until"
	OutputDeferTargets  = "targets"
	OutputDeferDeadline = "deadline"
)
