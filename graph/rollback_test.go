package graph

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func TestStepKindsAndRollbackStatesMeetTheSchema(t *testing.T) {
	seenKinds := map[model.StepKind]bool{}
	for _, k := range deploy.StepKinds {
		m, ok := stepKinds[k]
		if !ok || !m.IsValid() || seenKinds[m] {
			t.Errorf("step kind %q maps to %q", k, m)
		}
		seenKinds[m] = true
	}
	if len(seenKinds) != len(model.AllStepKind) {
		t.Errorf("the schema's StepKind has %v, the domain reaches %v", model.AllStepKind, seenKinds)
	}
	if got := toModelStepKind(""); got != model.StepKindRun {
		t.Errorf("a record without kind = %s, want RUN", got)
	}

	seenStates := map[model.RollbackState]bool{}
	for _, s := range []string{deploy.RollbackRunning, deploy.RollbackCompleted, deploy.RollbackFailed,
		deploy.RollbackNotNeeded, deploy.RollbackDisabled} {
		m := toModelRollbackState(s)
		if m == nil || !m.IsValid() || seenStates[*m] {
			t.Errorf("rollback state %q maps to %v", s, m)
			continue
		}
		seenStates[*m] = true
	}
	if len(seenStates) != len(model.AllRollbackState) {
		t.Errorf("the schema's RollbackState has %v, the domain reaches %v", model.AllRollbackState, seenStates)
	}
	for _, s := range []string{"", "later"} {
		if m := toModelRollbackState(s); m != nil {
			t.Errorf("rollback state %q = %s, want null", s, *m)
		}
	}
}

