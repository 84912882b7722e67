package graph

import (
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// The converters of the automatic rollback (schema/rollback.graphqls) and of
// the step kinds. The domain spells its values in lower case, the schema's
// enums in upper case: the maps below are the one place they meet, and a
// test holds them to deploy.StepKinds and to the schema's enums.

var stepKinds = map[deploy.StepKind]model.StepKind{
	deploy.KindRun:        model.StepKindRun,
	deploy.KindDryRun:     model.StepKindDryRun,
	deploy.KindCheckpoint: model.StepKindCheckpoint,
	deploy.KindRollback:   model.StepKindRollback,
}

var rollbackStates = map[string]model.RollbackState{
	deploy.RollbackRunning:   model.RollbackStateRunning,
	deploy.RollbackCompleted: model.RollbackStateCompleted,
	deploy.RollbackFailed:    model.RollbackStateFailed,
	deploy.RollbackNotNeeded: model.RollbackStateNotNeeded,
	deploy.RollbackDisabled:  model.RollbackStateDisabled,
}

// toModelStepKind reads a record without a kind (written before kinds
// existed) as a run, as deploy.Step.Key does.
func toModelStepKind(k deploy.StepKind) model.StepKind {
	if m, ok := stepKinds[k]; ok {
		return m
	}
	return model.StepKindRun
}

// toModelRollbackState returns nil for "" (not decided) and for a value
// this server does not know, which a newer worker may have written.
func toModelRollbackState(s string) *model.RollbackState {
	m, ok := rollbackStates[s]
	if !ok {
		return nil
	}
	return &m
}

// toModelRollback is the rollback section of the status JSON (which decides
// when there is one, and that it is running before its outcome is
// recorded), with the compensations as steps. An outcome this server does
// not know (written by a newer worker) reads as running: the enum has no
// word for it.
func toModelRollback(d *deploy.Deployment, st *deploy.RollbackStatus, now time.Time) *model.Rollback {
	if st == nil {
		return nil
	}
	state := toModelRollbackState(st.State)
	if state == nil {
		running := model.RollbackStateRunning
		state = &running
	}
	comps := d.Compensations()
	steps := make([]model.Step, len(comps))
	for i, s := range comps {
		steps[i] = toModelStep(s, now)
	}
	return &model.Rollback{State: *state, Steps: steps}
}

func toModelRollbackPolicy(p deploy.RollbackPolicy) *model.RollbackPolicy {
	return &model.RollbackPolicy{Enabled: p.Enabled, On: nonNilStrings(p.On)}
}

func toModelLastFailure(f *deploy.LastFailure) *model.LastFailure {
	if f == nil {
		return nil
	}
	return &model.LastFailure{
		DeploymentID: f.DeploymentID, Step: optional(f.Step), Error: optional(f.Error),
		FinishedAt: f.FinishedAt, Rollback: toModelRollbackState(f.Rollback),
	}
}
