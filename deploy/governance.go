package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ApprovalRequirement is what an approval rule asks of a deploy.
type ApprovalRequirement struct {
	// Count distinct identities other than the requester must approve.
	Count int `json:"count"`
	// Groups and Roles, when set, restrict approvers to members of one of
	// the groups or holders of one of the RBAC roles (either will do).
	Groups []string `json:"groups,omitempty"`
	Roles  []string `json:"roles,omitempty"`
	// Expiry is how long approvals may take before the deploy is EXPIRED.
	Expiry time.Duration `json:"expiry"`
}

// approvalRequirementJSON is ApprovalRequirement on the wire, with the
// expiry as a Go duration ("24h0m0s") rather than nanoseconds.
type approvalRequirementJSON struct {
	Count  int             `json:"count"`
	Groups []string        `json:"groups,omitempty"`
	Roles  []string        `json:"roles,omitempty"`
	Expiry json.RawMessage `json:"expiry"`
}

// MarshalJSON writes the expiry as a duration string.
func (a ApprovalRequirement) MarshalJSON() ([]byte, error) {
	exp, err := json.Marshal(a.Expiry.String())
	if err != nil {
		return nil, err
	}
	return json.Marshal(approvalRequirementJSON{Count: a.Count, Groups: a.Groups, Roles: a.Roles, Expiry: exp})
}

// UnmarshalJSON reads the expiry as a duration string, or as nanoseconds
// (the form of earlier versions, still in stored workflow inputs).
func (a *ApprovalRequirement) UnmarshalJSON(b []byte) error {
	var raw approvalRequirementJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	a.Count, a.Groups, a.Roles, a.Expiry = raw.Count, raw.Groups, raw.Roles, 0
	if len(raw.Expiry) == 0 || string(raw.Expiry) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw.Expiry, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("approval expiry: %w", err)
		}
		a.Expiry = d
		return nil
	}
	var ns int64
	if err := json.Unmarshal(raw.Expiry, &ns); err != nil {
		return fmt.Errorf("approval expiry: %w", err)
	}
	a.Expiry = time.Duration(ns)
	return nil
}

// ChangeRequirement says a change ticket must be opened and approved in the
// ITSM before the deploy runs, and closed with its outcome.
type ChangeRequirement struct {
	Connector string `json:"connector"`
}

