package metrics

import (
	"slices"
	"strings"

	"manent.dev/manent/deploy"
)

// namedSteps are the steps whose name is a label value: manent's own,
// a fixed list. Custom steps are named by each manent.yml, so they share
// the value custom and are told apart by their type.
var namedSteps = []string{
	deploy.StepConfig, deploy.StepSecrets, deploy.StepArtifacts, deploy.StepQA, deploy.StepDeploy,
	deploy.StepPostTest, deploy.StepActivation, deploy.StepCleanup,
	deploy.StepBake, deploy.StepGates, deploy.StepApproval, deploy.StepPause, deploy.StepDefer,
	stepChange,
}

// stepChange is the name the change tickets' steps (change:open,
// change:close) share.
const stepChange = "change"

// StepEnded observes the duration of a step recorded as ended. A step
// without both times (one skipped or cancelled before it ran) is not
// observed.
func (m *Metrics) StepEnded(s deploy.Step) {
	if s.StartedAt == nil || s.FinishedAt == nil {
		return
	}
	d := s.FinishedAt.Sub(*s.StartedAt).Seconds()
	if d < 0 {
		d = 0
	}
	step, typ := stepLabels(s)
	m.steps.WithLabelValues(step, typ, string(s.Kind), string(s.State)).Observe(d)
}

// stepLabels returns the step and type labels of s: a wave's operations
// (bake[2], pause[2/1]) and the change steps (change:open) by their base
// name; a custom step as custom with its type (http, command).
func stepLabels(s deploy.Step) (step, typ string) {
	base, _, _ := strings.Cut(s.Name, "[")
	base, _, _ = strings.Cut(base, ":")
	if slices.Contains(namedSteps, base) {
		return base, "standard"
	}
	return "custom", boundedType(s.Type)
}

// boundedType keeps a custom step's type as a label value only when it
// looks like the name of a kind (http, command): a type is a name of the
// registry of kinds, and anything else becomes other.
func boundedType(t string) string {
	if t == "" || len(t) > 32 || strings.IndexFunc(t, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_'
	}) >= 0 {
		return "other"
	}
	return t
}
