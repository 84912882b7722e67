package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// A deploy of a release with onFailure: rollback that succeeded, ran with
// checkpoints and is still in service is rolled back with its own
// compensations (the machinery of the automatic rollback): rollback:
// activation, then rollback:deploy, back to the checkpoints it took, so the
// environment gets exactly what it had before, even nothing. The undo
// workflow (<deploy>:undo) runs on the deploy's queue partition, so it
// never runs beside another deploy of the environment. A deploy that does
// not fit (no checkpoints: its environment's rollback was off; no longer in
// service) is rolled back by a new deploy of the previous release instead.

// inServiceKey is the key of the checkpoint of activation under which the
// engine keeps the deploy in service before (an output of its own, apart
// from the plugin's data).
const inServiceKey = deploy.OutputInService

// UndoInput is the input of the undo workflow.
type UndoInput struct {
	DeploymentID string `json:"deployment"`
	Release      string `json:"release"`
	// Member is the deploy's name in the release, whose rollback state the
	// undo records.
	Member string `json:"member"`
}

// undoPlan is what the undo of a deploy needs, read from its records.
type undoPlan struct {
	Fits   bool       `json:"fits"`
	Job    deploy.Job `json:"job"`
	SHA256 string     `json:"sha256,omitempty"`
	// Checkpoints are keyed by checkpointKey (per step, pass and batch).
	Checkpoints     map[string]deploy.Checkpoint `json:"checkpoints,omitempty"`
	InServiceBefore string                       `json:"in_service_before,omitempty"`
	// InService is the deploy in service before each checkpoint of
	// activation, by checkpointKey.
	InService map[string]string `json:"in_service,omitempty"`
	// Ran are the positions of the plan's steps whose runs succeeded (the
	// plans recorded before Units).
	Ran []int `json:"ran,omitempty"`
	// Units are the runs of steps that can be undone, in the order they
	// ran: every batch's under a rollout.
	Units []deploy.StepKey `json:"units,omitempty"`
	// Why the deploy cannot be undone with its compensations, when it
	// cannot.
	Why string `json:"why,omitempty"`
}

// planUndo reads whether the deploy can be undone with its compensations.
func (e *Engine) planUndo(ctx context.Context, id string) (undoPlan, error) {
	d, err := e.store.Get(ctx, id)
	if err != nil {
		return undoPlan{}, err
	}
	p := undoPlan{Job: deploy.Job{ID: d.ID, Requester: d.Requester, Descriptor: d.Descriptor, Effective: d.Effective, Plan: d.Plan},
		SHA256: d.SHA256, Checkpoints: map[string]deploy.Checkpoint{}}
	if d.State != deploy.StateSuccess || d.DryRun {
		return p, nil
	}
	ran := map[deploy.StepKey]bool{}
	for _, s := range d.Steps {
		ran[s.Key()] = s.StartedAt != nil && s.Kind == deploy.KindRun
	}
	// The runs are walked as the deploy ran them, batch after batch.
	r := e.newRun(p.Job)
	var prev *unit
	for {
		u, more := r.next(prev)
		if !more {
			break
		}
		prev = &u
		if u.key.Kind == deploy.KindRun && ran[u.key] && e.kinds.Undoable(u.step) {
			p.Units = append(p.Units, u.key)
		}
	}
	p.InService = map[string]string{}
	for _, s := range d.Steps {
		if s.Kind != deploy.KindCheckpoint || s.State != deploy.StepSuccess {
			continue
		}
		data := maps.Clone(s.Output)
		if s.Name == deploy.StepActivation {
			p.InService[checkpointKey(s.Key())] = data[inServiceKey]
			if s.Pass == 0 || p.InServiceBefore == "" {
				p.InServiceBefore = data[inServiceKey]
			}
		}
		for k := range data {
			if strings.HasPrefix(k, "manent:") {
				delete(data, k)
			}
		}
		p.Checkpoints[checkpointKey(s.Key())] = deploy.Checkpoint{Data: data}
	}
	undoable := len(p.Units)
	covered := 0
	for _, k := range p.Units {
		if _, ok := p.Checkpoints[checkpointKey(k)]; ok {
			covered++
		}
	}
	in, err := e.store.InventoryOf(ctx, deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment})
	if err != nil {
		return undoPlan{}, err
	}
	live := in.DeploymentID != "" && in.DeploymentID == d.ID
	p.Fits = live && undoable > 0 && covered == undoable
	switch {
	case !live:
		p.Why = "it is no longer the release in service of " + d.Application + "/" + d.Environment
	case !p.Fits:
		p.Why = "it ran without checkpoints (its environment's rollback was off)"
	}
	return p, nil
}

