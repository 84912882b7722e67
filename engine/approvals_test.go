package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// fakeGovernor is a hand-written deploy.Governor: each test says what it decides.
type fakeGovernor struct {
	mu     sync.Mutex
	decide func(deploy.GovernanceInput) (deploy.Decision, error)
	frozen func(deploy.GovernanceInput) *deploy.Freeze
}

func (g *fakeGovernor) Decide(_ context.Context, in deploy.GovernanceInput) (deploy.Decision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decide == nil {
		return deploy.Decision{}, nil
	}
	return g.decide(in)
}

func (g *fakeGovernor) Frozen(_ context.Context, in deploy.GovernanceInput) (*deploy.Freeze, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.frozen == nil {
		return nil, nil
	}
	return g.frozen(in), nil
}

// prodNeeds makes deploys to prod wait for count approvals within expiry.
func prodNeeds(count int, expiry time.Duration) *fakeGovernor {
	return &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		if in.Environment != "prod" {
			return deploy.Decision{}, nil
		}
		return deploy.Decision{Rule: "prod-approval", Requires: []string{"approvals"},
			Approvals: &deploy.ApprovalRequirement{Count: count, Expiry: expiry}}, nil
	}}
}

func as(e *env, who string) context.Context {
	return deploy.WithIdentity(e.ctx, deploy.Identity{Subject: who})
}

func TestApprovedByTwoOthersRuns(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(2, time.Hour)})
	d := e.submit("p-approve", "app", "prod")
	if d.State != deploy.StateAwaitingApproval || d.ApprovalExpiresAt == nil {
		t.Fatalf("submitted = %s, expires %v", d.State, d.ApprovalExpiresAt)
	}
	// The requester can never approve their own deploy.
	if _, err := e.eng.Approve(e.ctx, "p-approve", "lgtm"); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("self-approval: %v, want FORBIDDEN", err)
	}
	// A viewer holds no deployment.approve.
	if _, err := e.eng.Approve(as(e, "token:viewer"), "p-approve", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("viewer approval: %v, want FORBIDDEN", err)
	}
	// One identity counts once, however often it approves: a second
	// approval is refused, never answered as if it had counted.
	if _, err := e.eng.Approve(as(e, "token:ops1"), "p-approve", "ok"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "p-approve", "ok"); deploy.ErrorCode(err) != deploy.ECONFLICT ||
		!strings.Contains(err.Error(), "token:ops1 already approved") {
		t.Fatalf("a second approval of one identity: %v, want CONFLICT saying it already approved", err)
	}
	got, err := e.store.Get(e.ctx, "p-approve")
	if err != nil || got.State != deploy.StateAwaitingApproval || len(got.Approvals) != 1 {
		t.Fatalf("after one approver twice: %s with %d approvals, %v", got.State, len(got.Approvals), err)
	}
	if st := deploy.NewStatus(got); st.Approval == nil || st.Approval.Status != "waiting" || st.Approval.Required != 2 {
		t.Fatalf("status approval = %+v", st.Approval)
	}
	if n := e.plugin.callCount("p-approve"); n != 0 {
		t.Fatalf("ran %d times before approval", n)
	}
	if _, err := e.eng.Approve(as(e, "token:ops2"), "p-approve", "ship it"); err != nil {
		t.Fatal(err)
	}
	d = e.waitState("p-approve", deploy.StateSuccess)
	if st := deploy.NewStatus(d); st.Approval == nil || st.Approval.Status != "approved" || len(st.Approval.Approvals) != 2 {
		t.Fatalf("final approval section = %+v", st.Approval)
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "p-approve", ""); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("approving a finished deploy: %v, want CONFLICT", err)
	}
}

func TestRejectedRunsNothing(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(1, time.Hour)})
	e.submit("p-reject", "app", "prod")
	if _, err := e.eng.Reject(as(e, "token:ops1"), "p-reject", "not during the sale"); err != nil {
		t.Fatal(err)
	}
	d := e.waitState("p-reject", deploy.StateRejected)
	if !strings.Contains(d.Error, "token:ops1") || !strings.Contains(d.Error, "not during the sale") {
		t.Fatalf("error = %q", d.Error)
	}
	if n := e.plugin.callCount("p-reject"); n != 0 || len(d.Steps) != 0 {
		t.Fatalf("a rejected deploy ran: %d plugin calls, %d steps", n, len(d.Steps))
	}
}

