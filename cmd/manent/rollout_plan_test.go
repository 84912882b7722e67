package main

import (
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

func TestValidateShowsTheRollout(t *testing.T) {
	one, two, reason := 1, 2, "matches rollout.exclude (maintenance=true)"
	plan := client.Plan{
		Steps: []client.PlannedStep{{Name: "config", Type: "standard"}},
		Rollout: &client.RolloutPlan{
			Passes: []client.RolloutPass{
				{Index: 1, Name: "canary", BakeSeconds: 120, Batches: []client.RolloutBatch{{Index: 1, Targets: []string{"eu1"}}}},
				{Index: 2, Name: "us", Approval: true, MaxFailures: 1},
				{Index: 3, Name: "rest", BakeSeconds: 30, Batches: []client.RolloutBatch{
					{Index: 1, Targets: []string{"eu2", "eu3"}}, {Index: 2, Targets: []string{"ap1"}},
				}},
			},
			Targets: []client.PlannedTarget{
				{Name: "eu1", Outcome: client.TargetOutcomeTargeted, Pass: &one, Batch: &one},
				{Name: "m1", Outcome: client.TargetOutcomeExcluded, Reason: &reason,
					Labels: []client.KeyValue{{Key: "maintenance", Value: "true"}}},
				{Name: "eu2", Outcome: client.TargetOutcomeTargeted, Pass: &two, Batch: &one},
			},
		},
	}
	srv := clienttest.New(t)
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"submitDeployment": map[string]any{"created": false, "validated": true,
			"deployment": &client.SubmittedDeployment{DeploymentDetail: deployment("hello-1", client.DeploymentStateEnqueued), Plan: plan}}}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "validate", "-f", writeFile(t, "ok.yml", descriptor))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	_, table, _ := strings.Cut(r.stdout, "Rollout: 3 wave(s)\n")
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	want := [][]string{
		{"#", "WAVE", "BATCH", "TARGETS", "BAKE", "APPROVAL", "MAX", "FAILURES"},
		{"1", "canary", "1", "eu1", "2m00s", "no", "0"},
		{"2", "us", "-", "(no", "target)", "-", "yes", "1"},
		{"3", "rest", "1", "eu2,", "eu3", "30s", "no", "0"},
		{"-", "2", "ap1", "-", "-", "-"},
		{"excluded", "m1", "-", "matches", "rollout.exclude", "(maintenance=true)", "-", "-", "-"},
	}
	if len(lines) != len(want) {
		t.Fatalf("rollout table:\n%s", table)
	}
	for i, l := range lines {
		if got := strings.Fields(l); strings.Join(got, " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d: %q, want %q", i, got, want[i])
		}
	}

	r = runCLI(t, env, "", "validate", "-f", writeFile(t, "ok.yml", descriptor), "-o", "json")
	var v struct {
		Rollout struct {
			Passes []struct {
				Name        string `json:"name"`
				BakeSeconds int    `json:"bake_seconds"`
				Batches     []struct {
					Index   int      `json:"index"`
					Targets []string `json:"targets"`
				} `json:"batches"`
			} `json:"passes"`
			Targets []map[string]any `json:"targets"`
		} `json:"rollout"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil {
		t.Fatalf("json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(v.Rollout.Passes) != 3 || v.Rollout.Passes[0].BakeSeconds != 120 || v.Rollout.Passes[1].Batches == nil ||
		len(v.Rollout.Passes[2].Batches) != 2 || v.Rollout.Passes[2].Batches[1].Targets[0] != "ap1" {
		t.Errorf("passes %+v", v.Rollout.Passes)
	}
	if m := v.Rollout.Targets[1]; m["outcome"] != "excluded" || m["pass"] != nil || m["reason"] != reason ||
		m["labels"].(map[string]any)["maintenance"] != "true" {
		t.Errorf("excluded target %v", m)
	}
}
