package deploy

import "time"

// Job is a deploy as it was planned at submission: the input of its
// workflow, which DBOS stores, so a resumed deploy runs what was planned.
type Job struct {
	ID        string `json:"id"`
	Requester string `json:"requester"`
	// RequesterGroups let governance decide at execution as at submission.
	RequesterGroups []string   `json:"requester_groups,omitempty"`
	Descriptor      Descriptor `json:"descriptor"`
	Effective       Effective  `json:"effective"`
	Plan            Plan       `json:"plan"`
	// Change is the ticket opened while the deploy waited: the deploy
	// closes it with its outcome.
	Change *ChangeTicket `json:"change,omitempty"`
}

// Identity is the requester's.
func (j Job) Identity() Identity {
	return Identity{Subject: j.Requester, Groups: j.RequesterGroups}
}

// Job is what the deploy workflow of d runs: the deploy as submitted. A
// wait reads it from the deploy's row when it lets the deploy go, so the
// row holds every field of it (the plan with its signature).
func (d *Deployment) Job() Job {
	return Job{ID: d.ID, Requester: d.Requester, RequesterGroups: d.RequesterGroups, Descriptor: d.Descriptor,
		Effective: d.Effective, Plan: d.Plan}
}

// Partition is the deploy queue partition of the job.
func (j Job) Partition() string { return j.Effective.Partition() }

// WaitPlan is what a deploy waits for before its queue, in this order: its
// dependencies (after), its time (schedule.at), then approvals and its
// change ticket.
type WaitPlan struct {
	// After and AfterExpiresAt: the dependencies and the end of their wait.
	After          []string  `json:"after,omitempty"`
	AfterExpiresAt time.Time `json:"after_expires_at"`
	// At is schedule.at.
	At *time.Time `json:"at,omitempty"`
	// Approvals is set when an approval rule matched; Require says what it asks.
	Approvals bool                `json:"approvals,omitempty"`
	Require   ApprovalRequirement `json:"require"`
	// ExpiresAt ends the wait for approvals; zero until they are requested.
	ExpiresAt time.Time `json:"expires_at"`
	// Change is set when a change ticket must be opened and approved.
	Change *ChangeRequirement `json:"change,omitempty"`
}

// ReleasePlan is a composite release as submitted: its deploys with their
// IDs and after resolved, in topological order, and who submitted them,
// whose identity the deploys and the rollbacks run with.
type ReleasePlan struct {
	ID              string          `json:"id"`
	Requester       string          `json:"requester"`
	RequesterGroups []string        `json:"requester_groups,omitempty"`
	OnFailure       string          `json:"on_failure"`
	Members         []PlannedMember `json:"members"`
}

// Identity is the requester's.
func (p ReleasePlan) Identity() Identity {
	return Identity{Subject: p.Requester, Groups: p.RequesterGroups}
}

// MemberIDs lists the IDs of the release's deploys.
func (p ReleasePlan) MemberIDs() []string {
	ids := make([]string, len(p.Members))
	for i, m := range p.Members {
		ids[i] = m.Deploy.ID
	}
	return ids
}

// PlannedMember is one deploy of a release plan.
type PlannedMember struct {
	Name   string     `json:"name"`
	Deploy Descriptor `json:"descriptor"`
}
