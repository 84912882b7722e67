package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// Change management: the approval workflow opens the ticket (change:open)
// before anything runs and waits for the ITSM's approval beside the human
// ones; the deploy workflow closes it with its outcome (change:close).
// Both are recorded as steps of the deploy, outside the plan's positions.
const (
	stepChangeOpen      = "change:open"
	stepChangeClose     = "change:close"
	changeOpenPosition  = -1
	changeClosePosition = 1000
)

type changeResult struct {
	Ticket    deploy.ChangeTicket `json:"ticket"`
	Cancelled bool                `json:"cancelled,omitempty"`
}

func ticketLabel(t *deploy.ChangeTicket) string {
	if t == nil {
		return ""
	}
	if t.Number != "" {
		return t.Number
	}
	return t.ID
}

func (e *Engine) changePollInterval() time.Duration {
	if d := e.cfg.Governance.ChangePollInterval; d > 0 {
		return d
	}
	return 30 * time.Second
}

func (e *Engine) changeStepOptions(name string) []dbos.StepOption {
	base := e.cfg.Pipeline.RetryInterval
	if base <= 0 {
		base = time.Second
	}
	return []dbos.StepOption{
		dbos.WithStepName(name), dbos.WithStepMaxRetries(5),
		dbos.WithStepBaseInterval(base), dbos.WithStepBackoffFactor(2),
		dbos.WithStepMaxInterval(max(e.cfg.Pipeline.RetryMaxInterval, base)),
		dbos.WithStepRetryPredicate(func(err error) bool { return !deploy.IsPermanent(err) }),
	}
}

// openChange opens the ticket; one attempt of the change:open step.
func (e *Engine) openChange(ctx context.Context, in ApprovalInput) (changeResult, error) {
	id := in.Deploy.ID
	step := deploy.PlannedStep{Name: stepChangeOpen, Type: "change"}
	cancelled, err := e.store.BeginStep(ctx, id, step, changeOpenPosition, time.Now().UTC())
	if err != nil {
		return changeResult{}, err
	}
	if cancelled {
		return changeResult{Cancelled: true}, nil
	}
	conn := e.changes[in.Change.Connector]
	if conn == nil {
		return changeResult{}, e.failChangeStep(ctx, id, step, changeOpenPosition,
			deploy.Permanentf("connector %q is not configured", in.Change.Connector))
	}
	d := in.Deploy.Descriptor
	t, err := conn.Open(ctx, deploy.ChangeRequest{
		DeploymentID: id, Application: d.Application, Environment: d.Environment,
		Version: d.Artifact.Version, Requester: in.Deploy.Requester,
		Description: fmt.Sprintf("Deploy %s %s to %s/%s (manent %s)", d.Artifact.Name, d.Artifact.Version, d.Tenant, d.Environment, id),
	})
	if err != nil {
		e.logLine(ctx, id, stepChangeOpen, "error", "open change ticket: %v", err)
		if deploy.IsPermanent(err) {
			return changeResult{}, e.failChangeStep(ctx, id, step, changeOpenPosition, err)
		}
		return changeResult{}, err
	}
	t.Connector = in.Change.Connector
	now := time.Now().UTC()
	out := map[string]string{"connector": t.Connector, "ticket": t.ID}
	if t.Number != "" {
		out["number"] = t.Number
	}
	if err := e.store.FinishStep(ctx, deploy.Step{DeploymentID: id, Name: stepChangeOpen, Position: changeOpenPosition,
		Type: "change", State: deploy.StepSuccess, FinishedAt: &now, Output: out}); err != nil {
		return changeResult{}, err
	}
	e.logLine(ctx, id, stepChangeOpen, "info", "change %s opened in %s; waiting for its approval", ticketLabel(&t), t.Connector)
	return changeResult{Ticket: t}, nil
}

func (e *Engine) failChangeStep(ctx context.Context, id string, step deploy.PlannedStep, pos int, cause error) error {
	now := time.Now().UTC()
	if err := e.store.FinishStep(ctx, deploy.Step{DeploymentID: id, Name: step.Name, Position: pos, Type: step.Type,
		State: deploy.StepError, FinishedAt: &now, Error: cause.Error()}); err != nil {
		return err
	}
	return cause
}

