package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// A step event carries its step's own record, wherever the status lists it:
// a step of the plan, a compensation of the automatic rollback
// (rollback:deploy, under rollback.steps), an operation of a rollout
// (bake[1], which the status shows in its rollout section), and never the
// output of a custom step. Before, callbackBody looked in the status's
// steps only and sent "step": null for the last two.
func TestCallbackBodyStepOfItsRecord(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	d := &deploy.Deployment{ID: "rb-1", Tenant: "demo", State: deploy.StateError, Rollback: deploy.RollbackCompleted,
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{{Name: "deploy", Type: deploy.StepTypeStandard}, {Name: "hook", Type: deploy.StepTypeHTTP}}},
		Steps: []deploy.Step{
			{Name: "deploy", Position: 0, Type: deploy.StepTypeStandard, Kind: deploy.KindRun, State: deploy.StepError},
			{Name: "deploy", Position: 0, Type: deploy.StepTypeStandard, Kind: deploy.KindRollback, State: deploy.StepSuccess},
			{Name: deploy.StepBake, Pass: 1, Position: 0, Kind: deploy.KindRun, State: deploy.StepSuccess, FinishedAt: &at},
			{Name: "hook", Position: 1, Type: deploy.StepTypeHTTP, Kind: deploy.KindRun, State: deploy.StepSuccess,
				Output: map[string]string{"token": "t0p"}},
		}}
	for _, tt := range []struct {
		step, state string
		kind        deploy.StepKind
	}{
		{"deploy", "ERROR", deploy.KindRun},
		{"rollback:deploy", "SUCCESS", deploy.KindRollback},
		{"bake[1]", "SUCCESS", deploy.KindRun},
		{"hook", "SUCCESS", deploy.KindRun},
	} {
		t.Run(tt.step, func(t *testing.T) {
			n := newNotice(d.ID, deploy.NoticeStep, tt.step, tt.state)
			body, err := callbackBody(n, d)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				Event struct {
					Type  deploy.NoticeType `json:"type"`
					Step  string            `json:"step"`
					State string            `json:"state"`
				} `json:"event"`
				Data struct {
					Step *deploy.StatusStep `json:"step"`
				} `json:"data"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			if p.Data.Step == nil || p.Data.Step.Name != tt.step || string(p.Data.Step.State) != tt.state || p.Data.Step.Kind != tt.kind {
				t.Errorf("the step event of %s carries the step %+v: %s", tt.step, p.Data.Step, body)
			}
			if p.Event.Type != deploy.NoticeStep || p.Event.Step != tt.step || p.Event.State != tt.state {
				t.Errorf("event %+v, want the step event of %s, %s", p.Event, tt.step, tt.state)
			}
			if strings.Contains(string(body), "t0p") {
				t.Errorf("a custom step's output leaves manent: %s", body)
			}
		})
	}
}
