package server

import (
	"time"

	"manent.dev/manent/deploy"
)

// rolloutPlanJSON is the rollout of a validation, snake_case, durations in
// seconds: the shape manent validate -o json prints.
type rolloutPlanJSON struct {
	Passes  []rolloutPassJSON   `json:"passes"`
	Targets []plannedTargetJSON `json:"targets"`
}

type rolloutPassJSON struct {
	Index       int                `json:"index"`
	Name        string             `json:"name"`
	BakeSeconds int64              `json:"bake_seconds"`
	Approval    bool               `json:"approval"`
	MaxFailures int                `json:"max_failures"`
	Batches     []rolloutBatchJSON `json:"batches"`
}

type rolloutBatchJSON struct {
	Index   int      `json:"index"`
	Targets []string `json:"targets"`
}

type plannedTargetJSON struct {
	Name    string               `json:"name"`
	Labels  map[string]string    `json:"labels"`
	Outcome deploy.TargetOutcome `json:"outcome"`
	Pass    *int                 `json:"pass"`
	Batch   *int                 `json:"batch"`
	Reason  *string              `json:"reason"`
}

func toRolloutPlanJSON(p *deploy.RolloutPlan) *rolloutPlanJSON {
	if p == nil {
		return nil
	}
	out := &rolloutPlanJSON{Passes: make([]rolloutPassJSON, len(p.Passes)), Targets: make([]plannedTargetJSON, len(p.Targets))}
	for i, pass := range p.Passes {
		pj := rolloutPassJSON{Index: pass.Index, Name: pass.Name, BakeSeconds: int64(pass.Bake / time.Second),
			Approval: pass.Approval, MaxFailures: pass.MaxFailures, Batches: make([]rolloutBatchJSON, len(pass.Batches))}
		for j, b := range pass.Batches {
			pj.Batches[j] = rolloutBatchJSON{Index: b.Index, Targets: b.Targets}
		}
		out.Passes[i] = pj
	}
	for i, t := range p.Targets {
		tj := plannedTargetJSON{Name: t.Name, Labels: nonNilMap(t.Labels), Outcome: t.Outcome}
		if t.Outcome == deploy.OutcomeTargeted {
			pass, batch := t.Pass, t.Batch
			tj.Pass, tj.Batch = &pass, &batch
		}
		if t.Reason != "" {
			reason := t.Reason
			tj.Reason = &reason
		}
		out.Targets[i] = tj
	}
	return out
}
