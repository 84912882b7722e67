package graph

import (
	"context"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func toModelRolloutPlan(p *deploy.RolloutPlan) *model.RolloutPlan {
	if p == nil {
		return nil
	}
	out := &model.RolloutPlan{Passes: make([]model.RolloutPass, len(p.Passes)), Targets: make([]model.PlannedTarget, len(p.Targets))}
	for i, pass := range p.Passes {
		mp := model.RolloutPass{
			Index: pass.Index, Name: pass.Name, Batches: make([]model.RolloutBatch, len(pass.Batches)),
			BakeSeconds: int(pass.Bake / time.Second), Approval: pass.Approval, MaxFailures: pass.MaxFailures,
		}
		for j, b := range pass.Batches {
			mp.Batches[j] = model.RolloutBatch{Index: b.Index, Targets: nonNilStrings(b.Targets)}
		}
		out.Passes[i] = mp
	}
	for i, t := range p.Targets {
		mt := model.PlannedTarget{
			Name: t.Name, Labels: toModelKeyValues(t.Labels),
			Outcome: model.TargetOutcome(strings.ToUpper(string(t.Outcome))), Reason: optional(t.Reason),
		}
		if t.Outcome == deploy.OutcomeTargeted {
			pass, batch := t.Pass, t.Batch
			mt.Pass, mt.Batch = &pass, &batch
		}
		out.Targets[i] = mt
	}
	return out
}

// toModelRollout converts the rollout section of the status, so that the
// GraphQL Rollout and the status JSON never tell two stories. The domain's
// states are lower case (pending, no_data) or already the step vocabulary
// (SUCCESS, ROLLED_BACK); the schema's enums are their upper-case spelling.
func toModelRollout(r *deploy.RolloutStatus) *model.Rollout {
	if r == nil {
		return nil
	}
	out := &model.Rollout{
		State:       model.RolloutState(strings.ToUpper(string(r.State))),
		CurrentWave: r.CurrentWave,
		Waves:       make([]model.RolloutWave, len(r.Waves)),
		Targets:     make([]model.RolloutTarget, len(r.Targets)),
		Pause:       toModelRolloutPause(r.Pause),
		Request:     toModelRolloutRequest(r.Request),
	}
	for i, w := range r.Waves {
		out.Waves[i] = toModelRolloutWave(w)
	}
	for i, t := range r.Targets {
		out.Targets[i] = toModelRolloutTarget(t)
		if t.Outcome == deploy.OutcomeTargeted || t.Outcome == deploy.OutcomeDeferred {
			out.TargetsTotal++
			if t.State == deploy.StepSuccess {
				out.TargetsDone++
			}
		}
	}
	return out
}

func toModelRolloutWave(w deploy.RolloutWaveStatus) model.RolloutWave {
	out := model.RolloutWave{
		Name: w.Name, State: model.WaveState(strings.ToUpper(string(w.State))),
		Targets: nonNilStrings(w.Targets), Batches: make([]model.RolloutBatchStatus, len(w.Batches)),
		Gate: toModelRolloutGate(w.Gate), Approval: toModelApproval(w.Approval), DeferredUntil: utcTime(w.DeferredUntil),
	}
	for i, b := range w.Batches {
		out.Batches[i] = model.RolloutBatchStatus{
			Index: b.Index, Targets: nonNilStrings(b.Targets), State: toModelRolloutStepState(b.State),
			StartedAt: utcTime(b.StartedAt), FinishedAt: utcTime(b.FinishedAt),
		}
	}
	if b := w.Bake; b != nil {
		out.Bake = &model.RolloutBake{Seconds: b.Seconds, Until: utcTime(b.Until)}
	}
	return out
}

func toModelRolloutGate(g *deploy.RolloutGate) *model.RolloutGate {
	if g == nil {
		return nil
	}
	out := &model.RolloutGate{State: toModelGateResult(g.State), Checks: make([]model.RolloutGateCheck, len(g.Checks)), At: utcTime(g.At)}
	for i, c := range g.Checks {
		out.Checks[i] = model.RolloutGateCheck{Name: c.Name, State: toModelGateResult(c.State), Value: c.Value, Detail: c.Detail}
	}
	return out
}

func toModelRolloutTarget(t deploy.RolloutTargetStatus) model.RolloutTarget {
	out := model.RolloutTarget{
		Name: t.Name, Labels: toModelKeyValues(t.Labels),
		Outcome: model.TargetOutcome(strings.ToUpper(string(t.Outcome))),
		Wave:    optional(t.Wave), State: toModelRolloutStepState(t.State),
		Release: t.Release, Error: t.Error,
	}
	if t.Batch > 0 {
		batch := t.Batch
		out.Batch = &batch
	}
	return out
}

func toModelRolloutRequest(q *deploy.RolloutRequestStatus) *model.RolloutRequest {
	if q == nil {
		return nil
	}
	return &model.RolloutRequest{Action: model.RolloutAction(strings.ToUpper(string(q.Action))), By: q.By, At: q.At.UTC()}
}

// mayRollout is whether the viewer may ask action of obj's rollout now:
// the rule of the service (deploy.RolloutRefusal), on the status obj was
// converted from, and the permission.
func (r *deploymentResolver) mayRollout(ctx context.Context, obj *model.Deployment, action deploy.RolloutAction) bool {
	st, ok := obj.Status.(deploy.Status)
	if !ok || deploy.RolloutRefusal(st.Rollout, action) != "" {
		return false
	}
	res := deploy.Resource{Tenant: obj.Tenant, Application: obj.Application, Environment: obj.Environment}
	return r.Service.Can(ctx, res, deploy.PermRolloutControl)
}

func toModelRolloutPause(p *deploy.RolloutPauseStatus) *model.RolloutPause {
	if p == nil {
		return nil
	}
	return &model.RolloutPause{
		Step: p.Step, Reason: p.Reason, Since: p.Since.UTC(), Until: p.Until.UTC(), By: p.By, MayResume: nonNilStrings(p.MayResume),
	}
}

func toModelGateResult(r deploy.GateResult) model.GateResult {
	return model.GateResult(strings.ToUpper(string(r)))
}

// toModelRolloutStepState keeps a state the engine has not written yet (a
// batch planned, a target of a wave not started) from reaching the client
// as an empty enum: it is PENDING.
func toModelRolloutStepState(s deploy.StepState) model.RolloutStepState {
	if s == "" {
		return model.RolloutStepStatePending
	}
	return model.RolloutStepState(strings.ToUpper(string(s)))
}

func utcTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
