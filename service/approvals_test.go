package service_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// TestAnswerPassAnswersTheApprovalNamed (L3 of the review of issue 13): a
// chat button names the approval it asks (the deploy's own, or a wave's).
// Its answer approves exactly that one: when the deploy awaits another, or
// none, it is refused as no longer asked, and nothing is recorded, where
// Approve would have approved whatever the deploy awaits at its own read.
func TestAnswerPassAnswersTheApprovalNamed(t *testing.T) {
	ctx := t.Context()
	db := migratedDB(t)
	store := postgres.NewStore(db)
	svc := demoService(t, store, "p, token:alice, demo, hello/*, deployment.approve\np, token:alice, demo, hello/*, deployment.read\n")
	svc.Use(&enqueued{})
	create := func(t *testing.T, id string, state deploy.State) {
		t.Helper()
		d := deploy.Deployment{ID: id, Tenant: "demo", Application: "hello", Environment: "prod", State: state,
			Requester: "token:ci", Decision: deploy.Decision{Approvals: &deploy.ApprovalRequirement{Count: 2}},
			Descriptor: deploy.Descriptor{APIVersion: "manent/v1", ID: id, Application: "hello", Environment: "prod"}}
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	alice := deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:alice"})
	for _, tc := range []struct {
		name, id string
		state    deploy.State
		pass     int
		approve  bool
		want     deploy.Code
		message  string
		recorded bool
	}{
		{name: "the deploy's own approval, asked", id: "hello-1", state: deploy.StateAwaitingApproval, pass: 0, approve: true, recorded: true},
		{name: "a wave's approval while the deploy awaits its own", id: "hello-2", state: deploy.StateAwaitingApproval, pass: 2, approve: true,
			want: deploy.ECONFLICT, message: `this approval is no longer asked: deployment "<id>" now awaits its own approval`},
		{name: "a wave's rejection while the deploy awaits its own", id: "hello-3", state: deploy.StateAwaitingApproval, pass: 1, approve: false,
			want: deploy.ECONFLICT, message: `this approval is no longer asked: deployment "<id>" now awaits its own approval`},
		{name: "the deploy's own approval once it is approved", id: "hello-4", state: deploy.StateEnqueued, pass: 0, approve: true,
			want: deploy.ECONFLICT, message: `deployment "<id>" is not awaiting approval: ENQUEUED`},
		{name: "a pass that is none", id: "hello-5", state: deploy.StateAwaitingApproval, pass: -1, approve: true, want: deploy.EUNPROCESSABLE,
			message: "pass must be 0 (the deploy's own approval) or a wave's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			create(t, id, tc.state)
			_, err := svc.AnswerPass(alice, id, tc.pass, tc.approve, "from Slack")
			if got := deploy.ErrorCode(err); got != tc.want {
				t.Fatalf("AnswerPass = %v, want code %q", err, tc.want)
			}
			if tc.message != "" {
				var de *deploy.Error
				if !errors.As(err, &de) || de.Message != strings.ReplaceAll(tc.message, "<id>", id) {
					t.Errorf("message %v, want %q", err, strings.ReplaceAll(tc.message, "<id>", id))
				}
			}
			approvals, err := store.Approvals(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(approvals) == 1; got != tc.recorded {
				t.Errorf("approvals %+v, recorded = %v, want %v", approvals, got, tc.recorded)
			}
			d, err := store.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if d.State != tc.state {
				t.Errorf("state %s, want %s unchanged", d.State, tc.state)
			}
		})
	}
}

// TestPendingApprovalsBeyondAPage: the inbox holds every approval the
// caller may give, however many other deploys run or await approvals the
// caller may not give: here an older deploy awaiting its own approval and
// an older one whose rollout awaits a wave's, behind more running deploys
// and more deploys the caller requested than a page holds. It leaves out
// what the caller answered already, and the wave's card has the wave's
// answers and the deploy's deliveries, as the deploy's status.
func TestPendingApprovalsBeyondAPage(t *testing.T) {
	ctx := t.Context()
	db := migratedDB(t)
	store := postgres.NewStore(db)
	svc := demoService(t, store, "p, token:alice, demo, hello/*, deployment.approve\np, token:alice, demo, hello/*, deployment.read\n")
	svc.Use(&enqueued{})
	create := func(id, requester string, state deploy.State, d deploy.Deployment) {
		t.Helper()
		d.ID, d.Tenant, d.Application, d.Environment, d.State, d.Requester = id, "demo", "hello", "prod", state, requester
		d.Descriptor.APIVersion, d.Descriptor.ID, d.Descriptor.Application, d.Descriptor.Environment = "manent/v1", id, "hello", "prod"
		if _, _, err := store.CreateDeployment(ctx, d, func(any) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.SQL().ExecContext(ctx, query, args...); err != nil {
			t.Fatal(err)
		}
	}
	asks := deploy.Deployment{Decision: deploy.Decision{Approvals: &deploy.ApprovalRequirement{Count: 2}}}
	create("own", "token:ci", deploy.StateAwaitingApproval, asks)
	create("answered", "token:ci", deploy.StateAwaitingApproval, asks)
	wave := deploy.Deployment{Effective: deploy.Effective{Rollout: &deploy.RolloutSpec{}}}
	wave.Descriptor.Callbacks = []deploy.Callback{{URL: "https://ci.example.com/hook"}}
	create("wave", "token:ci", deploy.StateEnqueued, wave)
	// The rollout asks wave 2's approval; ops answered it, alice not yet.
	exec(`INSERT INTO manent.deployment_steps (deployment_id, name, position, state, kind, pass, started_at)
		VALUES ('wave', 'approval', 3, 'RUNNING', 'run', 2, now())`)
	exec(`INSERT INTO manent.approvals (deployment_id, pass, identity, approved, comment) VALUES ('wave', 2, 'token:ops', false, 'no'),
		('answered', 0, 'token:alice', true, '')`)
	exec(`INSERT INTO manent.callback_deliveries (id, deployment_id, callback, url, body, event_type, event_id, state)
		VALUES ('wave:event:started:callback:0', 'wave', 0, 'https://ci.example.com/hook', '{}', 'started', 'wave:event:started', 'delivered')`)
	for i := range deploy.MaxPageSize + 1 {
		create(fmt.Sprintf("running-%d", i), "token:ci", deploy.StateEnqueued, deploy.Deployment{})
		create(fmt.Sprintf("mine-%d", i), "token:alice", deploy.StateAwaitingApproval, asks)
	}
	// A deploy is created waiting or enqueued; these run now.
	exec(`UPDATE manent.deployments SET state = 'PENDING' WHERE id = 'wave' OR id LIKE 'running-%'`)

	got, err := svc.PendingApprovals(deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:alice"}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range got {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, []string{"wave", "own"}) {
		t.Fatalf("alice's inbox %v, want [wave own]", ids)
	}
	w := got[0]
	if len(w.WaveApprovals) != 1 || w.WaveApprovals[0].Identity != "token:ops" || len(w.Deliveries) != 1 {
		t.Errorf("the wave's card: answers %+v, deliveries %+v; want ops's answer and one delivery", w.WaveApprovals, w.Deliveries)
	}
	if got[1].Approvals == nil {
		t.Errorf("the deploy's card has no list of answers")
	}
}
