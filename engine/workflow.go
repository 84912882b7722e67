package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// DeployResult is the workflow's output.
type DeployResult struct {
	State deploy.State `json:"state"`
	Error string       `json:"error,omitempty"`
}

// stepResult is what one pipeline step returns to the workflow; DBOS stores
// it, so a resumed deploy sees the same values (the effective deploy of
// the config step, the digest of the artifacts step).
type stepResult struct {
	Cancelled bool              `json:"cancelled,omitempty"`
	Output    map[string]string `json:"output,omitempty"`
	Effective *deploy.Effective `json:"effective,omitempty"`
	SHA256    string            `json:"sha256,omitempty"`
}

// deployWorkflow is the durable deploy. It only orchestrates: every side
// effect happens inside a step, and the sequence depends only on the
// input and on step results.
func (e *Engine) deployWorkflow(ctx dbos.Context, in DeployInput) (DeployResult, error) {
	started, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		if err := e.checkFence(c); err != nil {
			return false, err
		}
		return e.store.MarkStarted(c, in.ID, time.Now().UTC())
	}, dbos.WithStepName("manent.start"), dbos.WithStepMaxRetries(5))
	if err != nil {
		return DeployResult{}, fmt.Errorf("mark deploy started: %w", err)
	}
	if !started {
		// Cancelled while it waited in the queue: nothing ran; a change
		// ticket opened while it waited is closed.
		if in.Change != nil {
			e.closeChangeStep(ctx, in.ID, in.Change, "cancelled")
		}
		return DeployResult{State: deploy.StateCancelled}, nil
	}

	r := &run{e: e, in: in, eff: in.Effective}
	outcome := DeployResult{State: deploy.StateSuccess}
	var rest []deploy.PlannedStep
	for i, step := range in.Plan.Steps {
		if step.Name == deploy.StepCleanup {
			continue
		}
		res, err := dbos.RunAsStep(ctx, r.stepFunc(step, i), r.stepOptions(step)...)
		if err != nil {
			msg := stepErrorMessage(r, step, err)
			// The message recorded by this step is the one used from here on,
			// also by a replay (which only has DBOS's text of the error).
			msg, ferr := dbos.RunAsStep(ctx, func(c context.Context) (string, error) {
				return msg, r.fail(c, step, i, msg)
			}, dbos.WithStepName("manent.fail:"+step.Name), dbos.WithStepMaxRetries(5))
			if ferr != nil {
				return DeployResult{}, ferr
			}
			outcome = DeployResult{State: deploy.StateError, Error: fmt.Sprintf("step %s failed: %s", step.Name, msg)}
			rest = remaining(in.Plan.Steps, i+1)
			break
		}
		if res.Cancelled {
			outcome = DeployResult{State: deploy.StateCancelled, Error: "cancelled before step " + step.Name}
			rest = remaining(in.Plan.Steps, i)
			break
		}
		r.apply(step.Name, res)
	}

	// Exports are checked when the deploy succeeds: a value outside its
	// format or pattern fails it, so its dependents never start with it.
	if outcome.State == deploy.StateSuccess && len(in.Descriptor.Exports) > 0 && !in.Descriptor.DryRun {
		msg, err := dbos.RunAsStep(ctx, func(c context.Context) (string, error) {
			exports, err := exportsOf(in.Descriptor, r.outputs)
			if err != nil {
				if deploy.IsPermanent(err) || deploy.ErrorCode(err) == deploy.EUNPROCESSABLE {
					r.logf(c, "", "error", "%s", deploy.ErrorMessage(err))
					return deploy.ErrorMessage(err), nil
				}
				return "", err
			}
			return "", e.store.SetExports(c, in.ID, exports)
		}, dbos.WithStepName("manent.exports"), dbos.WithStepMaxRetries(5))
		if err != nil {
			return DeployResult{}, fmt.Errorf("record exports: %w", err)
		}
		if msg != "" {
			outcome = DeployResult{State: deploy.StateError, Error: msg}
		}
	}

	skipped := deploy.StepSkipped
	if outcome.State == deploy.StateCancelled {
		skipped = deploy.StepCancelled
	}
	if len(rest) > 0 {
		if _, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
			return true, e.store.SkipSteps(c, in.ID, rest, skipped)
		}, dbos.WithStepName("manent.skip"), dbos.WithStepMaxRetries(5)); err != nil {
			return DeployResult{}, err
		}
	}

	// Cleanup runs on success, error and cancel alike: it only removes the
	// deploy's working directory.
	if pos, ok := position(in.Plan.Steps, deploy.StepCleanup); ok {
		step := in.Plan.Steps[pos]
		if _, err := dbos.RunAsStep(ctx, r.cleanupFunc(step, pos), r.stepOptions(step)...); err != nil {
			e.log.Warn("cleanup failed", "deployment", in.ID, "error", err)
		}
	}

	if in.Change != nil {
		e.closeChangeStep(ctx, in.ID, in.Change, changeOutcome(outcome.State))
	}

	_, err = dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		return true, r.finish(c, outcome)
	}, dbos.WithStepName("manent.finish"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return DeployResult{}, fmt.Errorf("record outcome: %w", err)
	}
	return outcome, nil
}

func (r *run) stepOptions(step deploy.PlannedStep) []dbos.StepOption {
	base := r.e.cfg.Pipeline.RetryInterval
	if base <= 0 {
		base = time.Second
	}
	maxInterval := r.e.cfg.Pipeline.RetryMaxInterval
	if maxInterval < base {
		maxInterval = base
	}
	return []dbos.StepOption{
		dbos.WithStepName(step.Name),
		dbos.WithStepMaxRetries(step.MaxRetries),
		dbos.WithStepBaseInterval(base),
		dbos.WithStepBackoffFactor(2),
		dbos.WithStepMaxInterval(maxInterval),
		dbos.WithStepRetryPredicate(func(err error) bool { return !deploy.IsPermanent(err) }),
	}
}

func remaining(steps []deploy.PlannedStep, from int) []deploy.PlannedStep {
	var out []deploy.PlannedStep
	for _, s := range steps[from:] {
		if s.Name != deploy.StepCleanup {
			out = append(out, s)
		}
	}
	return out
}

func position(steps []deploy.PlannedStep, name string) (int, bool) {
	for i, s := range steps {
		if s.Name == name {
			return i, true
		}
	}
	return 0, false
}

// stepErrorMessage prefers the last attempt's own error over DBOS's
// wrapping ("exceeded its maximum of N retries: ..."), which is only
// available in the process that ran the attempts.
func stepErrorMessage(r *run, step deploy.PlannedStep, err error) string {
	if msg, ok := r.lastError(step.Name); ok {
		return msg
	}
	return err.Error()
}

func changeOutcome(s deploy.State) string {
	switch s {
	case deploy.StateSuccess:
		return "success"
	case deploy.StateCancelled:
		return "cancelled"
	}
	return "error"
}
