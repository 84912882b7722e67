package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

func TestDeployChainFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// sent is the descriptor the server receives; "" when nothing is sent.
		sent   string
		code   int
		stderr string
	}{
		{name: "after, repeatable", args: []string{"--after", "db-1", "--after", "net-1"},
			sent: descriptor + "after:\n  - db-1\n  - net-1\n"},
		{name: "import adds the binding and after", args: []string{"--import", "infra=infra-42", "--after", "db-1"},
			sent: descriptor + "imports:\n  infra:\n    deployment: infra-42\nafter:\n  - db-1\n  - infra-42\n"},
		{name: "bad after refused before sending", args: []string{"--after", "Not An ID"}, code: exitRefused, stderr: `--after "Not An ID"`},
		{name: "bad import refused before sending", args: []string{"--import", "infra"}, code: exitRefused, stderr: "must be NAME=DEPLOYMENT_ID"},
		{name: "dry run with after refused", args: []string{"--dry-run", "--after", "db-1"}, code: exitRefused, stderr: "--dry-run cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := deployServer(t, client.DeploymentStateSuccess)
			env := map[string]string{envServer: srv.URL, envToken: "tok"}
			args := append([]string{"deploy", "--no-wait", "-f", writeFile(t, "d.yml", descriptor)}, tt.args...)
			r := runCLI(t, env, "", args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			reqs := srv.Requests()
			if tt.sent == "" {
				if len(reqs) != 0 {
					t.Fatalf("a refused command sent %d requests", len(reqs))
				}
				return
			}
			if len(reqs) != 1 || reqs[0].Variables["descriptor"] != tt.sent {
				t.Fatalf("sent %q, want %q", reqs[0].Variables["descriptor"], tt.sent)
			}
		})
	}
}

// A deploy that waits for another shows what it waits for while it waits,
// ends DEPENDENCY_FAILED with the reason and exits 1.
func TestDeployFollowsAWait(t *testing.T) {
	waitingFor := func(db client.DeploymentState) client.DeploymentDetail {
		d := deployment("api-1", client.DeploymentStateWaitingDependency)
		d.After = &client.AfterDetail{Status: "waiting", ExpiresAt: t0.Add(2 * time.Hour),
			Dependencies: []client.Dependency{{Id: "db-1", State: db}}}
		return d
	}
	failed := deployment("api-1", client.DeploymentStateDependencyFailed)
	failed.StartedAt = time.Time{} // it never started
	failed.Error = "dependency did not succeed: db-1 ended ERROR"
	srv := clienttest.New(t)
	srv.Token = "tok"
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return submitted(waitingFor(client.DeploymentStatePending)), nil
	})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		for _, d := range []client.DeploymentDetail{waitingFor(client.DeploymentStatePending), waitingFor(client.DeploymentStateError), failed} {
			if err := s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "state", "deployment": d, "logLines": []any{}}}); err != nil {
				return err
			}
		}
		return nil
	})
	env := map[string]string{envServer: srv.URL, envToken: "tok"}
	r := runCLI(t, env, "", "deploy", "-f", writeFile(t, "d.yml", descriptor), "--after", "db-1")
	if r.code != exitFailed {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"deployment api-1: WAITING_DEPENDENCY: waits for db-1 PENDING (until 2025-01-02T05:04:05Z)\n",
		"deployment api-1: waits for db-1 ERROR (until 2025-01-02T05:04:05Z)\n",
		"deployment api-1: DEPENDENCY_FAILED: dependency did not succeed: db-1 ended ERROR\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// A DELAYED deploy shows the time of its descriptor's schedule.at.
func TestDeployFollowsADelay(t *testing.T) {
	srv := deployServer(t, client.DeploymentStateSuccess)
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return submitted(deployment("hello-1", client.DeploymentStateDelayed)), nil
	})
	env := map[string]string{envServer: srv.URL, envToken: "tok"}
	doc := descriptor + "schedule:\n  at: 2030-06-01T22:00:00+02:00\n"
	r := runCLI(t, env, "", "deploy", "-f", writeFile(t, "d.yml", doc))
	if r.code != 0 || !strings.Contains(r.stderr, "deployment hello-1: DELAYED: starts at 2030-06-01T20:00:00Z\n") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}