// EnqueueUndo enqueues the undo workflow of a deploy on its partition.
func (e *Engine) enqueueUndo(in UndoInput, partition string) error {
	_, err := dbos.Enqueue[string](e.dbos, e.queueFor(partition), undoWorkflowName, in,
		dbos.WithEnqueueWorkflowID(in.DeploymentID+undoSuffix),
		dbos.WithEnqueueQueuePartitionKey(partition),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion))
	if err != nil {
		return fmt.Errorf("enqueue undo workflow: %w", err)
	}
	return nil
}

// undoWorkflow compensates a deploy that succeeded, and records the outcome
// in the deploy's rollback state and in its release; it wakes the release
// at the end. Its own reading of the deploy is the one that counts: a
// deploy of the environment put in service while the undo waited for the
// partition leaves nothing to undo (SKIPPED).
func (e *Engine) undoWorkflow(ctx dbos.Context, in UndoInput) (string, error) {
	// Compensations are work: they take a slot of the process.
	if err := e.slots.take(ctx, nil); err != nil {
		return "", err
	}
	defer e.slots.give()
	p, err := readStep(ctx, stepUndoPlan, func(c context.Context) (undoPlan, error) {
		return e.planUndo(c, in.DeploymentID)
	})
	if err != nil {
		return "", err
	}
	state := deploy.RollbackNotNeeded
	if p.Fits {
		r := e.newRun(p.Job)
		if _, err := readStep(ctx, stepUndoStart, func(c context.Context) (bool, error) {
			r.live = true
			return true, e.inTx(c, func(q dbos.Querier) error {
				return e.rec.SetRollback(c, q, in.DeploymentID, deploy.RollbackRunning)
			})
		}); err != nil {
			return "", err
		}
		r.sha, r.checkpoints = p.SHA256, p.Checkpoints
		r.inServiceBefore = p.InService
		if p.InService == nil {
			// A plan recorded before InService: one activation.
			r.inServiceBefore = map[string]string{deploy.StepActivation: p.InServiceBefore}
		}
		for _, pos := range p.Ran {
			r.ran = append(r.ran, r.runUnit(pos))
		}
		for _, k := range p.Units {
			pos := slices.IndexFunc(p.Job.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == k.Step })
			r.ran = append(r.ran, r.runUnitIn(pos, k.Pass, k.Batch))
		}
		if state, err = r.compensate(ctx, &failure{step: "release " + in.Release}); err != nil {
			return "", err
		}
	}
	_, err = readStep(ctx, stepUndoFinish, func(c context.Context) (bool, error) {
		if p.Fits {
			if err := e.inTx(c, func(q dbos.Querier) error {
				return e.rec.SetRollback(c, q, in.DeploymentID, state)
			}); err != nil {
				return false, err
			}
		}
		if in.Member == "" {
			return true, nil
		}
		st, msg := undoOutcome(state, p)
		return true, e.store.SetReleaseRollback(c, in.Release, in.Member, "", st, msg)
	})
	if err != nil {
		return "", err
	}
	e.send(releaseWorkflowID(in.Release), "look", topicRelease)
	return state, nil
}

// undoOutcome is the rollback state of a release's deploy after its undo.
func undoOutcome(state string, p undoPlan) (string, string) {
	switch {
	case !p.Fits:
		return deploy.RollbackSkipped, "not rolled back: " + p.Why
	case state == deploy.RollbackCompleted:
		return string(deploy.StateSuccess), ""
	}
	return string(deploy.StateError), "its compensations did not complete: see the deploy's rollback"
}
