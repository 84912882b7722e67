package engine

import (
	"context"
	"encoding/base64"
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
// those whose recorded or recomputed hash it accepts. It reads DBOS's
// records, which the workers run from, not the read model.
func (e *Engine) SpecUses(ctx context.Context, match func(hash string) bool) ([]SpecUse, error) {
	ws, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterName(planWorkflows...),
		dbos.WithFilterStatus(dbos.WorkflowStatusEnqueued, dbos.WorkflowStatusPending, dbos.WorkflowStatusDelayed),
		dbos.WithFilterLoadInput(true), dbos.WithFilterLoadOutput(false))
	if err != nil {
		return nil, fmt.Errorf("list workflows: %w", err)
	}
	var out []SpecUse
	for _, w := range ws {
		job, err := planOf(w)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: %w", w.ID, err)
		}
		base := SpecUse{Kind: SpecUseWorkflow, ID: job.ID, Workflow: w.Name, Status: string(w.Status),
			Application: job.Descriptor.Application, Environment: job.Descriptor.Environment}
		out = append(out, specUses(base, job.Plan, match)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	scheds, err := e.store.ListSchedules(ctx)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	for _, sc := range scheds {
		tmpl, err := scheduleTemplate(sc.Template)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: read its template: %w", sc.Name, err)
		}
		base := SpecUse{Kind: SpecUseSchedule, ID: sc.Name, Status: SpecUseActive,
			Application: sc.Application, Environment: sc.Environment}
		out = append(out, specUses(base, tmpl.Plan, match)...)
	}
	return out, nil
}

// scheduleTemplate reads a schedule's template. Schedules created before
// the store kept it as JSON hold a JSON string of its base64.
func scheduleTemplate(raw []byte) (deploy.Job, error) {
	var tmpl deploy.Job
	if len(raw) > 0 && raw[0] == '"' {
		var enc string
		if err := json.Unmarshal(raw, &enc); err != nil {
			return tmpl, err
		}
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return tmpl, err
		}
		raw = b
	}
	err := json.Unmarshal(raw, &tmpl)
	return tmpl, err
}

// planOf reads the job in a workflow's input, which DBOS gives back as the
// JSON it stored.
func planOf(w dbos.WorkflowStatus) (deploy.Job, error) {
	raw, ok := w.Input.(string)
	if !ok {
		return deploy.Job{}, fmt.Errorf("input of type %T, not JSON", w.Input)
	}
	if w.Name == waitWorkflowName {
		var in WaitInput
		err := json.Unmarshal([]byte(raw), &in)
		return in.Deploy, err
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
