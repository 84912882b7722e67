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
	plan := deploy.Plan{Steps: []deploy.PlannedStep{
		{Name: "config", Type: "standard"}, {Name: "deploy", Type: "standard"}, {Name: "cleanup", Type: "standard"},
	}}
	type want struct {
		name     string
		kind     model.StepKind
		state    model.StepState
		position int
		// duration is -1 for a step that has not begun.
		duration int
	}
	tests := []struct {
		name   string
		dryRun bool
		steps  []deploy.Step
		want   []want
	}{
		{
			name: "ran, running and pending steps in plan order",
			steps: []deploy.Step{
				{Name: "config", Position: 0, Type: "standard", State: deploy.StepSuccess, Attempts: 1, StartedAt: &t0, FinishedAt: &t1,
					Output: map[string]string{"revision": "abc", "config": "envconfig/demo/hello/dev.yml"}},
				{Name: "deploy", Position: 1, Type: "standard", Kind: deploy.KindRun, State: deploy.StepRunning, Attempts: 2, StartedAt: &t2},
			},
			want: []want{
				{"config", model.StepKindRun, model.StepStateSuccess, 0, 1500},
				{"deploy", model.StepKindRun, model.StepStateRunning, 1, 6000},
				{"cleanup", model.StepKindRun, model.StepStatePending, 2, -1},
			},
		},
		{
			name: "a checkpoint before its step, change:open first, compensations apart",
			steps: []deploy.Step{
				// In the order the store reads them (deploy.Deployment.Steps).
				{Name: "change:open", Position: -1, Kind: deploy.KindRun, State: deploy.StepSuccess, StartedAt: &t0, FinishedAt: &t0},
				{Name: "config", Position: 0, Kind: deploy.KindRun, State: deploy.StepSuccess, StartedAt: &t0, FinishedAt: &t1},
				{Name: "deploy", Position: 1, Kind: deploy.KindCheckpoint, State: deploy.StepSuccess, StartedAt: &t1, FinishedAt: &t1},
				{Name: "deploy", Position: 1, Kind: deploy.KindRun, State: deploy.StepError, StartedAt: &t1, FinishedAt: &t2},
				{Name: "deploy", Position: 500, Kind: deploy.KindRollback, State: deploy.StepSuccess, StartedAt: &t2, FinishedAt: &t2},
			},
			want: []want{
				{"change:open", model.StepKindRun, model.StepStateSuccess, -1, 0},
				{"config", model.StepKindRun, model.StepStateSuccess, 0, 1500},
				{"checkpoint:deploy", model.StepKindCheckpoint, model.StepStateSuccess, 1, 0},
				{"deploy", model.StepKindRun, model.StepStateError, 1, 2500},
				{"cleanup", model.StepKindRun, model.StepStatePending, 2, -1},
			},
		},
		{
			name: "a checkpoint alone leaves its step pending",
			steps: []deploy.Step{
				{Name: "deploy", Position: 1, Kind: deploy.KindCheckpoint, State: deploy.StepRunning, StartedAt: &t2},
			},
			want: []want{
				{"config", model.StepKindRun, model.StepStatePending, 0, -1},
				{"checkpoint:deploy", model.StepKindCheckpoint, model.StepStateRunning, 1, 6000},
				{"deploy", model.StepKindRun, model.StepStatePending, 1, -1},
				{"cleanup", model.StepKindRun, model.StepStatePending, 2, -1},
			},
		},
		{
			name:   "a dry run's steps, and its placeholders, are dry runs",
			dryRun: true,
			steps: []deploy.Step{
				{Name: "config", Position: 0, Kind: deploy.KindDryRun, State: deploy.StepSuccess, StartedAt: &t0, FinishedAt: &t1},
			},
			want: []want{
				{"config", model.StepKindDryRun, model.StepStateSuccess, 0, 1500},
				{"deploy", model.StepKindDryRun, model.StepStatePending, 1, -1},
				{"cleanup", model.StepKindDryRun, model.StepStatePending, 2, -1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &deploy.Deployment{ID: "hello-1", DryRun: tt.dryRun, Plan: plan, Steps: tt.steps}
			got := toModelSteps(d, now)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d steps %+v, want %d", len(got), got, len(tt.want))
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Name != w.name || g.Kind != w.kind || g.State != w.state || g.Position != w.position {
					t.Errorf("step %d = %s %s %s at %d, want %s %s %s at %d", i, g.Name, g.Kind, g.State, g.Position,
						w.name, w.kind, w.state, w.position)
				}
				switch {
				case w.duration < 0 && g.DurationMs != nil:
					t.Errorf("step %s has a duration before it ran", g.Name)
				case w.duration >= 0 && (g.DurationMs == nil || *g.DurationMs != w.duration):
					t.Errorf("step %s duration = %v, want %d", g.Name, g.DurationMs, w.duration)
				}
			}
		})
	}
}

func TestToModelStepOfABatch(t *testing.T) {
	s := deploy.Step{Name: "deploy", Pass: 1, Batch: 2, Target: "web-1", Kind: deploy.KindRollback, State: deploy.StepSuccess,
		Output: map[string]string{"revision": "abc", "config": "envconfig/demo/hello/dev.yml"}}
	got := toModelStep(s, time.Now())
	if got.Name != "rollback:deploy[1/2]@web-1" || got.Kind != model.StepKindRollback || got.Pass != 1 || got.Batch != 2 ||
		got.Target == nil || *got.Target != "web-1" {
		t.Errorf("step = %+v", got)
	}
	if kv := got.Output; len(kv) != 2 || kv[0].Key != "config" || kv[1].Key != "revision" {
		t.Errorf("output not sorted by key: %+v", kv)
	}
	if whole := toModelStep(deploy.Step{Name: "deploy"}, time.Now()); whole.Target != nil || whole.Kind != model.StepKindRun {
		t.Errorf("a record without target or kind = %+v", whole)
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

// TestURLsWithoutSecrets: GraphQL readers see where a health check or an
// artifact goes, never the user info or query that may carry a token.
func TestURLsWithoutSecrets(t *testing.T) {
	board := newDeployBoard()
	board.d.Artifact.Source = "https://repo.example/hello.tgz?X-Signature=s3cret"
	board.d.Effective.Health = []deploy.HealthCheck{{URL: "http://user:pass@hello.example/{{ .Version }}/ready?token=s3cret"}}
	srv := newTestServer(t, board.service(), newFakeEvents())
	resp := srv.query(t, "ci", `{ deployment(id: "hello-1") { artifact { source } effective { healthChecks } } }`, nil)
	want := `{"artifact":{"source":"https://repo.example/hello.tgz"},"effective":{"healthChecks":["http://hello.example/{{ .Version }}/ready"]}}`
	if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != want {
		t.Errorf("got %s %+v\nwant %s", resp.Data["deployment"], resp.Errors, want)
	}
}
