package deploy

import (
	"context"
	"time"
)

// ApprovalRequirement is what an approval rule asks of a deploy.
type ApprovalRequirement struct {
	// Count distinct identities other than the requester must approve.
	Count int `json:"count"`
	// Groups, when set, restricts approvers to members of one of them.
	Groups []string `json:"groups,omitempty"`
	// Expiry is how long approvals may take before the deploy is EXPIRED.
	Expiry time.Duration `json:"expiry"`
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
}

// PromotionCheck records the mandatory promotion a deploy satisfied.
type PromotionCheck struct {
	From string `json:"from"`
	// SatisfiedBy is the deploy of the same artifact that succeeded there.
	SatisfiedBy string `json:"satisfied_by"`
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

// Approval is one identity's answer to a deploy awaiting approval.
type Approval struct {
	DeploymentID string    `json:"deployment_id"`
	Identity     string    `json:"identity"`
	Approved     bool      `json:"approved"`
	Comment      string    `json:"comment"`
	Time         time.Time `json:"time"`
}
