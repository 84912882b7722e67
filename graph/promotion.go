package graph

import (
	"context"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// The converters of schema/promotion.graphqls: an environment's page and
// what an approver needs to decide.

func toModelEnvironment(in *deploy.InventoryEntry) *model.Environment {
	entry := toModelInventory([]deploy.InventoryEntry{*in})[0]
	out := &model.Environment{Tenant: in.Tenant, Application: in.Application, Environment: in.Environment,
		LastFailure: entry.LastFailure}
	if in.DeploymentID != "" {
		out.InService = &entry
	}
	return out
}

// waveAwaitsApproval reports whether a wave of d's rollout waits for an
// approval now.
func waveAwaitsApproval(d *deploy.Deployment) bool {
	r := deploy.NewStatus(d).Rollout
	return r != nil && r.State == deploy.RolloutAwaitingApproval
}

// toModelApprovalContext tells an approver of d what is in service now
// (current, the inventory entry of d's environment) against what d
// proposes, the evidence of its promotion (read with get: the deploys of an
// inbox often share theirs), the rule in words and who may approve. A wave
// awaiting approval is described by its own requirement.
func toModelApprovalContext(ctx context.Context, svc deploy.Service, get func(id string) (*deploy.Deployment, error),
	d *deploy.Deployment, current *deploy.InventoryEntry,
) *model.ApprovalContext {
	out := &model.ApprovalContext{
		Proposed: toModelArtifact(d.Artifact), ProposedSha256: optional(d.Artifact.SHA256),
		PromotionEvidence: []model.PromotionEvidence{}, Explanation: d.Decision.Explain(d.Artifact),
		Approvers: &model.Approvers{Groups: []string{}, Roles: []string{},
			Holders: nonNilStrings(svc.Holders(ctx, d.Resource(), deploy.PermApprove)), Excluded: d.Requester},
	}
	if out.ProposedSha256 == nil {
		out.ProposedSha256 = optional(d.SHA256)
	}
	if current.DeploymentID != "" {
		out.InService = &toModelInventory([]deploy.InventoryEntry{*current})[0]
	}
	if req := d.Decision.Approvals; req != nil {
		out.Approvers.Required, out.Approvers.Groups, out.Approvers.Roles = req.Count, nonNilStrings(req.Groups), nonNilStrings(req.Roles)
	}
	if r := deploy.NewStatus(d).Rollout; r != nil && r.State == deploy.RolloutAwaitingApproval {
		for _, w := range r.Waves {
			if w.State == deploy.WaveAwaitingApproval && w.Approval != nil {
				out.Approvers.Required, out.Approvers.Groups, out.Approvers.Roles = w.Approval.Required,
					nonNilStrings(w.Approval.Groups), nonNilStrings(w.Approval.Roles)
				break
			}
		}
	}
	if p := d.Decision.Promotion; p != nil {
		ev := model.PromotionEvidence{Environment: p.From, Version: d.Artifact.Version}
		// The evidence links to the deploy only for a viewer who may read it,
		// and only to a deploy of this application and tenant where the rule
		// says: a Rego policy may name any ID, and one elsewhere (another
		// tenant's, even one the viewer reads) proves nothing of this one.
		if src, err := get(p.SatisfiedBy); err == nil && src.Tenant == d.Tenant &&
			src.Application == d.Application && src.Environment == p.From {
			ev.DeploymentID, ev.FinishedAt, ev.Version = &src.ID, src.FinishedAt, src.Artifact.Version
		}
		out.PromotionEvidence = append(out.PromotionEvidence, ev)
	}
	return out
}

// failedStep is the display name of the step a deploy failed in: its last
// run (or dry run) that ended ERROR; nil when none did.
func failedStep(d *deploy.Deployment) *string {
	var name string
	for _, s := range d.Timeline() {
		if s.State == deploy.StepError && s.Kind != deploy.KindCheckpoint {
			name = s.Key().Name()
		}
	}
	return optional(name)
}
