package deploy

import "time"

// RolloutPlan is how a deploy's targets are rolled out: every target with
// its outcome, and the passes (waves) in order, each in batches. The
// planner (engine/rollout) computes it from the targets and the rollout;
// the steps from deploy to activation run once per batch.
type RolloutPlan struct {
	Passes []RolloutPass `json:"passes"`
	// Targets are every target of the deploy, in the order written, each
	// exactly once.
	Targets []PlannedTarget `json:"targets"`
}

// RolloutPass is one wave of the plan.
type RolloutPass struct {
	// Index is the pass's place, from 1; 0 is the single pass of a deploy
	// without rollout, whose steps carry no pass (StepKey).
	Index int    `json:"index"`
	Name  string `json:"name"`
	// Batches are in order, each of at most the wave's batch size; an
	// empty wave has none.
	Batches []RolloutBatch `json:"batches"`
	// Bake is the wait after the wave before its gates.
	Bake time.Duration `json:"bake,omitempty"`
	// Approval asks for approvals before the wave starts.
	Approval bool `json:"approval,omitempty"`
	// MaxFailures is the failed targets the wave tolerates, max_failures
	// resolved against its targets (a percentage rounds down), at most
	// one less than its targets: a wave never passes with all of them
	// failed.
	MaxFailures int `json:"max_failures"`
}

// Targets counts the targets of the pass.
func (p RolloutPass) Targets() int {
	n := 0
	for _, b := range p.Batches {
		n += len(b.Targets)
	}
	return n
}

// Select returns the targets of the pass among targets, in the order of
// targets (what its gates check): one pass over each, for waves of
// hundreds of targets.
func (p RolloutPass) Select(targets []Target) []Target {
	in := make(map[string]bool, p.Targets())
	for _, b := range p.Batches {
		for _, n := range b.Targets {
			in[n] = true
		}
	}
	out := make([]Target, 0, len(in))
	for _, t := range targets {
		if in[t.Name()] {
			out = append(out, t)
		}
	}
	return out
}

// RolloutBatch is the targets of a pass handled at once.
type RolloutBatch struct {
	// Index is the batch's place in its pass, from 1; 0 in the single pass
	// of a deploy without rollout.
	Index int `json:"index"`
	// Targets are the names (Target.Name) of the batch's targets, in the
	// order written.
	Targets []string `json:"targets"`
}

// Select returns the targets of the batch among targets, in its order.
func (b RolloutBatch) Select(targets []Target) []Target {
	byName := make(map[string]Target, len(targets))
	for _, t := range targets {
		byName[t.Name()] = t
	}
	out := make([]Target, 0, len(b.Targets))
	for _, n := range b.Targets {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// TargetOutcome is what the rollout does with a target.
type TargetOutcome string

// Every target has exactly one outcome.
const (
	// OutcomeTargeted: in a pass and a batch.
	OutcomeTargeted TargetOutcome = "targeted"
	// OutcomeExcluded: matched rollout.exclude; never touched.
	OutcomeExcluded TargetOutcome = "excluded"
	// OutcomeRejected: did not match rollout.rule; the deploy fails before
	// any target is touched.
	OutcomeRejected TargetOutcome = "rejected"
	// OutcomeDeferred: its wave waits for a freeze window to end. Decided
	// when the rollout runs, never by the planner.
	OutcomeDeferred TargetOutcome = "deferred"
)

// PlannedTarget is one target of the plan.
type PlannedTarget struct {
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels,omitempty"`
	Outcome TargetOutcome     `json:"outcome"`
	// Pass and Batch are the indexes of its pass and batch when targeted.
	Pass  int `json:"pass,omitempty"`
	Batch int `json:"batch,omitempty"`
	// Reason says why a target is excluded or rejected.
	Reason string `json:"reason,omitempty"`
}
