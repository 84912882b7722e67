package graph

import (
	"encoding/json"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func TestToModelSteps(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	t1, t2 := t0.Add(1500*time.Millisecond), t0.Add(4*time.Second)
	now := t0.Add(10 * time.Second)
	d := &deploy.Deployment{
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{
			{Name: "config", Type: "standard"}, {Name: "deploy", Type: "standard"}, {Name: "cleanup", Type: "standard"},
		}},
		Steps: []deploy.Step{
			{Name: "config", Position: 0, Type: "standard", State: deploy.StepSuccess, Attempts: 1, StartedAt: &t0, FinishedAt: &t1,
				Output: map[string]string{"revision": "abc", "config": "envconfig/demo/hello/dev.yml"}},
			{Name: "deploy", Position: 1, Type: "standard", State: deploy.StepRunning, Attempts: 2, StartedAt: &t2},
		},
	}
	got := toModelSteps(d, now)
	want := []struct {
		name     string
		state    model.StepState
		duration int
	}{
		{"config", model.StepStateSuccess, 1500},
		{"deploy", model.StepStateRunning, 6000},
		{"cleanup", model.StepStatePending, -1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d steps, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || g.State != w.state || g.Position != i {
			t.Errorf("step %d = %s %s at %d, want %s %s", i, g.Name, g.State, g.Position, w.name, w.state)
		}
		switch {
		case w.duration < 0 && g.DurationMs != nil:
			t.Errorf("step %s has a duration before it ran", g.Name)
		case w.duration >= 0 && (g.DurationMs == nil || *g.DurationMs != w.duration):
			t.Errorf("step %s duration = %v, want %d", g.Name, g.DurationMs, w.duration)
		}
	}
	if kv := got[0].Output; len(kv) != 2 || kv[0].Key != "config" || kv[1].Key != "revision" {
		t.Errorf("output not sorted by key: %+v", kv)
	}
}

func TestToModelDeploymentCarriesTheStatusJSON(t *testing.T) {
	d := newDeployBoard().d
	d.SHA256 = "abc123"
	d.Effective.Secrets = []deploy.SecretRef{{Name: "db", Ref: "file:/etc/secret"}}
	m := toModelDeployment(&d)
	raw, err := json.Marshal(m.Status)
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	_ = json.Unmarshal(raw, &status)
	if status["id"] != "hello-1" || status["state"] != "PENDING" || status["created_at"] == nil {
		t.Errorf("status = %s", raw)
	}
	if a, _ := status["artifact"].(map[string]any); a["sha256"] != "abc123" {
		t.Errorf("status artifact = %v", status["artifact"])
	}
	if len(m.Effective.SecretNames) != 1 || m.Effective.SecretNames[0] != "db" {
		t.Errorf("secret names = %v", m.Effective.SecretNames)
	}
}