func TestRollbackField(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	t1, t2 := t0.Add(time.Second), t0.Add(3*time.Second)
	comp := func(step string, pos int, state deploy.StepState, errMsg string) deploy.Step {
		return deploy.Step{DeploymentID: "hello-1", Name: step, Position: pos, Kind: deploy.KindRollback, Type: "standard",
			State: state, Attempts: 1, StartedAt: &t1, FinishedAt: &t2, Error: errMsg}
	}
	tests := []struct {
		name   string
		change func(d *deploy.Deployment)
		want   string
	}{
		{name: "not decided", change: func(*deploy.Deployment) {}, want: `{"rollback":null}`},
		{name: "not needed", change: func(d *deploy.Deployment) {
			d.State, d.Rollback = deploy.StateSuccess, deploy.RollbackNotNeeded
		}, want: `{"rollback":{"state":"NOT_NEEDED","steps":[]}}`},
		{name: "disabled", change: func(d *deploy.Deployment) {
			d.State, d.Rollback = deploy.StateError, deploy.RollbackDisabled
		}, want: `{"rollback":{"state":"DISABLED","steps":[]}}`},
		{name: "running before the outcome is recorded", change: func(d *deploy.Deployment) {
			c := comp("activation", 500, deploy.StepRunning, "")
			c.FinishedAt = nil
			d.Steps = append(d.Steps, c)
		}, want: `{"rollback":{"state":"RUNNING","steps":[` +
			`{"name":"rollback:activation","kind":"ROLLBACK","position":500,"state":"RUNNING","startedAt":"2025-03-01T10:00:01Z","finishedAt":null,"error":null}]}}`},
		{name: "completed, the latest step first", change: func(d *deploy.Deployment) {
			d.State, d.Rollback = deploy.StateError, deploy.RollbackCompleted
			d.Steps = append(d.Steps,
				deploy.Step{Name: "deploy", Position: 1, Kind: deploy.KindCheckpoint, State: deploy.StepSuccess},
				comp("activation", 500, deploy.StepSuccess, ""), comp("deploy", 501, deploy.StepSuccess, ""))
		}, want: `{"rollback":{"state":"COMPLETED","steps":[` +
			`{"name":"rollback:activation","kind":"ROLLBACK","position":500,"state":"SUCCESS","startedAt":"2025-03-01T10:00:01Z","finishedAt":"2025-03-01T10:00:03Z","error":null},` +
			`{"name":"rollback:deploy","kind":"ROLLBACK","position":501,"state":"SUCCESS","startedAt":"2025-03-01T10:00:01Z","finishedAt":"2025-03-01T10:00:03Z","error":null}]}}`},
		{name: "failed at its first compensation", change: func(d *deploy.Deployment) {
			d.State, d.Rollback = deploy.StateError, deploy.RollbackFailed
			d.Steps = append(d.Steps, comp("activation", 500, deploy.StepError, "current: permission denied"))
		}, want: `{"rollback":{"state":"FAILED","steps":[` +
			`{"name":"rollback:activation","kind":"ROLLBACK","position":500,"state":"ERROR","startedAt":"2025-03-01T10:00:01Z","finishedAt":"2025-03-01T10:00:03Z","error":"current: permission denied"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board := newDeployBoard()
			tt.change(&board.d)
			srv := newTestServer(t, board.service(), newFakeEvents())
			resp := srv.query(t, "ci", `{ deployment(id: "hello-1") {
			  rollback { state steps { name kind position state startedAt finishedAt error } }
			} }`, nil)
			if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != tt.want {
				t.Errorf("got %s %+v\nwant %s", resp.Data["deployment"], resp.Errors, tt.want)
			}
		})
	}
}

func TestTimelineFieldsOfSteps(t *testing.T) {
	board := newDeployBoard()
	board.d.Steps = []deploy.Step{
		{Name: "config", Position: 0, Kind: deploy.KindRun, State: deploy.StepSuccess},
		{Name: "deploy", Position: 1, Kind: deploy.KindCheckpoint, State: deploy.StepSuccess},
		{Name: "deploy", Position: 1, Pass: 1, Batch: 2, Target: "web-1", Kind: deploy.KindRun, State: deploy.StepError},
		{Name: "deploy", Position: 500, Kind: deploy.KindRollback, State: deploy.StepSuccess},
	}
	srv := newTestServer(t, board.service(), newFakeEvents())
	resp := srv.query(t, "ci", `{ deployment(id: "hello-1") { steps { name kind pass batch target state } } }`, nil)
	want := `{"steps":[` +
		`{"name":"config","kind":"RUN","pass":0,"batch":0,"target":null,"state":"SUCCESS"},` +
		`{"name":"checkpoint:deploy","kind":"CHECKPOINT","pass":0,"batch":0,"target":null,"state":"SUCCESS"},` +
		`{"name":"deploy[1/2]@web-1","kind":"RUN","pass":1,"batch":2,"target":"web-1","state":"ERROR"}]}`
	if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != want {
		t.Errorf("got %s %+v\nwant %s", resp.Data["deployment"], resp.Errors, want)
	}
}

func TestEffectiveRollbackPolicy(t *testing.T) {
	tests := []struct {
		name   string
		policy deploy.RollbackPolicy
		want   string
	}{
		{"none configured", deploy.RollbackPolicy{}, `{"effective":{"rollback":{"enabled":false,"on":[]}}}`},
		{"enabled", deploy.RollbackPolicy{Enabled: true, On: []string{"post-test", "activation"}},
			`{"effective":{"rollback":{"enabled":true,"on":["post-test","activation"]}}}`},
		{"off, on kept for a descriptor", deploy.RollbackPolicy{On: []string{"deploy"}},
			`{"effective":{"rollback":{"enabled":false,"on":["deploy"]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			board := newDeployBoard()
			board.d.Effective.Rollback = tt.policy
			srv := newTestServer(t, board.service(), newFakeEvents())
			resp := srv.query(t, "ci", `{ deployment(id: "hello-1") { effective { rollback { enabled on } } } }`, nil)
			if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != tt.want {
				t.Errorf("got %s %+v\nwant %s", resp.Data["deployment"], resp.Errors, tt.want)
			}
		})
	}
}

func TestInventoryQuery(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	art := deploy.Artifact{Type: "tarball", Name: "hello", Version: "1.0.0", Source: "file:///a.tgz"}
	tests := []struct {
		name  string
		entry deploy.InventoryEntry
		want  string
	}{
		{
			name: "in service, never failed",
			entry: deploy.InventoryEntry{Tenant: "demo", Application: "hello", Environment: "dev", DeploymentID: "hello-1",
				Artifact: art, SHA256: "abc", DeployedAt: t0, DeployedBy: "token:ci"},
			want: `{"environment":"dev","deploymentId":"hello-1","artifact":{"version":"1.0.0"},"sha256":"abc",` +
				`"deployedAt":"2025-03-01T10:00:00Z","deployedBy":"token:ci","previous":null,"lastFailure":null}`,
		},
		{
			name: "in service, the next deploy failed and was rolled back",
			entry: deploy.InventoryEntry{Tenant: "demo", Application: "hello", Environment: "prod", DeploymentID: "hello-1",
				Artifact: art, DeployedAt: t0, DeployedBy: "token:ci",
				LastFailure: &deploy.LastFailure{DeploymentID: "hello-2", Step: "post-test", Error: "health: 404 Not Found",
					FinishedAt: t0.Add(time.Hour), Rollback: deploy.RollbackCompleted}},
			want: `{"environment":"prod","deploymentId":"hello-1","artifact":{"version":"1.0.0"},"sha256":null,` +
				`"deployedAt":"2025-03-01T10:00:00Z","deployedBy":"token:ci","previous":null,"lastFailure":{"deploymentId":"hello-2",` +
				`"step":"post-test","error":"health: 404 Not Found","finishedAt":"2025-03-01T11:00:00Z","rollback":"COMPLETED"}}`,
		},
		{
			name: "a second release in service, the first before it, the third failed and was rolled back",
			entry: deploy.InventoryEntry{Tenant: "demo", Application: "hello", Environment: "prod", DeploymentID: "hello-2",
				Artifact: deploy.Artifact{Name: "hello", Version: "1.1.0"}, DeployedAt: t0.Add(time.Hour), DeployedBy: "token:ci",
				Previous: &deploy.PreviousRelease{DeploymentID: "hello-1", Artifact: art, SHA256: "abc", DeployedAt: t0},
				LastFailure: &deploy.LastFailure{DeploymentID: "hello-3", Step: "post-test", Error: "health: 404 Not Found",
					FinishedAt: t0.Add(2 * time.Hour), Rollback: deploy.RollbackCompleted}},
			want: `{"environment":"prod","deploymentId":"hello-2","artifact":{"version":"1.1.0"},"sha256":null,` +
				`"deployedAt":"2025-03-01T11:00:00Z","deployedBy":"token:ci","previous":{"deploymentId":"hello-1",` +
				`"artifact":{"version":"1.0.0"},"sha256":"abc","deployedAt":"2025-03-01T10:00:00Z","deployedBy":null},` +
				`"lastFailure":{"deploymentId":"hello-3","step":"post-test","error":"health: 404 Not Found",` +
				`"finishedAt":"2025-03-01T12:00:00Z","rollback":"COMPLETED"}}`,
		},
		{
			name: "nothing in service, a failure outside a step",
			entry: deploy.InventoryEntry{Tenant: "demo", Application: "hello", Environment: "broken",
				LastFailure: &deploy.LastFailure{DeploymentID: "hello-3", FinishedAt: t0}},
			want: `{"environment":"broken","deploymentId":null,"artifact":null,"sha256":null,"deployedAt":null,"deployedBy":null,` +
				`"previous":null,"lastFailure":{"deploymentId":"hello-3","step":null,"error":null,"finishedAt":"2025-03-01T10:00:00Z","rollback":null}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{inventory: func(context.Context) ([]deploy.InventoryEntry, error) {
				return []deploy.InventoryEntry{tt.entry}, nil
			}}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "viewer", `{ inventory { environment deploymentId artifact { version } sha256 deployedAt deployedBy
			  previous { deploymentId artifact { version } sha256 deployedAt deployedBy }
			  lastFailure { deploymentId step error finishedAt rollback } } }`, nil)
			if len(resp.Errors) > 0 || string(resp.Data["inventory"]) != "["+tt.want+"]" {
				t.Errorf("got %s %+v\nwant [%s]", resp.Data["inventory"], resp.Errors, tt.want)
			}
		})
	}
}

// The steps and the rollback of the API are those of the status JSON, in
// the same order: both come from deploy.Deployment.Timeline and
// Compensations.
func TestStepsAndRollbackAgreeWithTheStatusJSON(t *testing.T) {
	d := newDeployBoard().d
	d.State, d.Rollback = deploy.StateError, deploy.RollbackFailed
	d.Steps = []deploy.Step{
		{Name: "change:open", Position: -1, Kind: deploy.KindRun, State: deploy.StepSuccess},
		{Name: "config", Position: 0, Kind: deploy.KindRun, State: deploy.StepSuccess},
		{Name: "deploy", Position: 1, Kind: deploy.KindCheckpoint, State: deploy.StepSuccess},
		{Name: "deploy", Position: 1, Kind: deploy.KindRun, State: deploy.StepError},
		{Name: "deploy", Position: 500, Kind: deploy.KindRollback, State: deploy.StepError, Error: "boom"},
	}
	m := toModelDeployment(&d)
	st := deploy.NewStatus(&d)
	if len(m.Steps) != len(st.Steps) {
		t.Fatalf("%d steps, the status JSON has %d", len(m.Steps), len(st.Steps))
	}
	for i, s := range st.Steps {
		if m.Steps[i].Name != s.Name || string(m.Steps[i].State) != string(s.State) {
			t.Errorf("step %d = %s %s, the status JSON has %s %s", i, m.Steps[i].Name, m.Steps[i].State, s.Name, s.State)
		}
	}
	if m.Rollback == nil || st.Rollback == nil || len(m.Rollback.Steps) != len(st.Rollback.Steps) ||
		m.Rollback.Steps[0].Name != st.Rollback.Steps[0].Name || m.Rollback.State != model.RollbackStateFailed {
		t.Errorf("rollback = %+v, the status JSON has %+v", m.Rollback, st.Rollback)
	}
}
