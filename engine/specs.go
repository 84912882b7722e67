package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/specsig"
)

// The kinds of SpecUse.
const (
	SpecUseWorkflow = "workflow"
	SpecUseSchedule = "schedule"
	// SpecUseActive is the status of a schedule in force.
	SpecUseActive = "ACTIVE"
)

// SpecUse is a custom step of a plan that is still to run: in a workflow
// not concluded (queued, waiting for its time, its dependencies or its
// approvals, running) or in the template of a schedule in force, whose
// every tick runs it.
type SpecUse struct {
	// Kind is SpecUseWorkflow or SpecUseSchedule; ID the deploy's or the
	// schedule's; Workflow the DBOS workflow holding the plan (workflows
	// only) and Status its DBOS status (SpecUseActive for a schedule).
	Kind, ID, Workflow, Status string
	Application, Environment   string
	Step                       string
	// SpecHash is the hash the plan records; Mismatch says the captured
	// specification does not hash to it (the plan was altered).
	SpecHash string
	Mismatch bool
}

// planWorkflows are the workflows whose input holds a plan still to run.
var planWorkflows = []string{deployWorkflowName, waitWorkflowName}

// SpecUses lists the custom steps of the plans still to run, the workflows
// first (by deploy ID), then the schedules (by name); with match, only
// those whose recorded or recomputed hash it accepts. It reads what the
// workers run from: the inputs of the deploy and schedule workflows in
// DBOS's records, and for a wait the job its deploy's row holds, which
// the wait lets go.
func (e *Engine) SpecUses(ctx context.Context, match func(hash string) bool) ([]SpecUse, error) {
	ws, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterName(planWorkflows...),
		dbos.WithFilterStatus(dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusPending, dbos.WorkflowStatusDelayed),
		dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("list workflows: %w", err)
	}
	var out []SpecUse
	for _, w := range ws {
		job, err := e.planOf(ctx, w)
		if deploy.ErrorCode(err) == deploy.ENOTFOUND {
			// A wait whose deploy is gone lets nothing run.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", w.ID, err)
		}
		base := SpecUse{Kind: SpecUseWorkflow, ID: job.ID, Workflow: w.Name, Status: string(w.Status),
			Application: job.Descriptor.Application, Environment: job.Descriptor.Environment}
		out = append(out, specUses(base, job.Plan, match)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	scheds, err := e.scheduleUses(ctx, match)
	if err != nil {
		return nil, err
	}
	return append(out, scheds...), nil
}

// scheduleUses lists the custom steps of the templates the schedules in
// force tick with, by schedule name. A tick runs the template of its
// schedule workflow's input, not the schedule's row: the templates are
// read from the inputs of the schedule workflows not concluded, of the
// schedule's current generation (one of an older generation, or of a
// deleted schedule, stops without ticking). A schedule whose two workflows
// hold the same template (one hands over to the next) is listed once.
func (e *Engine) scheduleUses(ctx context.Context, match func(hash string) bool) ([]SpecUse, error) {
	ws, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterName(scheduleWorkflowName),
		dbos.WithFilterStatus(dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusPending, dbos.WorkflowStatusDelayed),
		dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("list schedule workflows: %w", err)
	}
	var out []SpecUse
	seen := map[SpecUse]bool{}
	for _, w := range ws {
		g, err := generationOf(w)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", w.ID, err)
		}
		sc, err := e.store.GetSchedule(ctx, g.Name)
		if deploy.ErrorCode(err) == deploy.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("schedule %s: %w", g.Name, err)
		}
		if sc.Generation != g.Generation {
			continue
		}
		base := SpecUse{Kind: SpecUseSchedule, ID: g.Name, Status: SpecUseActive,
			Application: g.Template.Descriptor.Application, Environment: g.Template.Descriptor.Environment}
		for _, u := range specUses(base, g.Template.Plan, match) {
			if !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// generationOf reads the schedule generation in a schedule workflow's
// input, which DBOS gives back as the JSON it stored.
func generationOf(w dbos.WorkflowStatus) (deploy.ScheduleGeneration, error) {
	var g deploy.ScheduleGeneration
	raw, ok := w.Input.(string)
	if !ok {
		return g, fmt.Errorf("input of type %T, not JSON", w.Input)
	}
	err := json.Unmarshal([]byte(raw), &g)
	return g, err
}

// planOf reads the job a workflow runs: in a deploy workflow's input,
// which DBOS gives back as the JSON it stored; for a wait, in the deploy's
// row (or in the input of a wait an earlier version enqueued), which the
// wait lets go.
func (e *Engine) planOf(ctx context.Context, w dbos.WorkflowStatus) (deploy.Job, error) {
	raw, ok := w.Input.(string)
	if !ok {
		return deploy.Job{}, fmt.Errorf("input of type %T, not JSON", w.Input)
	}
	if w.Name == waitWorkflowName {
		var in WaitInput
		if err := json.Unmarshal([]byte(raw), &in); err != nil {
			return deploy.Job{}, err
		}
		in.ID = in.deployID()
		return e.job(ctx, &in)
	}
	var j deploy.Job
	err := json.Unmarshal([]byte(raw), &j)
	return j, err
}

func specUses(base SpecUse, p deploy.Plan, match func(string) bool) []SpecUse {
	var out []SpecUse
	for _, s := range p.Steps {
		if s.Spec == nil && s.SpecHash == "" {
			continue
		}
		computed := ""
		if s.Spec != nil {
			computed, _ = specsig.Hash(s.Spec)
		}
		if match != nil && !match(s.SpecHash) && !match(computed) {
			continue
		}
		u := base
		u.Step, u.SpecHash, u.Mismatch = s.Name, s.SpecHash, computed != s.SpecHash
		out = append(out, u)
	}
	return out
}
