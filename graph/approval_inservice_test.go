package graph

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestInboxInServiceFollowsTheEnvironment: the approval card of the inbox
// shows "In service now → Proposed" (approvalContext.inService), and the
// inbox is live through the pendingApprovals subscription. That
// subscription reads the list again only for events of a listed deploy or
// of one awaiting approval, and sends it only when the list's fingerprint
// (IDs, states, answers) changed: a release put in service in the deploy's
// environment since (another deploy that succeeded there) never reaches an
// open inbox. The approver keeps deciding on "1.0.0 → 1.1.0" while 1.2.0 is
// in service, and approving then downgrades prod.
func TestInboxInServiceFollowsTheEnvironment(t *testing.T) {
	inbox := newApprovalInbox()
	d := awaiting("hello-9")
	inbox.set("token:admin", d)
	inbox.setFull(&d)
	// The deploy that goes in service: of hello in prod, the environment of
	// the inbox's deploy (a fake Get of setState would answer one of dev).
	done := newDeployBoard().d
	done.ID, done.Environment, done.State = "hello-prod-new", "prod", deploy.StateSuccess
	inbox.setFull(&done)
	var mu sync.Mutex
	current := "hello-prod-old"
	svc := inbox.service()
	svc.environment = func(_ context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
		mu.Lock()
		defer mu.Unlock()
		return &deploy.InventoryEntry{Tenant: res.Tenant, Application: res.Application, Environment: res.Environment,
			DeploymentID: current, Artifact: deploy.Artifact{Name: "hello", Version: current}}, nil
	}
	events := newFakeEvents()
	srv := newTestServer(t, svc, events)
	c, err := dialWS(t, srv, map[string]any{"Authorization": "Bearer admin"})
	if err != nil {
		t.Fatal(err)
	}
	c.send(wsMessage{Type: "subscribe", ID: "1", Payload: mustJSON(map[string]any{
		"query": `subscription { pendingApprovals { id approvalContext { inService { deploymentId } } } }`,
	})})
	inService := func(within time.Duration) string {
		t.Helper()
		_ = c.conn.SetReadDeadline(time.Now().Add(within))
		var m wsMessage
		if err := c.conn.ReadJSON(&m); err != nil {
			return "(nothing sent: " + err.Error() + ")"
		}
		var r gqlResponse
		if err := json.Unmarshal(m.Payload, &r); err != nil || len(r.Errors) > 0 {
			t.Fatalf("%s %s", m.Type, m.Payload)
		}
		var list []struct {
			ApprovalContext struct {
				InService *struct{ DeploymentID string } `json:"inService"`
			} `json:"approvalContext"`
		}
		if err := json.Unmarshal(r.Data["pendingApprovals"], &list); err != nil || len(list) != 1 || list[0].ApprovalContext.InService == nil {
			t.Fatalf("pendingApprovals = %s", r.Data["pendingApprovals"])
		}
		return list[0].ApprovalContext.InService.DeploymentID
	}
	if got := inService(wait); got != "hello-prod-old" {
		t.Fatalf("first inbox: in service %s", got)
	}
	// Another deploy of hello succeeds in prod: it is in service now.
	mu.Lock()
	current = "hello-prod-new"
	mu.Unlock()
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-prod-new"})
	if got := inService(5 * time.Second); got != "hello-prod-new" {
		t.Errorf("after hello-prod-new went in service, the open inbox says in service: %s", got)
	}
}
