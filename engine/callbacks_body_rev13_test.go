package engine

import (
	"encoding/json"
	"testing"

	"manent.dev/manent/deploy"
)

// TestCallbackBodyOfARollbackStep (rev13, FAILS on a33e1c1): a step event of
// the automatic rollback (rollback:deploy) carries "step": null: callbackBody
// looks for the step in the status's steps only, and the status lists the
// compensations under rollback.steps.
func TestCallbackBodyOfARollbackStep(t *testing.T) {
	d := &deploy.Deployment{ID: "rb-1", State: deploy.StateError, Rollback: deploy.RollbackCompleted,
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{{Name: "deploy", Type: deploy.StepTypeStandard}}},
		Steps: []deploy.Step{
			{Name: "deploy", Position: 0, Type: deploy.StepTypeStandard, Kind: deploy.KindRun, State: deploy.StepError},
			{Name: "deploy", Position: 0, Type: deploy.StepTypeStandard, Kind: deploy.KindRollback, State: deploy.StepSuccess},
		}}
	n := newNotice(d.ID, deploy.NoticeStep, deploy.StepKey{Step: "deploy", Kind: deploy.KindRollback}.Name(), "SUCCESS")
	body, err := callbackBody(n, outward(d))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Data struct {
			Step json.RawMessage `json:"step"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if string(p.Data.Step) == "null" {
		t.Errorf("the step event of %s has no step: %s", n.Step, body)
	}
}
