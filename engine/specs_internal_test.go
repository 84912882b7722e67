package engine

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"manent.dev/manent/deploy"
)

// A schedule stored before its template was kept as JSON holds a JSON
// string of the template's base64: admin specs reads both.
func TestScheduleTemplateOfBothForms(t *testing.T) {
	job := deploy.Job{Plan: deploy.Plan{Steps: []deploy.PlannedStep{{Name: "notify", Type: deploy.StepTypeHTTP, SpecHash: "h"}}}}
	raw, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := json.Marshal(base64.StdEncoding.EncodeToString(raw))
	for name, stored := range map[string][]byte{"json": raw, "base64 string": old} {
		got, err := scheduleTemplate(stored)
		if err != nil || len(got.Plan.Steps) != 1 || got.Plan.Steps[0].SpecHash != "h" {
			t.Errorf("%s: %+v, %v", name, got.Plan, err)
		}
	}
}
