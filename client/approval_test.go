package client_test

import (
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
	"manent.dev/manent/deploy"
)

func TestApproveRejectAndPending(t *testing.T) {
	srv := clienttest.New(t)
	expires := time.Date(2025, 1, 3, 3, 4, 5, 0, time.UTC)
	answered := func(op string, r clienttest.Request, state client.DeploymentState) (any, *clienttest.Error) {
		if r.Variables["id"] == "mine" {
			return nil, &clienttest.Error{Message: "you requested this deploy: another identity must approve it", Code: "FORBIDDEN"}
		}
		d := detail(r.Variables["id"].(string), state)
		d.Approval = &client.ApprovalDetail{Status: "approved", Required: 1, ExpiresAt: expires, Approvals: []client.Approval{
			{Identity: "token:admin", Approved: op == "approveDeployment", Comment: r.Variables["comment"].(string)},
		}}
		return map[string]any{op: d}, nil
	}
	srv.Handle("ApproveDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		return answered("approveDeployment", r, client.DeploymentStateEnqueued)
	})
	srv.Handle("RejectDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		return answered("rejectDeployment", r, client.DeploymentStateRejected)
	})
	srv.Handle("GetPendingApprovals", func(clienttest.Request) (any, *clienttest.Error) {
		p := client.PendingApproval{DeploymentSummary: client.DeploymentSummary{Id: "p1", State: client.DeploymentStateAwaitingApproval},
			Decision: client.ApprovalRule{Rule: "prod", ApprovalsRequired: 1}, CanApprove: true,
			Approval: &client.ApprovalDetail{Status: "waiting", Required: 1, ExpiresAt: expires}}
		return map[string]any{"pendingApprovals": []client.PendingApproval{p}}, nil
	})
	c := client.New(srv.URL, "")
	ctx := testContext(t)

	d, err := c.Approve(ctx, "d1", "lgtm")
	if err != nil || d.State != client.DeploymentStateEnqueued || d.Approval == nil || d.Approval.Approvals[0].Comment != "lgtm" ||
		!d.Approval.Approvals[0].Approved || !d.Approval.ExpiresAt.Equal(expires) {
		t.Fatalf("approve = %+v, %v", d, err)
	}
	d, err = c.Reject(ctx, "d2", "")
	if err != nil || d.State != client.DeploymentStateRejected || d.Approval.Approvals[0].Approved {
		t.Fatalf("reject = %+v, %v", d, err)
	}
	if _, err := c.Approve(ctx, "mine", ""); client.Code(err) != deploy.EFORBIDDEN {
		t.Fatalf("own deploy: err = %v, want FORBIDDEN", err)
	}
	list, err := c.PendingApprovals(ctx)
	if err != nil || len(list) != 1 || list[0].Id != "p1" || !list[0].CanApprove || list[0].Decision.Rule != "prod" || list[0].Approval.Status != "waiting" {
		t.Fatalf("pending = %+v, %v", list, err)
	}
}
