package service

import (
	"fmt"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/rollout"
)

// planRollout plans the rollout of eff: nil for a deploy without one, or
// whose targets are not known yet (imported targets of a release the
// submission cannot read yet, which the config step plans); the planner's
// EUNPROCESSABLE when a target is rejected, with the plan it refuses (each
// target's outcome and reason), which the config step records.
func planRollout(eff deploy.Effective) (*deploy.RolloutPlan, error) {
	if eff.Rollout == nil || len(eff.Targets) == 0 {
		return nil, nil
	}
	p, err := rollout.Plan(eff.Targets, eff.Rollout)
	return &p, err
}

// rolloutOutput is the config step's account of the plan: "3 waves, 9
// targeted, 1 excluded".
func rolloutOutput(p *deploy.RolloutPlan) string {
	n := map[deploy.TargetOutcome]int{}
	for _, t := range p.Targets {
		n[t.Outcome]++
	}
	out := fmt.Sprintf("%d wave(s), %d targeted", len(p.Passes), n[deploy.OutcomeTargeted])
	if e := n[deploy.OutcomeExcluded]; e > 0 {
		out += fmt.Sprintf(", %d excluded", e)
	}
	return out
}
