package postgres

import (
	"context"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// ObservedRecorder is a Recorder that tells ended of every step it records
// as ended (the metrics time the steps with it). The call comes once the
// record is written, before its transaction commits: a transaction made
// again after the database failed may report a step twice, which a
// histogram of durations can bear.
type ObservedRecorder struct {
	*Recorder
	ended func(deploy.Step)
}

// NewObservedRecorder returns the Recorder of the manent schema that calls
// ended after recording the end of a step.
func NewObservedRecorder(ended func(deploy.Step)) *ObservedRecorder {
	return &ObservedRecorder{Recorder: NewRecorder(), ended: ended}
}

// Advance implements the engine's Recorder.
func (r *ObservedRecorder) Advance(ctx context.Context, q dbos.Querier, done *deploy.Step, fx deploy.StepEffects, next *deploy.Step, o deploy.BeginOptions) (*deploy.Begun, error) {
	b, err := r.Recorder.Advance(ctx, q, done, fx, next, o)
	if err == nil && done != nil {
		r.ended(*done)
	}
	return b, err
}
