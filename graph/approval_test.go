package graph

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

var approvalT0 = time.Date(2025, 3, 2, 9, 0, 0, 0, time.UTC)

// awaiting is a deploy of hello to prod waiting for one approval out of two.
func awaiting(id string) deploy.Deployment {
	d := newDeployBoard().d
	d.ID, d.Environment, d.State = id, "prod", deploy.StateAwaitingApproval
	expires := approvalT0.Add(24 * time.Hour)
	d.ApprovalExpiresAt = &expires
	d.Decision = deploy.Decision{
		Rule: "prod-approval", Requires: []string{"approvals"},
		Approvals: &deploy.ApprovalRequirement{Count: 2, Groups: []string{"admins"}, Expiry: 24 * time.Hour},
		Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "hello-0"},
		Freeze:    &deploy.Freeze{Window: "sunday", Overridden: true, Reason: "hotfix"},
		Change:    &deploy.ChangeRequirement{Connector: "servicenow"},
	}
	d.Approvals = []deploy.Approval{{DeploymentID: id, Identity: "token:ops", Approved: true, Comment: "ok", Time: approvalT0}}
	return d
}

func TestApprovalFields(t *testing.T) {
	d := awaiting("hello-9")
	svc := &fakeService{
		get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil },
		can: func(context.Context, deploy.Resource, string) bool { return true },
	}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "admin", `{ deployment(id: "hello-9") {
	  approval { status required groups expiresAt approvals { identity approved comment time } }
	  decision { rule approvalsRequired approvalGroups change freeze promotionFrom promotionSatisfiedBy }
	} }`, nil)
	if len(resp.Errors) > 0 {
		t.Fatalf("errors: %+v", resp.Errors)
	}
	want := `{"approval":{"status":"waiting","required":2,"groups":["admins"],"expiresAt":"2025-03-03T09:00:00Z",` +
		`"approvals":[{"identity":"token:ops","approved":true,"comment":"ok","time":"2025-03-02T09:00:00Z"}]},` +
		`"decision":{"rule":"prod-approval","approvalsRequired":2,"approvalGroups":["admins"],"change":"servicenow",` +
		`"freeze":"sunday","promotionFrom":"staging","promotionSatisfiedBy":"hello-0"}}`
	if got := string(resp.Data["deployment"]); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// Without an approval rule, the section is null and the decision says nothing of it.
	d = newDeployBoard().d
	resp = srv.query(t, "admin", `{ deployment(id: "hello-1") { approval { status } decision { approvalsRequired approvalGroups freeze } } }`, nil)
	if got := string(resp.Data["deployment"]); got != `{"approval":null,"decision":{"approvalsRequired":null,"approvalGroups":null,"freeze":null}}` {
		t.Errorf("no rule: got %s %+v", got, resp.Errors)
	}
}

func TestCanApprove(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		change func(d *deploy.Deployment)
		perm   bool
		want   bool
	}{
		{name: "another identity with the permission", token: "admin", perm: true, want: true},
		{name: "without the permission", token: "admin", perm: false},
		{name: "the requester", token: "ci", perm: true, change: func(d *deploy.Deployment) { d.Decision.Approvals.Groups = nil }},
		{name: "already answered", token: "admin", perm: true, change: func(d *deploy.Deployment) {
			d.Approvals = append(d.Approvals, deploy.Approval{Identity: "token:admin", Approved: true})
		}},
		{name: "not in the required groups", token: "viewer", perm: true},
		{name: "any group when none is required", token: "viewer", perm: true, want: true,
			change: func(d *deploy.Deployment) { d.Decision.Approvals.Groups = nil }},
		{name: "no longer waiting", token: "admin", perm: true, change: func(d *deploy.Deployment) { d.State = deploy.StateEnqueued }},
		{name: "no approval required", token: "admin", perm: true, change: func(d *deploy.Deployment) { d.Decision.Approvals = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := awaiting("hello-9")
			if tt.change != nil {
				tt.change(&d)
			}
			svc := &fakeService{
				get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil },
				can: func(_ context.Context, res deploy.Resource, perm string) bool {
					return tt.perm && perm == deploy.PermApprove && res.Environment == "prod"
				},
			}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, tt.token, `{ deployment(id: "hello-9") { canApprove } }`, nil)
			want := `{"canApprove":false}`
			if tt.want {
				want = `{"canApprove":true}`
			}
			if len(resp.Errors) > 0 || string(resp.Data["deployment"]) != want {
				t.Errorf("got %s %+v, want %s", resp.Data["deployment"], resp.Errors, want)
			}
		})
	}
}

