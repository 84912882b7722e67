package graph

import (
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func toModelRolloutPlan(p *deploy.RolloutPlan) *model.RolloutPlan {
	if p == nil {
		return nil
	}
	out := &model.RolloutPlan{Passes: make([]model.RolloutPass, len(p.Passes)), Targets: make([]model.PlannedTarget, len(p.Targets))}
	for i, pass := range p.Passes {
		mp := model.RolloutPass{
			Index: pass.Index, Name: pass.Name, Batches: make([]model.RolloutBatch, len(pass.Batches)),
			BakeSeconds: int(pass.Bake / time.Second), Approval: pass.Approval, MaxFailures: pass.MaxFailures,
		}
		for j, b := range pass.Batches {
			mp.Batches[j] = model.RolloutBatch{Index: b.Index, Targets: nonNilStrings(b.Targets)}
		}
		out.Passes[i] = mp
	}
	for i, t := range p.Targets {
		mt := model.PlannedTarget{
			Name: t.Name, Labels: toModelKeyValues(t.Labels),
			Outcome: model.TargetOutcome(strings.ToUpper(string(t.Outcome))), Reason: optional(t.Reason),
		}
		if t.Outcome == deploy.OutcomeTargeted {
			pass, batch := t.Pass, t.Batch
			mt.Pass, mt.Batch = &pass, &batch
		}
		out.Targets[i] = mt
	}
	return out
}
