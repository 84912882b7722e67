package graph

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func TestToModelRollout(t *testing.T) {
	// In another zone on purpose: the API gives every time in UTC.
	paris := time.FixedZone("CET", 3600)
	t0 := time.Date(2026, 3, 1, 11, 0, 0, 0, paris)
	t1, until := t0.Add(20*time.Second), t0.Add(140*time.Second)
	utc := func(t time.Time) *time.Time { u := t.UTC(); return &u }
	str := func(s string) *string { return &s }
	ptr := func(n int) *int { return &n }
	value := 0.0042
	wave := "eu"

	tests := []struct {
		name string
		in   *deploy.RolloutStatus
		want *model.Rollout
	}{
		{name: "a deploy without rollout", in: nil, want: nil},
		{
			name: "the second wave baking, the third pending, an excluded target",
			in: &deploy.RolloutStatus{
				State: deploy.RolloutRunning, CurrentWave: &wave,
				Waves: []deploy.RolloutWaveStatus{
					{
						Name: "canary", State: deploy.WavePassed, Targets: []string{"eu-1"},
						Batches: []deploy.RolloutBatchStatus{{Index: 1, Targets: []string{"eu-1"}, State: deploy.StepSuccess, StartedAt: &t0, FinishedAt: &t1}},
						Bake:    &deploy.RolloutBake{Duration: time.Minute, Seconds: 60, Until: &t1},
						Gate: &deploy.RolloutGate{State: deploy.GatePass, At: &t1, Checks: []deploy.RolloutGateCheck{
							{Name: "errors", State: deploy.GatePass, Value: &value, Detail: "0.0042 within max 0.01"},
							{Name: "health", State: deploy.GatePass, Detail: "1 of 1 target answered 200"},
						}},
					},
					{
						Name: "eu", State: deploy.WaveBaking, Targets: []string{"eu-2", "eu-3"},
						Batches: []deploy.RolloutBatchStatus{{Index: 1, Targets: []string{"eu-2", "eu-3"}, State: deploy.StepSuccess, StartedAt: &t1, FinishedAt: &t1}},
						Bake:    &deploy.RolloutBake{Duration: 2 * time.Minute, Seconds: 120, Until: &until},
						Approval: &deploy.StatusApproval{Status: "approved", Required: 1, Groups: []string{"sre"},
							Approvals: []deploy.Approval{{Identity: "oidc:ana", Approved: true, Comment: "go", Time: t1}}},
					},
					// A wave the engine has not reached: no batch state yet, no
					// bake started.
					{Name: "rest", State: deploy.WavePending, Targets: []string{"us-1"},
						Batches: []deploy.RolloutBatchStatus{{Index: 1, Targets: []string{"us-1"}}},
						Bake:    &deploy.RolloutBake{Duration: 30 * time.Second, Seconds: 30}},
					{Name: "empty", State: deploy.WavePending},
				},
				Targets: []deploy.RolloutTargetStatus{
					{Name: "eu-1", Labels: map[string]string{"region": "eu", "os": "linux"}, Outcome: deploy.OutcomeTargeted, Wave: "canary", Batch: 1, State: deploy.StepSuccess, Release: str("1.2.0")},
					{Name: "us-1", Outcome: deploy.OutcomeTargeted, Wave: "rest", Batch: 1},
					{Name: "us-2", Labels: map[string]string{"maintenance": "true"}, Outcome: deploy.OutcomeExcluded, State: deploy.StepSkipped},
				},
			},
			want: &model.Rollout{
				State: model.RolloutStateRunning, CurrentWave: &wave, TargetsTotal: 2, TargetsDone: 1,
				Waves: []model.RolloutWave{
					{
						Name: "canary", State: model.WaveStatePassed, Targets: []string{"eu-1"},
						Batches: []model.RolloutBatchStatus{{Index: 1, Targets: []string{"eu-1"}, State: model.RolloutStepStateSuccess, StartedAt: utc(t0), FinishedAt: utc(t1)}},
						Bake:    &model.RolloutBake{Seconds: 60, Until: utc(t1)},
						Gate: &model.RolloutGate{State: model.GateResultPass, At: utc(t1), Checks: []model.RolloutGateCheck{
							{Name: "errors", State: model.GateResultPass, Value: &value, Detail: "0.0042 within max 0.01"},
							{Name: "health", State: model.GateResultPass, Detail: "1 of 1 target answered 200"},
						}},
					},
					{
						Name: "eu", State: model.WaveStateBaking, Targets: []string{"eu-2", "eu-3"},
						Batches: []model.RolloutBatchStatus{{Index: 1, Targets: []string{"eu-2", "eu-3"}, State: model.RolloutStepStateSuccess, StartedAt: utc(t1), FinishedAt: utc(t1)}},
						Bake:    &model.RolloutBake{Seconds: 120, Until: utc(until)},
						Approval: &model.ApprovalStatus{Status: "approved", Required: 1, Groups: []string{"sre"}, Roles: []string{},
							Approvals: []model.Approval{{Identity: "oidc:ana", Approved: true, Comment: "go", Time: t1}}},
					},
					{Name: "rest", State: model.WaveStatePending, Targets: []string{"us-1"},
						Batches: []model.RolloutBatchStatus{{Index: 1, Targets: []string{"us-1"}, State: model.RolloutStepStatePending}},
						Bake:    &model.RolloutBake{Seconds: 30}},
					{Name: "empty", State: model.WaveStatePending, Targets: []string{}, Batches: []model.RolloutBatchStatus{}},
				},
				Targets: []model.RolloutTarget{
					{Name: "eu-1", Labels: []model.KeyValue{{Key: "os", Value: "linux"}, {Key: "region", Value: "eu"}}, Outcome: model.TargetOutcomeTargeted,
						Wave: str("canary"), Batch: ptr(1), State: model.RolloutStepStateSuccess, Release: str("1.2.0")},
					{Name: "us-1", Labels: []model.KeyValue{}, Outcome: model.TargetOutcomeTargeted, Wave: str("rest"), Batch: ptr(1), State: model.RolloutStepStatePending},
					{Name: "us-2", Labels: []model.KeyValue{{Key: "maintenance", Value: "true"}}, Outcome: model.TargetOutcomeExcluded, State: model.RolloutStepStateSkipped},
				},
			},
		},
		{
			name: "paused by a person, a deferred target, a rolled back one",
			in: &deploy.RolloutStatus{
				State: deploy.RolloutPaused, CurrentWave: &wave,
				Waves: []deploy.RolloutWaveStatus{{Name: "eu", State: deploy.WaveDeferred, Targets: []string{"eu-2"}, DeferredUntil: &until,
					Gate: &deploy.RolloutGate{State: deploy.GateNoData, Checks: []deploy.RolloutGateCheck{{Name: "prometheus", State: deploy.GateNoData, Detail: "empty vector"}}}}},
				Targets: []deploy.RolloutTargetStatus{
					{Name: "eu-1", Outcome: deploy.OutcomeTargeted, Wave: "canary", Batch: 1, State: deploy.TargetRolledBack, Release: str("1.1.0"), Error: str("wave eu failed")},
					{Name: "eu-2", Outcome: deploy.OutcomeDeferred, Wave: "eu", Batch: 2, State: deploy.StepPending},
				},
				Pause: &deploy.RolloutPauseStatus{Reason: "paused by oidc:ana", Since: t0, Until: until, By: str("oidc:ana"), MayResume: []string{"role:deployer"}},
			},
			want: &model.Rollout{
				State: model.RolloutStatePaused, CurrentWave: &wave, TargetsTotal: 2, TargetsDone: 0,
				Waves: []model.RolloutWave{{Name: "eu", State: model.WaveStateDeferred, Targets: []string{"eu-2"}, Batches: []model.RolloutBatchStatus{}, DeferredUntil: utc(until),
					Gate: &model.RolloutGate{State: model.GateResultNoData, Checks: []model.RolloutGateCheck{{Name: "prometheus", State: model.GateResultNoData, Detail: "empty vector"}}}}},
				Targets: []model.RolloutTarget{
					{Name: "eu-1", Labels: []model.KeyValue{}, Outcome: model.TargetOutcomeTargeted, Wave: str("canary"), Batch: ptr(1),
						State: model.RolloutStepStateRolledBack, Release: str("1.1.0"), Error: str("wave eu failed")},
					{Name: "eu-2", Labels: []model.KeyValue{}, Outcome: model.TargetOutcomeDeferred, Wave: str("eu"), Batch: ptr(2), State: model.RolloutStepStatePending},
				},
				Pause: &model.RolloutPause{Reason: "paused by oidc:ana", Since: t0.UTC(), Until: until.UTC(), By: str("oidc:ana"), MayResume: []string{"role:deployer"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := toModelRollout(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("toModelRollout =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestRolloutEnumsCoverTheDomain: every state the domain may write is a
// value of the schema's enum (an unknown one would reach clients as a
// value their types do not have).
func TestRolloutEnumsCoverTheDomain(t *testing.T) {
	rollouts := []deploy.RolloutState{deploy.RolloutPending, deploy.RolloutRunning, deploy.RolloutPaused,
		deploy.RolloutAwaitingApproval, deploy.RolloutDeferred, deploy.RolloutCompleted, deploy.RolloutAborted}
	waves := deploy.WaveStates
	steps := []deploy.StepState{deploy.StepPending, deploy.StepRunning, deploy.StepSuccess, deploy.StepError,
		deploy.StepSkipped, deploy.StepCancelled, deploy.TargetRolledBack}
	gates := []deploy.GateResult{deploy.GatePass, deploy.GateFail, deploy.GateInconclusive, deploy.GateNoData}
	outcomes := []deploy.TargetOutcome{deploy.OutcomeTargeted, deploy.OutcomeExcluded, deploy.OutcomeRejected, deploy.OutcomeDeferred}

	for _, s := range rollouts {
		if got := toModelRollout(&deploy.RolloutStatus{State: s}).State; !got.IsValid() {
			t.Errorf("rollout state %q is %q, not a RolloutState", s, got)
		}
	}
	for _, s := range waves {
		if got := toModelRolloutWave(deploy.RolloutWaveStatus{State: s}).State; !got.IsValid() {
			t.Errorf("wave state %q is %q, not a WaveState", s, got)
		}
	}
	for _, s := range steps {
		if got := toModelRolloutStepState(s); !got.IsValid() {
			t.Errorf("step state %q is %q, not a RolloutStepState", s, got)
		}
	}
	for _, g := range gates {
		if got := toModelGateResult(g); !got.IsValid() {
			t.Errorf("gate result %q is %q, not a GateResult", g, got)
		}
	}
	for _, o := range outcomes {
		if got := toModelRolloutTarget(deploy.RolloutTargetStatus{Outcome: o}).Outcome; !got.IsValid() {
			t.Errorf("outcome %q is %q, not a TargetOutcome", o, got)
		}
	}
}

// rolloutFakes are the rollout actions of fakeService: each records its
// call and answers as set.
type rolloutFakes struct {
	rolloutAction func(ctx context.Context, action deploy.RolloutAction, id, text, pause string) (*deploy.Deployment, error)
}

func (f *rolloutFakes) act(ctx context.Context, a deploy.RolloutAction, id, text, pause string) (*deploy.Deployment, error) {
	if f.rolloutAction == nil {
		return nil, errNotFaked
	}
	return f.rolloutAction(ctx, a, id, text, pause)
}

func (f *rolloutFakes) PauseRollout(ctx context.Context, id, reason string) (*deploy.Deployment, error) {
	return f.act(ctx, deploy.RolloutActionPause, id, reason, "")
}

func (f *rolloutFakes) ResumeRollout(ctx context.Context, id, comment, pause string) (*deploy.Deployment, error) {
	return f.act(ctx, deploy.RolloutActionResume, id, comment, pause)
}

func (f *rolloutFakes) AbortRollout(ctx context.Context, id, reason string) (*deploy.Deployment, error) {
	return f.act(ctx, deploy.RolloutActionAbort, id, reason, "")
}

// rolloutAt is hello-7, a deploy in prod whose rollout of two waves has
// done its first: paused, with its second wave awaiting approval (the
// default), finishing (both waves passed, its last steps left) or rolling
// back (the second wave's batch failed, its compensation runs).
func rolloutAt(at string) *deploy.Deployment {
	t0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	ran := func(name string, pass, batch int, state deploy.StepState, out map[string]string) deploy.Step {
		return deploy.Step{DeploymentID: "hello-7", Name: name, Pass: pass, Batch: batch, Kind: deploy.KindRun,
			State: state, StartedAt: &t0, Output: out}
	}
	d := &deploy.Deployment{ID: "hello-7", Tenant: "demo", Application: "hello", Environment: "prod",
		State: deploy.StatePending, Requester: "token:ci",
		Plan:  deploy.Plan{Steps: []deploy.PlannedStep{{Name: "deploy"}, {Name: "activation"}, {Name: "cleanup"}}},
		Steps: []deploy.Step{ran("deploy", 1, 1, deploy.StepSuccess, nil), ran("activation", 1, 1, deploy.StepSuccess, nil)}}
	d.Effective.RolloutPlan = &deploy.RolloutPlan{Passes: []deploy.RolloutPass{
		{Index: 1, Name: "one", Batches: []deploy.RolloutBatch{{Index: 1, Targets: []string{"a"}}}},
		{Index: 2, Name: "two", Approval: true, Batches: []deploy.RolloutBatch{{Index: 1, Targets: []string{"b"}}}},
	}, Targets: []deploy.PlannedTarget{{Name: "a", Outcome: deploy.OutcomeTargeted, Pass: 1, Batch: 1},
		{Name: "b", Outcome: deploy.OutcomeTargeted, Pass: 2, Batch: 1}}}
	switch at {
	case "paused":
		d.Steps = append(d.Steps, ran(deploy.StepPause, 2, 1, deploy.StepRunning, map[string]string{deploy.OutputPauseReason: "paused by token:ci", deploy.OutputPauseBy: "token:ci"}))
	case "finishing":
		d.Steps = append(d.Steps, ran(deploy.StepApproval, 2, 0, deploy.StepSuccess, nil),
			ran("deploy", 2, 1, deploy.StepSuccess, nil), ran("activation", 2, 1, deploy.StepSuccess, nil), ran("cleanup", 0, 0, deploy.StepRunning, nil))
	case "rolling-back":
		d.Steps = append(d.Steps, ran(deploy.StepApproval, 2, 0, deploy.StepSuccess, nil), ran("deploy", 2, 1, deploy.StepError, nil))
		undo := ran("deploy", 2, 1, deploy.StepRunning, nil)
		undo.Kind = deploy.KindRollback
		d.Steps, d.Rollback = append(d.Steps, undo), deploy.RollbackRunning
	default:
		d.Steps = append(d.Steps, ran(deploy.StepApproval, 2, 0, deploy.StepRunning, map[string]string{deploy.OutputApprovalRequired: "1"}))
	}
	return d
}

// TestRolloutActions: the mutations hand the service their arguments and
// its refusals keep their codes; the can* fields offer an action only in a
// state that allows it and to whom holds the permission.
func TestRolloutActions(t *testing.T) {
	type call struct {
		action                  deploy.RolloutAction
		id, text, pause, viewer string
	}
	var calls []call
	svc := &fakeService{
		get: func(_ context.Context, id string) (*deploy.Deployment, error) { return rolloutAt(id), nil },
		can: func(ctx context.Context, _ deploy.Resource, perm string) bool {
			who := deploy.IdentityFrom(ctx).Subject
			return who == "token:admin" && (perm == deploy.PermCancel || perm == deploy.PermApprove)
		},
	}
	svc.rolloutAction = func(ctx context.Context, a deploy.RolloutAction, id, text, pause string) (*deploy.Deployment, error) {
		calls = append(calls, call{a, id, text, pause, deploy.IdentityFrom(ctx).Subject})
		switch id {
		case "running":
			return nil, deploy.Errorf(deploy.ECONFLICT, `deployment "running": its rollout is not paused: running`)
		case "viewed":
			return nil, deploy.Errorf(deploy.EFORBIDDEN, "token:viewer does not hold deployment.cancel")
		}
		if a == deploy.RolloutActionPause {
			return rolloutAt("paused"), nil
		}
		return rolloutAt("awaiting"), nil
	}
	srv := newTestServer(t, svc, newFakeEvents())
	mutations := []struct {
		name, query, field, code string
	}{
		{name: "pause", field: "pauseRollout", query: `mutation { pauseRollout(id: "hello-7", reason: "look") { id rollout { state pause { step reason by } } } }`},
		{name: "resume", field: "resumeRollout", query: `mutation { resumeRollout(id: "hello-7", comment: "fine", pause: "pause[2/1]") { id } }`},
		{name: "abort", field: "abortRollout", query: `mutation { abortRollout(id: "hello-7") { id } }`},
		{name: "conflict", field: "resumeRollout", code: "CONFLICT", query: `mutation { resumeRollout(id: "running") { id } }`},
		{name: "forbidden", field: "pauseRollout", code: "FORBIDDEN", query: `mutation { pauseRollout(id: "viewed") { id } }`},
	}
	for _, tt := range mutations {
		t.Run(tt.name, func(t *testing.T) {
			resp := srv.query(t, "admin", tt.query, nil)
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors %+v, want one %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 || !strings.Contains(string(resp.Data[tt.field]), `"id":"hello-7"`) {
				t.Fatalf("got %s %+v", resp.Data[tt.field], resp.Errors)
			}
			// The pause is named as a resume names it.
			if tt.name == "pause" && !strings.Contains(string(resp.Data[tt.field]), `"pause":{"step":"pause[2/1]"`) {
				t.Errorf("pause not named: %s", resp.Data[tt.field])
			}
		})
	}
	want := []call{{deploy.RolloutActionPause, "hello-7", "look", "", "token:admin"}, {deploy.RolloutActionResume, "hello-7", "fine", "pause[2/1]", "token:admin"},
		{deploy.RolloutActionAbort, "hello-7", "", "", "token:admin"}}
	if len(calls) != 5 || !reflect.DeepEqual(calls[:3], want) {
		t.Fatalf("calls %+v, want %+v first", calls, want)
	}
	affordances := []struct {
		name, id, token, want string
	}{
		{"paused, allowed", "paused", "admin", `{"canPauseRollout":false,"canResumeRollout":true,"canAbortRollout":true,"canApprove":false,"rollout":{"state":"PAUSED"}}`},
		{"paused, viewer", "paused", "viewer", `{"canPauseRollout":false,"canResumeRollout":false,"canAbortRollout":false,"canApprove":false,"rollout":{"state":"PAUSED"}}`},
		{"awaiting, allowed", "awaiting", "admin", `{"canPauseRollout":true,"canResumeRollout":false,"canAbortRollout":true,"canApprove":true,"rollout":{"state":"AWAITING_APPROVAL"}}`},
		{"awaiting, the requester", "awaiting", "ci", `{"canPauseRollout":false,"canResumeRollout":false,"canAbortRollout":false,"canApprove":false,"rollout":{"state":"AWAITING_APPROVAL"}}`},
		// Nothing left for a pause or an abort to act on: no button.
		{"finishing, allowed", "finishing", "admin", `{"canPauseRollout":false,"canResumeRollout":false,"canAbortRollout":false,"canApprove":false,"rollout":{"state":"RUNNING"}}`},
		{"rolling back, allowed", "rolling-back", "admin", `{"canPauseRollout":false,"canResumeRollout":false,"canAbortRollout":false,"canApprove":false,"rollout":{"state":"RUNNING"}}`},
	}
	for _, tt := range affordances {
		t.Run(tt.name, func(t *testing.T) {
			resp := srv.query(t, tt.token, `query($id: ID!) { deployment(id: $id) { canPauseRollout canResumeRollout canAbortRollout canApprove rollout { state } } }`,
				map[string]any{"id": tt.id})
			if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != tt.want {
				t.Errorf("got  %s %+v\nwant %s", resp.Data["deployment"], resp.Errors, tt.want)
			}
		})
	}
}