// An approver who approved and then rejects changed their mind: the
// rejection is recorded and ends the deploy REJECTED (a veto is never
// lost), while approving twice is refused and counts once. Neither is ever
// answered as a success that recorded nothing.
func TestSecondAnswerOfOneIdentity(t *testing.T) {
	tests := []struct {
		name     string
		second   bool // approved
		code     deploy.Code
		state    deploy.State
		approved bool // the identity's answer that stays
		audit    string
	}{
		{name: "rejecting after approving", second: false, state: deploy.StateRejected, audit: "deployment.reject"},
		{name: "approving twice", second: true, code: deploy.ECONFLICT, state: deploy.StateAwaitingApproval,
			approved: true, audit: "deployment.approve"},
	}
	e := newEnvWith(t, envOptions{governor: prodNeeds(2, time.Hour)})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("p-second-%d", i)
			e.submit(id, "app", "prod")
			if _, err := e.eng.Approve(as(e, "token:ops1"), id, "ok"); err != nil {
				t.Fatal(err)
			}
			answer := e.eng.Reject
			if tt.second {
				answer = e.eng.Approve
			}
			d, err := answer(as(e, "token:ops1"), id, "changed my mind")
			if deploy.ErrorCode(err) != tt.code {
				t.Fatalf("second answer: %v, want code %q", err, tt.code)
			}
			if err == nil && d.State != tt.state {
				t.Fatalf("second answer returned %s, want %s", d.State, tt.state)
			}
			got, err := e.store.Get(e.ctx, id)
			if err != nil || got.State != tt.state {
				t.Fatalf("deploy %v, %v; want %s", got, err, tt.state)
			}
			if len(got.Approvals) != 1 || got.Approvals[0].Approved != tt.approved {
				t.Errorf("answers %+v, want one by token:ops1, approved %v", got.Approvals, tt.approved)
			}
			if by := e.auditActors(tt.audit, id); len(by) != 1 {
				t.Errorf("%s entries %q, want one", tt.audit, by)
			}
			if tt.state == deploy.StateRejected {
				if by := e.auditActors("deployment.finish", id); len(by) != 1 || by[0] != "token:ops1" {
					t.Errorf("deployment.finish by %q, want token:ops1", by)
				}
				if st := deploy.NewStatus(got); st.Approval == nil || st.Approval.Status != "rejected" {
					t.Errorf("approval section %+v, want rejected", st.Approval)
				}
			}
		})
	}
}

// TestCommentRefusesControlCharacters: an answer's comment may hold
// lines, never what a terminal would act on; a refused answer changes
// nothing.
func TestCommentRefusesControlCharacters(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(2, time.Hour)})
	e.submit("p-comment", "app", "prod")
	for _, c := range []string{"ok\x1b]0;pwned\x07", "ok\x1b[2J", "ok\rdeploy SUCCESS", "ok\u009b2J", "bad \xff byte",
		"ok \u202eSSECCUS", "ok\u2066x\u2069", "line\u2028deploy SUCCESS"} {
		if _, err := e.eng.Approve(as(e, "token:ops1"), "p-comment", c); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE ||
			!strings.Contains(err.Error(), "control characters") {
			t.Errorf("comment %q: %v, want UNPROCESSABLE", c, err)
		}
		if _, err := e.eng.Reject(as(e, "token:ops1"), "p-comment", c); deploy.ErrorCode(err) != deploy.EUNPROCESSABLE {
			t.Errorf("rejection comment %q: %v, want UNPROCESSABLE", c, err)
		}
	}
	got, err := e.store.Get(e.ctx, "p-comment")
	if err != nil || got.State != deploy.StateAwaitingApproval || len(got.Approvals) != 0 {
		t.Fatalf("after refused answers: %s with %d approvals, %v", got.State, len(got.Approvals), err)
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "p-comment", "read the notes\n\tlooks good"); err != nil {
		t.Fatalf("a comment on two lines: %v", err)
	}
}

func TestApprovalExpires(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(1, 300*time.Millisecond)})
	e.submit("p-expire", "app", "prod")
	d := e.waitState("p-expire", deploy.StateExpired)
	if n := e.plugin.callCount("p-expire"); n != 0 || !strings.Contains(d.Error, "0 of 1") {
		t.Fatalf("expired deploy: %d calls, error %q", n, d.Error)
	}
}

