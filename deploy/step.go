package deploy

import (
	"fmt"
	"strings"
)

// StepTypeStandard is the type of the built-in steps; custom steps bring
// their own (http, command).
const StepTypeStandard = "standard"

// Kind is what the registry of step kinds knows the step by: the name of a
// standard step, the type of any other.
func (p PlannedStep) Kind() string {
	if p.Type == "" || p.Type == StepTypeStandard {
		return p.Name
	}
	return p.Type
}

// StepKey names one operation on a deploy's targets: a step of the plan,
// in a pass and batch of its rollout, on one target or (Target "") on the
// whole batch, as its run, dry run, checkpoint or compensation. Each key has
// its own record and its own idempotency key, so the batches of a wave and
// a compensation never collide with the run they follow.
type StepKey struct {
	Step   string   `json:"step"`
	Pass   int      `json:"pass,omitempty"`
	Batch  int      `json:"batch,omitempty"`
	Target string   `json:"target,omitempty"`
	Kind   StepKind `json:"kind"`
}

// Name is how statuses, logs and DBOS's records show the operation:
// "deploy", "checkpoint:deploy", "rollback:activation", with the pass and
// batch of a rollout ("deploy[1/2]"; "bake[1]" for what a whole pass does)
// and the target ("deploy@web-1").
func (k StepKey) Name() string {
	var b strings.Builder
	if k.Kind == KindCheckpoint || k.Kind == KindRollback {
		b.WriteString(string(k.Kind))
		b.WriteByte(':')
	}
	b.WriteString(k.Step)
	switch {
	case k.Pass != 0 && k.Batch == 0:
		fmt.Fprintf(&b, "[%d]", k.Pass)
	case k.Pass != 0 || k.Batch != 0:
		fmt.Fprintf(&b, "[%d/%d]", k.Pass, k.Batch)
	}
	if k.Target != "" {
		b.WriteByte('@')
		b.WriteString(k.Target)
	}
	return b.String()
}

// IdempotencyKey is the key of the operation on a deploy's targets, unique
// per deploy, step, pass, batch, target and kind; PluginRequest.TargetKey
// appends the target when Target is empty.
func (k StepKey) IdempotencyKey(deploymentID string) string {
	key := fmt.Sprintf("%s:%s:p%d:b%d:%s", deploymentID, k.Step, k.Pass, k.Batch, k.Kind)
	if k.Target != "" {
		key += ":" + k.Target
	}
	return key
}

// Key returns the key of the record.
func (s Step) Key() StepKey {
	kind := s.Kind
	if kind == "" {
		kind = KindRun
	}
	return StepKey{Step: s.Name, Pass: s.Pass, Batch: s.Batch, Target: s.Target, Kind: kind}
}
