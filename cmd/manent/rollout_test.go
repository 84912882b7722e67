package main

import (
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

// pausedStatus is the status of hello-1 with its rollout paused on wave eu.
const pausedStatus = `{"id":"hello-1","state":"PENDING","rollout":{"state":"paused","current_wave":"eu",
 "waves":[{"name":"canary","state":"passed","targets":["eu-1"],"batches":[]},
          {"name":"eu","state":"paused","targets":["eu-2"],"batches":[]}],
 "targets":[{"name":"eu-1","outcome":"targeted","wave":"canary","batch":1,"state":"SUCCESS","release":"1.0.0","error":null},
            {"name":"eu-2","outcome":"targeted","wave":"eu","batch":1,"state":"PENDING","release":null,"error":null}],
 "pause":{"reason":"check the canary","since":"2025-01-02T03:04:05Z","until":"2025-01-03T03:04:05Z","by":"token:ci","may_resume":["role:deployer"]}}}`

func rolloutServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Handle("GetDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		d := deployment(r.Variables["id"].(string), client.DeploymentStatePending)
		if d.Id == "hello-1" {
			d.Status = json.RawMessage(pausedStatus)
		}
		return map[string]any{"deployment": d}, nil
	})
	act := func(op string) clienttest.OpFunc {
		return func(r clienttest.Request) (any, *clienttest.Error) {
			switch r.Variables["id"] {
			case "viewed":
				return nil, &clienttest.Error{Message: "token:viewer does not hold deployment.cancel on demo/hello/staging", Code: "FORBIDDEN"}
			case "running":
				return nil, &clienttest.Error{Message: `deployment "running": its rollout is not paused: running`, Code: "CONFLICT"}
			case "gone":
				return nil, &clienttest.Error{Message: `deployment "gone" not found`, Code: "NOT_FOUND"}
			}
			state := client.DeploymentStatePending
			if op == "abortRollout" && r.Variables["reason"] == "ended" {
				state = client.DeploymentStateError
			}
			return map[string]any{op: deployment(r.Variables["id"].(string), state)}, nil
		}
	}
	srv.Handle("PauseRollout", act("pauseRollout"))
	srv.Handle("ResumeRollout", act("resumeRollout"))
	srv.Handle("AbortRollout", act("abortRollout"))
	return srv
}

func TestRolloutCommands(t *testing.T) {
	srv := rolloutServer(t)
	env := map[string]string{envServer: srv.URL}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
		// op and vars are the request the command makes (none for "").
		op   string
		vars map[string]any
	}{
		{name: "status shows the pause", args: []string{"rollout", "status", "hello-1"},
			stdout: "Rollout: paused, wave eu (2 of 2), 1/2 targets\n", op: "GetDeployment"},
		{name: "status names who may resume", args: []string{"rollout", "status", "hello-1"},
			stdout: "Paused: check the canary, since 2025-01-02T03:04:05Z; aborts in 24h00m, at 2025-01-03T03:04:05Z; paused by token:ci; may resume or abort: role:deployer\n"},
		{name: "status json is the rollout section", args: []string{"rollout", "status", "hello-1", "-o", "json"},
			stdout: "{\n  \"state\": \"paused\",\n  \"current_wave\": \"eu\""},
		{name: "status without rollout", args: []string{"rollout", "status", "plain"},
			stdout: "deployment plain has no rollout\n"},
		{name: "pause with a reason", args: []string{"rollout", "pause", "hello-1", "--reason", "errors climb"},
			stdout: "deployment hello-1: pause requested; the rollout pauses after the batch in flight\n",
			op:     "PauseRollout", vars: map[string]any{"id": "hello-1", "reason": "errors climb"}},
		{name: "resume with a comment", args: []string{"rollout", "resume", "hello-1", "-m", "fine"},
			stdout: "deployment hello-1: resumed; the rollout goes on\n",
			op:     "ResumeRollout", vars: map[string]any{"id": "hello-1", "comment": "fine"}},
		{name: "abort", args: []string{"rollout", "abort", "hello-1"},
			stdout: "deployment hello-1: abort requested; the rollout stops after the step in flight, then the rollback policy applies\n",
			op:     "AbortRollout", vars: map[string]any{"id": "hello-1", "reason": ""}},
		{name: "abort of a deploy that ended meanwhile", args: []string{"rollout", "abort", "hello-1", "-m", "ended"},
			stdout: "deployment hello-1: ended: ERROR\n"},
		{name: "abort json prints the status", args: []string{"rollout", "abort", "hello-1", "-o", "json"},
			stdout: "\"state\": \"PENDING\""},
		{name: "a viewer is refused", args: []string{"rollout", "pause", "viewed"}, code: 3,
			stderr: "manent: permission denied: token:viewer does not hold deployment.cancel on demo/hello/staging\n"},
		{name: "resume of a running rollout conflicts", args: []string{"rollout", "resume", "running"}, code: 2,
			stderr: "manent: conflict: deployment \"running\": its rollout is not paused: running\n"},
		{name: "a missing deploy", args: []string{"rollout", "abort", "gone"}, code: 2, stderr: "not found"},
		{name: "an ID is needed", args: []string{"rollout", "pause"}, code: 2, stderr: "expected ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Requests())
			r := runCLI(t, env, "", tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if tt.op == "" {
				return
			}
			reqs := srv.Requests()[before:]
			if len(reqs) != 1 || reqs[0].OpName != tt.op {
				t.Fatalf("requests %+v, want one %s", reqs, tt.op)
			}
			for k, v := range tt.vars {
				if reqs[0].Variables[k] != v {
					t.Errorf("%s = %v, want %v", k, reqs[0].Variables[k], v)
				}
			}
		})
	}
}