// closeChangeStep closes the ticket with the outcome, as the change:close
// step. A failure is recorded and logged but does not change the outcome:
// the release already happened (or did not).
func (e *Engine) closeChangeStep(ctx dbos.Context, id string, t *deploy.ChangeTicket, outcome string) {
	_, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		step := deploy.PlannedStep{Name: stepChangeClose, Type: "change"}
		start := time.Now().UTC()
		if err := e.store.FinishStep(c, deploy.Step{DeploymentID: id, Name: stepChangeClose, Position: changeClosePosition,
			Type: "change", State: deploy.StepRunning, Attempts: 1, StartedAt: &start}); err != nil {
			return false, err
		}
		conn := e.changes[t.Connector]
		if conn == nil {
			return false, e.failChangeStep(c, id, step, changeClosePosition, deploy.Permanentf("connector %q is not configured", t.Connector))
		}
		if err := conn.Close(c, id, t.ID, outcome); err != nil {
			e.logLine(c, id, stepChangeClose, "error", "close change %s: %v", ticketLabel(t), err)
			if deploy.IsPermanent(err) {
				return false, e.failChangeStep(c, id, step, changeClosePosition, err)
			}
			return false, err
		}
		now := time.Now().UTC()
		e.logLine(c, id, stepChangeClose, "info", "change %s closed: %s", ticketLabel(t), outcome)
		return true, e.store.FinishStep(c, deploy.Step{DeploymentID: id, Name: stepChangeClose, Position: changeClosePosition,
			Type: "change", State: deploy.StepSuccess, Attempts: 1, StartedAt: &start, FinishedAt: &now,
			Output: map[string]string{"ticket": t.ID, "outcome": outcome}})
	}, e.changeStepOptions(stepChangeClose)...)
	if err != nil {
		e.log.Warn("change:close failed", "deployment", id, "error", err)
	}
}

// endWait records the end of a wait that did not release the deploy.
func (e *Engine) endWait(ctx dbos.Context, in ApprovalInput, _ *deploy.ChangeTicket, state deploy.State, reason string) (DeployResult, error) {
	_, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		if err := e.store.FinishDeployment(c, deploy.Outcome{ID: in.Deploy.ID, State: state,
			Error: reason, FinishedAt: time.Now().UTC(), Actor: in.Deploy.Requester}); err != nil {
			return false, err
		}
		if state == deploy.StateDependencyFailed {
			e.audit(c, in.Deploy.Requester, "after.finish", in.Deploy.ID, map[string]any{
				"state": state, "reason": reason, "after": in.After})
		}
		e.wakeDependents(c, in.Deploy.ID)
		return true, nil
	}, dbos.WithStepName("manent.approvals.finish"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return DeployResult{}, err
	}
	return DeployResult{State: state, Error: reason}, nil
}

func (e *Engine) logLine(ctx context.Context, id, step, level, format string, args ...any) {
	err := e.store.AppendLog(ctx, deploy.LogLine{DeploymentID: id, Time: time.Now().UTC(), Step: step, Level: level,
		Message: fmt.Sprintf(format, args...)})
	if err != nil {
		e.log.Warn("append deploy log", "deployment", id, "error", err)
	}
}

// closeChangeOfCancelled closes the change ticket of a deploy cancelled
// after its wait (ENQUEUED): its workflow never runs, so it cannot close it.
func (e *Engine) closeChangeOfCancelled(ctx context.Context, d *deploy.Deployment) {
	if d.Decision.Change == nil {
		return
	}
	for _, s := range d.Steps {
		if s.Name != stepChangeOpen || s.State != deploy.StepSuccess || s.Output["ticket"] == "" {
			continue
		}
		t := deploy.ChangeTicket{Connector: s.Output["connector"], ID: s.Output["ticket"], Number: s.Output["number"]}
		conn := e.changes[t.Connector]
		start := time.Now().UTC()
		step := deploy.Step{DeploymentID: d.ID, Name: stepChangeClose, Position: changeClosePosition, Type: "change",
			Attempts: 1, StartedAt: &start}
		if conn == nil {
			return
		}
		err := conn.Close(ctx, d.ID, t.ID, "cancelled")
		now := time.Now().UTC()
		step.FinishedAt = &now
		if err != nil {
			step.State, step.Error = deploy.StepError, err.Error()
			e.log.Warn("close the change of a cancelled deploy", "deployment", d.ID, "error", err)
		} else {
			step.State, step.Output = deploy.StepSuccess, map[string]string{"ticket": t.ID, "outcome": "cancelled"}
		}
		if err := e.store.FinishStep(ctx, step); err != nil {
			e.log.Warn("record change:close", "deployment", d.ID, "error", err)
		}
	}
}
