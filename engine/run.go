package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"manent.dev/manent/deploy"
)

// run is the in-memory side of one execution of a deploy workflow. It holds
// nothing that a resumed workflow could not rebuild from step results.
type run struct {
	e   *Engine
	in  DeployInput
	eff deploy.Effective
	sha string

	mu      sync.Mutex
	lastErr map[string]string
	// outputs are the outputs of the steps run so far, for the exports.
	outputs map[string]map[string]string
}

func (r *run) apply(step string, res stepResult) {
	if r.outputs == nil {
		r.outputs = map[string]map[string]string{}
	}
	if res.Output != nil {
		r.outputs[step] = res.Output
	}
	if res.Effective != nil {
		r.eff = *res.Effective
	}
	if res.SHA256 != "" {
		r.sha = res.SHA256
	}
}

func (r *run) setLastError(step, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastErr == nil {
		r.lastErr = map[string]string{}
	}
	r.lastErr[step] = msg
}

func (r *run) lastError(step string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	msg, ok := r.lastErr[step]
	return msg, ok
}

// workDir is the deploy's working directory on this worker.
func (r *run) workDir() string {
	return filepath.Join(r.e.cfg.Server.WorkDir, r.in.ID)
}

// logf appends a line to the deploy log; a failure to log never fails a step.
func (r *run) logf(ctx context.Context, step, level, format string, args ...any) {
	line := deploy.LogLine{
		DeploymentID: r.in.ID, Time: time.Now().UTC(), Step: step, Level: level,
		Message: fmt.Sprintf(format, args...),
	}
	if err := r.e.store.AppendLog(ctx, line); err != nil {
		r.e.log.Warn("append deploy log", "deployment", r.in.ID, "error", err)
	}
}

// stepFunc returns the function DBOS runs for one attempt of a step.
func (r *run) stepFunc(step deploy.PlannedStep, pos int) func(context.Context) (stepResult, error) {
	return func(ctx context.Context) (stepResult, error) {
		if err := r.e.checkFence(ctx); err != nil {
			return stepResult{}, err
		}
		cancelled, err := r.e.store.BeginStep(ctx, r.in.ID, step, pos, time.Now().UTC())
		if err != nil {
			return stepResult{}, fmt.Errorf("record step start: %w", err)
		}
		if cancelled {
			r.logf(ctx, step.Name, "warn", "cancelled: step %s not started", step.Name)
			return stepResult{Cancelled: true}, nil
		}
		start := time.Now()
		r.logf(ctx, step.Name, "info", "step %s started", step.Name)
		sctx := ctx
		if step.Timeout > 0 {
			var cancel context.CancelFunc
			sctx, cancel = context.WithTimeout(ctx, step.Timeout)
			defer cancel()
		}
		res, err := r.execute(sctx, step)
		switch {
		case errors.Is(sctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("timed out after %s", step.Timeout)
		case err == nil && sctx.Err() != nil:
			err = sctx.Err()
		}
		if err != nil {
			kind := "temporary"
			if deploy.IsPermanent(err) {
				kind = "permanent"
			}
			r.setLastError(step.Name, err.Error())
			r.logf(ctx, step.Name, "error", "step %s attempt failed (%s error): %v", step.Name, kind, err)
			return stepResult{}, err
		}
		finished := time.Now().UTC()
		if err := r.e.store.FinishStep(ctx, deploy.Step{
			DeploymentID: r.in.ID, Name: step.Name, Position: pos, Type: step.Type,
			State: deploy.StepSuccess, FinishedAt: &finished, Output: res.Output,
		}); err != nil {
			return stepResult{}, fmt.Errorf("record step end: %w", err)
		}
		r.logf(ctx, step.Name, "info", "step %s succeeded in %s", step.Name, time.Since(start).Round(time.Millisecond))
		return res, nil
	}
}

// fail records a step that failed for good.
func (r *run) fail(ctx context.Context, step deploy.PlannedStep, pos int, msg string) error {
	if err := r.e.checkFence(ctx); err != nil {
		return err
	}
	now := time.Now().UTC()
	return r.e.store.FinishStep(ctx, deploy.Step{
		DeploymentID: r.in.ID, Name: step.Name, Position: pos, Type: step.Type,
		State: deploy.StepError, FinishedAt: &now, Error: msg,
	})
}

// cleanupFunc removes the working directory. It does not look at cancel
// requests: it must run after a cancel too.
func (r *run) cleanupFunc(step deploy.PlannedStep, pos int) func(context.Context) (stepResult, error) {
	return func(ctx context.Context) (stepResult, error) {
		if err := r.e.checkFence(ctx); err != nil {
			return stepResult{}, err
		}
		started := time.Now().UTC()
		err := os.RemoveAll(r.workDir())
		state, msg := deploy.StepSuccess, ""
		if err != nil {
			state, msg = deploy.StepError, err.Error()
		}
		finished := time.Now().UTC()
		if ferr := r.e.store.FinishStep(ctx, deploy.Step{
			DeploymentID: r.in.ID, Name: step.Name, Position: pos, Type: step.Type, State: state,
			Attempts: 1, StartedAt: &started, FinishedAt: &finished, Error: msg,
			Output: map[string]string{"removed": r.workDir()},
		}); ferr != nil {
			return stepResult{}, ferr
		}
		if err != nil {
			return stepResult{}, fmt.Errorf("remove working directory: %w", err)
		}
		r.logf(ctx, step.Name, "info", "working directory removed")
		return stepResult{}, nil
	}
}

// finish records the outcome: state, digest, inventory and audit.
func (r *run) finish(ctx context.Context, out DeployResult) error {
	if err := r.e.checkFence(ctx); err != nil {
		return err
	}
	r.logf(ctx, "", levelFor(out.State), "deploy finished: %s%s", out.State, suffix(out.Error))
	if err := r.e.store.FinishDeployment(ctx, deploy.Outcome{
		ID: r.in.ID, State: out.State, Error: out.Error, SHA256: r.sha,
		FinishedAt: time.Now().UTC(), Actor: r.in.Requester,
	}); err != nil {
		return err
	}
	// Completion item 5: wake the deploys waiting on this one.
	r.e.wakeDependents(ctx, r.in.ID)
	return nil
}

func levelFor(s deploy.State) string {
	if s == deploy.StateSuccess {
		return "info"
	}
	return "error"
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + msg + ")"
}