// awaitingStatus is hello-2 running, its wave eu awaiting 2 approvals, one
// given.
const awaitingStatus = `{"id":"hello-2","state":"PENDING","rollout":{"state":"awaiting_approval","current_wave":"eu",
 "waves":[{"name":"eu","state":"awaiting_approval","targets":["eu-2"],"batches":[],
  "approval":{"status":"waiting","required":2,"approvals":[{"deployment_id":"hello-2","pass":1,"identity":"token:ops1","approved":true,"comment":"","time":"2025-01-02T03:05:05Z"}],
   "expires_at":"2025-01-03T03:04:05Z"}}],"targets":[]}}`

// TestApproveAWave: approve and the list of pending approvals speak of the
// wave a running deploy's rollout waits on.
func TestApproveAWave(t *testing.T) {
	srv := clienttest.New(t)
	wave := func() client.DeploymentDetail {
		d := deployment("hello-2", client.DeploymentStatePending)
		d.Status = json.RawMessage(awaitingStatus)
		return d
	}
	srv.Handle("ApproveDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"approveDeployment": wave()}, nil
	})
	srv.Handle("RejectDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"rejectDeployment": deployment("hello-2", client.DeploymentStatePending)}, nil
	})
	srv.Handle("GetPendingApprovals", func(clienttest.Request) (any, *clienttest.Error) {
		d := wave()
		return map[string]any{"pendingApprovals": []client.PendingApproval{{DeploymentSummary: client.DeploymentSummary{
			Id: d.Id, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment, State: d.State,
			Requester: d.Requester, Artifact: client.ArtifactDetail{Version: "1.2.0"}, Status: d.Status}, CanApprove: true}}}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "approve", "hello-2")
	if r.code != 0 || r.stdout != "deployment hello-2: approved wave eu; 1 of 2 approval(s) given\n" {
		t.Fatalf("approve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "reject", "hello-2")
	if r.code != 0 || r.stdout != "deployment hello-2: rejected the pending wave; the rollout aborts, then its rollback policy applies\n" {
		t.Fatalf("reject: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "approvals")
	want := "ID       DEPLOYMENT          VERSION  REQUESTER  RULE     APPROVALS  EXPIRES\n" +
		"hello-2  demo/hello/staging  1.2.0    token:ci   wave eu  1/2        2025-01-03T03:04:05Z\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("approvals: exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
}
