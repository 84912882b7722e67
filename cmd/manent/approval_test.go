package main

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

// waitingFor is hello-1 in prod awaiting two approvals, one given.
func waitingFor(state client.DeploymentState, answers ...client.Approval) client.DeploymentDetail {
	d := deployment("hello-1", state)
	d.Environment = "prod"
	status := "waiting"
	switch state {
	case client.DeploymentStateRejected:
		status = "rejected"
	case client.DeploymentStateEnqueued:
		status = "approved"
	}
	d.Approval = &client.ApprovalDetail{Status: status, Required: 2, Groups: []string{"ops"},
		ExpiresAt: t0.Add(24 * time.Hour), Approvals: answers}
	return d
}

func approvalServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	answer := func(op string) clienttest.OpFunc {
		return func(r clienttest.Request) (any, *clienttest.Error) {
			switch r.Variables["id"] {
			case "mine":
				return nil, &clienttest.Error{Message: "you requested this deploy: another identity must approve it", Code: "FORBIDDEN"}
			case "done-1":
				return nil, &clienttest.Error{Message: "deployment done-1 is not awaiting approval (SUCCESS)", Code: "CONFLICT"}
			}
			mine := client.Approval{Identity: "token:admin", Approved: op == "approveDeployment", Comment: r.Variables["comment"].(string), Time: t0.Add(time.Minute)}
			state := client.DeploymentStateAwaitingApproval
			if op == "rejectDeployment" {
				state = client.DeploymentStateRejected
			}
			return map[string]any{op: waitingFor(state, mine)}, nil
		}
	}
	srv.Handle("ApproveDeployment", answer("approveDeployment"))
	srv.Handle("RejectDeployment", answer("rejectDeployment"))
	return srv
}

func TestApproveAndReject(t *testing.T) {
	srv := approvalServer(t)
	env := map[string]string{envServer: srv.URL}
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string
		stderr  string
		comment string
	}{
		{name: "approve with a comment", args: []string{"approve", "hello-1", "--comment", "lgtm"}, comment: "lgtm",
			stdout: "deployment hello-1: approved; now AWAITING_APPROVAL (1 more approval needed (groups: ops), expires 2025-01-03T03:04:05Z)\n"},
		{name: "approve json prints the status", args: []string{"approve", "hello-1", "-o", "json"},
			stdout: "\"state\": \"AWAITING_APPROVAL\""},
		{name: "reject", args: []string{"reject", "hello-1", "-m", "not today"}, comment: "not today",
			stdout: "deployment hello-1: rejected; now REJECTED\n"},
		{name: "own deploy is forbidden", args: []string{"approve", "mine"}, code: 3,
			stderr: "manent: permission denied: you requested this deploy: another identity must approve it\n"},
		{name: "not waiting is a conflict", args: []string{"reject", "done-1"}, code: 2,
			stderr: "manent: conflict: deployment done-1 is not awaiting approval (SUCCESS)\n"},
		{name: "an ID is needed", args: []string{"approve"}, code: 2, stderr: "expected ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Requests())
			r := runCLI(t, env, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if reqs := srv.Requests(); tt.code == 0 && (len(reqs) != before+1 || reqs[before].Variables["comment"] != tt.comment) {
				t.Errorf("requests %+v, want one with comment %q", reqs[before:], tt.comment)
			}
		})
	}
}

func TestApprovalsList(t *testing.T) {
	srv := clienttest.New(t)
	items := []client.PendingApproval{}
	srv.Handle("GetPendingApprovals", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"pendingApprovals": items}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "approvals")
	if r.code != 0 || r.stdout != "No deploys await your approval.\n" {
		t.Fatalf("empty: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	d := waitingFor(client.DeploymentStateAwaitingApproval, client.Approval{Identity: "token:ops1", Approved: true, Time: t0})
	items = append(items, client.PendingApproval{
		DeploymentSummary: client.DeploymentSummary{Id: d.Id, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
			State: d.State, Requester: d.Requester, Artifact: client.ArtifactDetail{Version: "1.2.0"}, Status: d.Status},
		Decision: client.ApprovalRule{Rule: "prod-approvals", ApprovalsRequired: 2}, Approval: d.Approval, CanApprove: true,
	})
	r = runCLI(t, env, "", "approvals")
	want := "ID       DEPLOYMENT       VERSION  REQUESTER  RULE            APPROVALS  EXPIRES\n" +
		"hello-1  demo/hello/prod  1.2.0    token:ci   prod-approvals  1/2        2025-01-03T03:04:05Z\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	r = runCLI(t, env, "", "approvals", "-o", "json")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "[\n  {\n    \"id\": \"hello-1\"") {
		t.Fatalf("json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestStatusShowsTheApproval(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		d := waitingFor(client.DeploymentStateAwaitingApproval,
			client.Approval{Identity: "token:ops1", Approved: true, Comment: "release notes read", Time: t0.Add(time.Minute)})
		return map[string]any{"deployment": d}, nil
	})
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "status", "hello-1")
	for _, want := range []string{
		"Approval    waiting, 1 of 2; 1 more approval needed (groups: ops)\n",
		"Expires     2025-01-03T03:04:05Z\n",
		"APPROVER    ANSWER    TIME                  COMMENT\ntoken:ops1  approved  2025-01-02T03:05:05Z  release notes read\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}