func TestWaitingForApprovalBlocksNothing(t *testing.T) {
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		if in.Labels["gate"] != "yes" {
			return deploy.Decision{}, nil
		}
		return deploy.Decision{Rule: "gated", Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: time.Hour}}, nil
	}}
	e := newEnvWith(t, envOptions{governor: gov})
	if _, err := e.eng.Submit(e.ctx, []byte(descriptorFor("p-waits", "app", "prod")+"labels: {gate: \"yes\"}\n"), deploy.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	// The waiting deploy holds no slot of prod: another deploy of prod runs.
	e.submit("p-free", "app", "prod")
	e.waitState("p-free", deploy.StateSuccess)
	// Dry-runs are not subject to governance.
	sub, err := e.eng.Submit(e.ctx, []byte(descriptorFor("p-dry", "app", "prod")+"dryRun: true\nlabels: {gate: \"yes\"}\n"), deploy.SubmitOptions{})
	if err != nil || sub.Deployment.State != deploy.StateEnqueued {
		t.Fatalf("dry-run: %+v, %v", sub, err)
	}
	e.waitState("p-dry", deploy.StateSuccess)
	// Cancelling the waiting deploy ends its wait at once.
	d, err := e.eng.Cancel(e.ctx, "p-waits")
	if err != nil || d.State != deploy.StateCancelled {
		t.Fatalf("cancel awaiting: %+v, %v", d, err)
	}
	if _, err := e.eng.Approve(as(e, "token:ops1"), "p-waits", ""); deploy.ErrorCode(err) != deploy.ECONFLICT {
		t.Fatalf("approving a cancelled deploy: %v, want CONFLICT", err)
	}
}

func TestFreezeThatStartsWhileQueued(t *testing.T) {
	gov := &fakeGovernor{}
	e := newEnvWith(t, envOptions{governor: gov})
	hold := make(chan struct{})
	running := make(chan struct{})
	e.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if req.DeploymentID == "f-first" {
			close(running)
			<-hold
		}
		return nil
	}
	e.submit("f-first", "app", "staging")
	<-running
	e.submit("f-queued", "app", "staging")
	// The freeze starts while f-queued waits for its slot.
	gov.mu.Lock()
	gov.frozen = func(in deploy.GovernanceInput) *deploy.Freeze {
		return &deploy.Freeze{Window: "sale", Until: in.Time.Add(time.Hour)}
	}
	gov.mu.Unlock()
	close(hold)
	e.waitState("f-first", deploy.StateSuccess)
	d := e.waitState("f-queued", deploy.StateError)
	if s := step(d, "config"); s.State != deploy.StepError || s.Attempts != 1 || !strings.Contains(s.Error, "freeze window sale") {
		t.Fatalf("config step = %+v", s)
	}
	if n := e.plugin.callCount("f-queued"); n != 0 {
		t.Fatalf("frozen deploy ran %d times", n)
	}
}

func TestApproversRestrictedByGroupOrRole(t *testing.T) {
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		return deploy.Decision{Rule: "gated", Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: time.Hour,
			Groups: []string{"release-managers"}, Roles: []string{"role:approver"}}}, nil
	}}
	e := newEnvWith(t, envOptions{governor: gov})
	e.submit("rr-1", "app", "prod")
	// token:lead holds deployment.approve, but neither the group nor the role.
	if _, err := e.eng.Approve(as(e, "token:lead"), "rr-1", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN ||
		!strings.Contains(deploy.ErrorMessage(err), "role:approver") {
		t.Fatalf("approval by another role: %v, want FORBIDDEN", err)
	}
	// A member of the group may approve.
	rm := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:lead", Groups: []string{"release-managers"}})
	if _, err := e.eng.Approve(rm, "rr-1", ""); err != nil {
		t.Fatalf("approval by a member of the group: %v", err)
	}
	e.waitState("rr-1", deploy.StateSuccess)
	// A holder of the role may approve.
	e.submit("rr-2", "app", "prod")
	if _, err := e.eng.Approve(as(e, "token:ops1"), "rr-2", ""); err != nil {
		t.Fatalf("approval by a holder of the role: %v", err)
	}
	e.waitState("rr-2", deploy.StateSuccess)
}