// Freeze is the freeze window a deploy falls in.
type Freeze struct {
	Window string    `json:"window"`
	Until  time.Time `json:"until"`
	// Overridden is true when the descriptor's freezeOverride was accepted.
	Overridden bool   `json:"overridden,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Targets are the targets a window narrowed to targets selects
	// (TargetFreezes); empty for a freeze of the whole environment.
	Targets []string `json:"targets,omitempty"`
}

// TargetFreezes is implemented by the governors whose freeze windows can
// be narrowed to targets by their labels (governance.freezes[].targets):
// such a window defers the waves of a rollout with a target it selects,
// instead of freezing the whole environment.
type TargetFreezes interface {
	// FrozenTargets returns the first window in force at in.Time that
	// selects one of targets, with when it ends and the targets it
	// selects; nil when none.
	FrozenTargets(ctx context.Context, in GovernanceInput, targets []Target) (*Freeze, error)
}

// PromotionCheck records the mandatory promotion a deploy satisfied.
type PromotionCheck struct {
	From string `json:"from"`
	// SatisfiedBy is the deploy of the same artifact that succeeded there.
	SatisfiedBy string `json:"satisfied_by"`
}

// PromotionOrder is implemented by the governors that can tell, ahead of
// a submission, where a deploy goes next: the environments whose
// mandatory promotion names its environment as the one to succeed in first.
type PromotionOrder interface {
	// NextEnvironments returns those environments, sorted, for a deploy
	// described by in (in.Environment its environment).
	NextEnvironments(in GovernanceInput) []string
}

// GovernanceInput is what governance decides on: the same for the YAML
// rules and the Rego policy.
type GovernanceInput struct {
	Identity    Identity          `json:"identity"`
	Tenant      string            `json:"tenant"`
	Application string            `json:"application"`
	Environment string            `json:"environment"`
	Labels      map[string]string `json:"labels"`
	Artifact    Artifact          `json:"artifact"`
	// FreezeOverride is the descriptor's reason to deploy in a freeze, if any.
	FreezeOverride string    `json:"freeze_override,omitempty"`
	Time           time.Time `json:"time"`
	// Inventory is the release in service of every environment of the application.
	Inventory []InventoryEntry `json:"inventory"`
}

// GovernanceRefusal is a refusal with every reason (freeze, missing promotion).
type GovernanceRefusal = Error

// Governor evaluates the governance rules of manent.yml or its Rego policy.
type Governor interface {
	// Decide returns the decision for a submission; a refusal is an *Error
	// with EUNPROCESSABLE and every reason in Fields.
	Decide(ctx context.Context, in GovernanceInput) (Decision, error)
	// Frozen returns the freeze window in force for the input at in.Time, if any.
	Frozen(ctx context.Context, in GovernanceInput) (*Freeze, error)
}

// FreezeWindow is one window of a freeze calendar, [Start, End) in UTC.
// Windows of the same rule that overlap or touch are one window, as they
// make one freeze.
type FreezeWindow struct {
	// Rule is the name of the freeze rule (the window of a refusal).
	Rule  string    `json:"rule"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Recurring is true when every part of the window is a tick of one
	// recurring window: Cron and TimeZone are then its own.
	Recurring bool   `json:"recurring"`
	Cron      string `json:"cron,omitempty"`
	TimeZone  string `json:"timezone,omitempty"`
}

// FreezeCalendar is implemented by the governors that can list their
// freeze windows ahead of time; it is separate from Governor so that a
// governor that cannot (or a fake) need not.
type FreezeCalendar interface {
	// Calendar returns the freeze windows matching in (tenant, application,
	// environment, labels) that intersect [from, to), sorted by start; a
	// window that began before from keeps its real start, one that goes on
	// after to its real end. In.Time is ignored.
	Calendar(ctx context.Context, in GovernanceInput, from, to time.Time) ([]FreezeWindow, error)
}

// Approval is one identity's answer to a deploy awaiting approval.
type Approval struct {
	DeploymentID string `json:"deployment_id"`
	// Pass is the wave of the rollout the answer is for (from 1), 0 for
	// the deploy's own approval.
	Pass     int       `json:"pass,omitempty"`
	Identity string    `json:"identity"`
	Approved bool      `json:"approved"`
	Comment  string    `json:"comment"`
	Time     time.Time `json:"time"`
}

// ChangeRequest is what a change ticket is opened for.
type ChangeRequest struct {
	DeploymentID string
	Application  string
	Environment  string
	Version      string
	Requester    string
	Description  string
}

// ChangeTicket is a change opened in the ITSM: ID addresses it in the
// ITSM's API, Number is what people see (CHG0030001).
type ChangeTicket struct {
	Connector string `json:"connector"`
	ID        string `json:"id"`
	Number    string `json:"number,omitempty"`
}

// ChangeState is the approval state of a change in the ITSM.
type ChangeState string

const (
	ChangePending  ChangeState = "pending"
	ChangeApproved ChangeState = "approved"
	ChangeRejected ChangeState = "rejected"
)

// ChangeConnector talks to an ITSM. Temporary failures are plain errors;
// failures that cannot improve are wrapped with Permanent.
type ChangeConnector interface {
	Open(ctx context.Context, ch ChangeRequest) (ChangeTicket, error)
	Status(ctx context.Context, ticketID string) (ChangeState, error)
	// Close closes the ticket with the deploy's outcome: success, error or cancelled.
	Close(ctx context.Context, deploymentID, ticketID, outcome string) error
}