func TestApproveAndRejectMutations(t *testing.T) {
	type call struct{ op, id, comment, subject string }
	var calls []call
	answer := func(op string, state deploy.State) func(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
		return func(ctx context.Context, id, comment string) (*deploy.Deployment, error) {
			calls = append(calls, call{op, id, comment, deploy.IdentityFrom(ctx).Subject})
			switch id {
			case "mine":
				return nil, deploy.Errorf(deploy.EFORBIDDEN, "you requested this deploy: another identity must approve it")
			case "done":
				return nil, deploy.Errorf(deploy.ECONFLICT, "deployment done is not awaiting approval")
			}
			d := awaiting(id)
			d.State = state
			d.Approvals = append(d.Approvals, deploy.Approval{Identity: "token:admin", Approved: op == "approve", Comment: comment, Time: approvalT0})
			return &d, nil
		}
	}
	svc := &fakeService{approve: answer("approve", deploy.StateEnqueued), reject: answer("reject", deploy.StateRejected)}
	srv := newTestServer(t, svc, newFakeEvents())

	tests := []struct {
		name, query, field string
		vars               map[string]any
		want               string
		code               string
	}{
		{name: "approve", field: "approveDeployment",
			query: `mutation($id: ID!, $c: String) { approveDeployment(id: $id, comment: $c) { id state approval { status approvals { identity approved comment } } } }`,
			vars:  map[string]any{"id": "hello-9", "c": "go"},
			want:  `{"id":"hello-9","state":"ENQUEUED","approval":{"status":"approved","approvals":[{"identity":"token:ops","approved":true,"comment":"ok"},{"identity":"token:admin","approved":true,"comment":"go"}]}}`},
		{name: "reject without a comment", field: "rejectDeployment",
			query: `mutation($id: ID!) { rejectDeployment(id: $id) { id state approval { status } } }`,
			vars:  map[string]any{"id": "hello-9"},
			want:  `{"id":"hello-9","state":"REJECTED","approval":{"status":"rejected"}}`},
		{name: "own deploy", field: "approveDeployment", code: "FORBIDDEN",
			query: `mutation { approveDeployment(id: "mine") { id } }`},
		{name: "not waiting", field: "rejectDeployment", code: "CONFLICT",
			query: `mutation { rejectDeployment(id: "done") { id } }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := srv.query(t, "admin", tt.query, tt.vars)
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors %+v, want one %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 || string(resp.Data[tt.field]) != tt.want {
				t.Errorf("got  %s %+v\nwant %s", resp.Data[tt.field], resp.Errors, tt.want)
			}
		})
	}
	if len(calls) != 4 || calls[0] != (call{"approve", "hello-9", "go", "token:admin"}) || calls[1] != (call{"reject", "hello-9", "", "token:admin"}) {
		t.Errorf("calls = %+v", calls)
	}
}

func TestPendingApprovalsQuery(t *testing.T) {
	var subject string
	svc := &fakeService{pending: func(ctx context.Context) ([]deploy.Deployment, error) {
		subject = deploy.IdentityFrom(ctx).Subject
		return []deploy.Deployment{awaiting("hello-9"), awaiting("hello-8")}, nil
	}}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "admin", `{ pendingApprovals { id state } }`, nil)
	if len(resp.Errors) > 0 || string(resp.Data["pendingApprovals"]) != `[{"id":"hello-9","state":"AWAITING_APPROVAL"},{"id":"hello-8","state":"AWAITING_APPROVAL"}]` || subject != "token:admin" {
		t.Errorf("got %s %+v as %q", resp.Data["pendingApprovals"], resp.Errors, subject)
	}
}

// approvalInbox is the state a fake PendingApprovals reads, per identity,
// and the states a fake Get reads.
type approvalInbox struct {
	mu     sync.Mutex
	byUser map[string][]deploy.Deployment
	states map[string]deploy.State
	// full are the deploys a fake Get reads whole, before states.
	full map[string]*deploy.Deployment
	// reads receives a value after each list read, gets the ID of each Get
	// (without blocking them); listReads counts the list reads.
	reads     chan struct{}
	gets      chan string
	listReads int
}

func newApprovalInbox() *approvalInbox {
	return &approvalInbox{byUser: map[string][]deploy.Deployment{}, states: map[string]deploy.State{},
		full: map[string]*deploy.Deployment{}, reads: make(chan struct{}, 16), gets: make(chan string, 16)}
}

func (b *approvalInbox) set(subject string, ds ...deploy.Deployment) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.byUser[subject] = ds
}

func (b *approvalInbox) setState(id string, st deploy.State) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.states[id] = st
}

func (b *approvalInbox) setFull(d *deploy.Deployment) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.full[d.ID] = d
}

func (b *approvalInbox) readCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.listReads
}

func (b *approvalInbox) service() *fakeService {
	return &fakeService{
		pending: func(ctx context.Context) ([]deploy.Deployment, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.listReads++
			select {
			case b.reads <- struct{}{}:
			default:
			}
			return append([]deploy.Deployment(nil), b.byUser[deploy.IdentityFrom(ctx).Subject]...), nil
		},
		get: func(_ context.Context, id string) (*deploy.Deployment, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			select {
			case b.gets <- id:
			default:
			}
			if d, ok := b.full[id]; ok {
				c := *d
				return &c, nil
			}
			st, ok := b.states[id]
			if !ok {
				return nil, deploy.Errorf(deploy.ENOTFOUND, "deployment %s not found", id)
			}
			d := newDeployBoard().d
			d.ID, d.State = id, st
			return &d, nil
		},
	}
}

func (b *approvalInbox) awaitRead(t *testing.T) {
	t.Helper()
	select {
	case <-b.reads:
	case <-time.After(wait):
		t.Fatal("no read of the pending approvals")
	}
}

func (b *approvalInbox) awaitGet(t *testing.T, id string) {
	t.Helper()
	select {
	case got := <-b.gets:
		if got != id {
			t.Fatalf("Get(%s), want Get(%s)", got, id)
		}
	case <-time.After(wait):
		t.Fatalf("no Get(%s)", id)
	}
}

func TestPendingApprovalsSubscription(t *testing.T) {
	inbox := newApprovalInbox()
	inbox.set("token:admin", awaiting("hello-9"))
	inbox.setState("hello-9", deploy.StateAwaitingApproval)
	inbox.setState("other-1", deploy.StatePending)
	events := newFakeEvents()
	srv := newTestServer(t, inbox.service(), events)
	c, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer admin"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": `subscription { pendingApprovals { id } }`,
	})})
	ids := func() []string {
		t.Helper()
		r := c.next()
		if r == nil || len(r.Errors) > 0 {
			t.Fatalf("next = %+v", r)
		}
		var list []struct{ ID string }
		if err := json.Unmarshal(r.Data["pendingApprovals"], &list); err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, d := range list {
			out = append(out, d.ID)
		}
		return out
	}
	// Events are handled one burst at a time, in order: when a list arrives,
	// the events published before it were handled, so the number of list
	// reads tells which of them read the list.
	wantReads := func(n int) {
		t.Helper()
		if got := inbox.readCount(); got != n {
			t.Errorf("%d reads of the list, want %d", got, n)
		}
	}
	if got := ids(); len(got) != 1 || got[0] != "hello-9" {
		t.Fatalf("first list = %v", got)
	}
	inbox.awaitRead(t)

	// A deploy that does not await approval is read alone, not the list.
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "other-1"})
	inbox.awaitGet(t, "other-1")
	// Nor one this subscriber may not read (another identity's inbox).
	inbox.set("token:viewer", awaiting("hello-7"))
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-7"})
	inbox.awaitGet(t, "hello-7")
	// A deploy that awaits approval now reads the list.
	inbox.set("token:admin", awaiting("hello-9"), awaiting("hello-8"))
	inbox.setState("hello-8", deploy.StateAwaitingApproval)
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-8"})
	if got := ids(); len(got) != 2 || got[1] != "hello-8" {
		t.Fatalf("after a new deploy = %v", got)
	}
	inbox.awaitGet(t, "hello-8")
	wantReads(2)

	// Log lines never change the list; a change of a listed deploy reads
	// the list without reading the deploy first.
	inbox.set("token:admin", awaiting("hello-8"))
	inbox.setState("hello-9", deploy.StateEnqueued)
	events.Publish(deploy.Event{Kind: deploy.EventLog, DeploymentID: "hello-9"})
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-9"})
	if got := ids(); len(got) != 1 || got[0] != "hello-8" {
		t.Fatalf("after hello-9 was approved = %v", got)
	}
	wantReads(3)

	// hello-9 left the list: its next events are read alone.
	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-9"})
	inbox.awaitGet(t, "hello-9")
	inbox.set("token:admin")
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-8"})
	if got := ids(); len(got) != 0 {
		t.Fatalf("after the approvals = %v, want an empty list", got)
	}
	wantReads(4)
	select {
	case id := <-inbox.gets:
		t.Errorf("Get(%s) of a listed deploy", id)
	default:
	}
}

// TestPendingApprovalsSubscriptionWaveAwaitingApproval: a running deploy
// (PENDING) whose rollout starts to wait for the approval of a wave enters
// the inbox live, as a deploy AWAITING_APPROVAL does; a running deploy
// whose rollout waits for nothing does not read the list.
func TestPendingApprovalsSubscriptionWaveAwaitingApproval(t *testing.T) {
	inbox := newApprovalInbox()
	running := rolloutAt("awaiting")
	running.ID = "fleet-1"
	running.Steps = running.Steps[:len(running.Steps)-1]
	inbox.setFull(running)
	events := newFakeEvents()
	srv := newTestServer(t, inbox.service(), events)
	c, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer admin"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": `subscription { pendingApprovals { id state rollout { state } } }`,
	})})
	list := func() string {
		t.Helper()
		r := c.next()
		if r == nil || len(r.Errors) > 0 {
			t.Fatalf("next = %+v", r)
		}
		return string(r.Data["pendingApprovals"])
	}
	if got := list(); got != "[]" {
		t.Fatalf("first list = %s", got)
	}
	inbox.awaitRead(t)

	// Its first wave runs: one Get, no read of the list.
	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "fleet-1"})
	inbox.awaitGet(t, "fleet-1")

	// Its second wave asks an approval: the list is read and sent.
	asking := rolloutAt("awaiting")
	asking.ID = "fleet-1"
	inbox.setFull(asking)
	inbox.set("token:admin", *asking)
	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "fleet-1"})
	if got, want := list(), `[{"id":"fleet-1","state":"PENDING","rollout":{"state":"AWAITING_APPROVAL"}}]`; got != want {
		t.Fatalf("after the wave asked = %s, want %s", got, want)
	}
	if got := inbox.readCount(); got != 2 {
		t.Errorf("%d reads of the list, want 2", got)
	}

	// Another identity answers the wave: the deploy's updated_at stays, the
	// list is sent again with the answer.
	answered := *asking
	answered.WaveApprovals = []deploy.Approval{{DeploymentID: "fleet-1", Pass: 2, Identity: "token:ops", Approved: true, Time: time.Now()}}
	inbox.set("token:admin", answered)
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "fleet-1"})
	if got, want := list(), `[{"id":"fleet-1","state":"PENDING","rollout":{"state":"AWAITING_APPROVAL"}}]`; got != want {
		t.Fatalf("after token:ops answered = %s, want %s", got, want)
	}
	if got := inbox.readCount(); got != 3 {
		t.Errorf("%d reads of the list, want 3", got)
	}
}

func TestPendingApprovalsSubscriptionFirstReadFails(t *testing.T) {
	l := Live{Service: &fakeService{pending: func(context.Context) ([]deploy.Deployment, error) {
		return nil, deploy.Errorf(deploy.EFORBIDDEN, "no")
	}}, Events: newFakeEvents()}
	if _, err := l.PendingApprovals(context.Background()); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Errorf("err = %v, want FORBIDDEN", err)
	}
}
