package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
)

// Change management: the wait workflow opens the ticket (change:open)
// before anything runs and waits for the ITSM's approval beside the human
// ones; the deploy workflow closes it with its outcome (change:close).
// Both are operations of the deploy, recorded outside the plan's positions.
const (
	changeOpenPosition  = -1
	changeClosePosition = 1000
	changeRetries       = 5
	changeTimeout       = time.Minute
)

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

func changeStep(name string) deploy.PlannedStep {
	return deploy.PlannedStep{Name: name, Type: "change", MaxRetries: changeRetries, Timeout: changeTimeout}
}

// openChange opens the change ticket of a waiting deploy as the change:open
// operation; the ticket is nil when a cancel came first, and the error
// says why the change could not be opened (without a ticket the deploy
// does not start).
func (e *Engine) openChange(ctx dbos.Context, in *WaitInput) (*deploy.ChangeTicket, string, error) {
	id := in.ID
	req := in.Wait.Change
	o := op{deployID: id, key: deploy.StepKey{Step: stepChangeOpen, Kind: deploy.KindRun}, step: changeStep(stepChangeOpen),
		pos: changeOpenPosition, begin: deploy.BeginOptions{HonourCancel: true}}
	o.do = func(c context.Context, _ int) (steps.Result, error) {
		conn := e.changes[req.Connector]
		if conn == nil {
			return steps.Result{}, deploy.Permanentf("connector %q is not configured", req.Connector)
		}
		// The database away is no failure of the ITSM's: waited out.
		j, err := untilAvailable(c, func() (deploy.Job, error) { return e.job(c, in) })
		if err != nil {
			return steps.Result{}, deploy.Permanent(err)
		}
		d := j.Descriptor
		t, err := conn.Open(c, deploy.ChangeRequest{
			DeploymentID: id, Application: d.Application, Environment: d.Environment,
			Version: d.Artifact.Version, Requester: j.Requester,
			Description: fmt.Sprintf("Deploy %s %s to %s/%s (manent %s)", d.Artifact.Name, d.Artifact.Version, d.Tenant, d.Environment, id),
		})
		if err != nil {
			return steps.Result{}, fmt.Errorf("open change ticket: %w", err)
		}
		out := map[string]string{"connector": req.Connector, "ticket": t.ID}
		if t.Number != "" {
			out["number"] = t.Number
		}
		t.Connector = req.Connector
		e.logLine(id, stepChangeOpen, "info", "change %s opened in %s; waiting for its approval", ticketLabel(&t), t.Connector)
		return steps.Result{Output: out}, nil
	}
	w, cancelled, err := e.runOp(ctx, o)
	if err != nil || cancelled {
		return nil, "", err
	}
	if w.Failed {
		return nil, w.Error, nil
	}
	out := w.Result.Output
	return &deploy.ChangeTicket{Connector: out["connector"], ID: out["ticket"], Number: out["number"]}, "", nil
}

// closeChange closes the ticket with the deploy's outcome, as the
// change:close operation. A failure is recorded and logged but does not
// change the outcome: the release already happened (or did not).
func (e *Engine) closeChange(ctx dbos.Context, id string, t *deploy.ChangeTicket, outcome string) {
	o := op{deployID: id, key: deploy.StepKey{Step: stepChangeClose, Kind: deploy.KindRun}, step: changeStep(stepChangeClose),
		pos: changeClosePosition}
	o.do = func(c context.Context, _ int) (steps.Result, error) {
		conn := e.changes[t.Connector]
		if conn == nil {
			return steps.Result{}, deploy.Permanentf("connector %q is not configured", t.Connector)
		}
		if err := conn.Close(c, id, t.ID, outcome); err != nil {
			return steps.Result{}, fmt.Errorf("close change %s: %w", ticketLabel(t), err)
		}
		e.logLine(id, stepChangeClose, "info", "change %s closed: %s", ticketLabel(t), outcome)
		return steps.Result{Output: map[string]string{"ticket": t.ID, "outcome": outcome}}, nil
	}
	if w, _, err := e.runOp(ctx, o); err != nil {
		e.log.Warn("change:close not recorded", "deployment", id, "error", err)
	} else if w.Failed {
		e.log.Warn("change:close failed", "deployment", id, "error", w.Error)
	}
}

// runOp runs an operation on its own: start, work, end.
func (e *Engine) runOp(ctx dbos.Context, o op) (workResult, bool, error) {
	if !e.gate.open() {
		return workResult{}, false, parked(ctx)
	}
	b, live, err := e.beginOp(ctx, o)
	if err != nil {
		return workResult{}, false, err
	}
	if b.Cancelled {
		if live {
			e.gate.leave()
		}
		return workResult{}, true, nil
	}
	if !live && !e.gate.enter() {
		return workResult{}, false, parked(ctx)
	}
	defer e.gate.leave()
	w, err := e.stepOp(ctx, o, live, nothingAfter)
	if err != nil {
		return workResult{}, false, err
	}
	return w, false, nil
}

// closeChangeOfCancelled closes the change ticket of a deploy cancelled
// after its wait (ENQUEUED): its workflow never runs, so it cannot.
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
		if conn == nil {
			return
		}
		start := time.Now().UTC()
		rec := deploy.Step{DeploymentID: d.ID, Name: stepChangeClose, Kind: deploy.KindRun, Position: changeClosePosition,
			Type: "change", Attempts: 1, Runs: 1, StartedAt: &start}
		err := conn.Close(ctx, d.ID, t.ID, "cancelled")
		now := time.Now().UTC()
		rec.FinishedAt = &now
		if err != nil {
			rec.State, rec.Error = deploy.StepError, err.Error()
			e.log.Warn("close the change of a cancelled deploy", "deployment", d.ID, "error", err)
		} else {
			rec.State, rec.Output = deploy.StepSuccess, map[string]string{"ticket": t.ID, "outcome": "cancelled"}
		}
		if err := e.inTx(ctx, func(q dbos.Querier) error {
			_, err := e.rec.Advance(ctx, q, &rec, deploy.StepEffects{}, nil, deploy.BeginOptions{})
			return err
		}); err != nil {
			e.log.Warn("record change:close", "deployment", d.ID, "error", err)
		}
	}
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
