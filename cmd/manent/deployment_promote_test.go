package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

// promoteServer answers Promote and Redeploy with hello-2, or with the
// error refuse, and plays hello-2's events to SUCCESS.
func promoteServer(t *testing.T, refuse *clienttest.Error) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Token = "tok"
	answer := func(op string) clienttest.OpFunc {
		return func(clienttest.Request) (any, *clienttest.Error) {
			if refuse != nil {
				return nil, refuse
			}
			d := deployment("hello-2", client.DeploymentStateEnqueued)
			d.Environment, d.PromotedFrom = "prod", "hello-1"
			return map[string]any{op: d}, nil
		}
	}
	srv.Handle("Promote", answer("promote"))
	srv.Handle("Redeploy", answer("redeploy"))
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		for _, st := range []client.DeploymentState{client.DeploymentStateEnqueued, client.DeploymentStateSuccess} {
			if err := s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "state",
				"deployment": deployment("hello-2", st), "logLines": []any{}}}); err != nil {
				return err
			}
		}
		return nil
	})
	return srv
}

func TestPromoteAndRedeploy(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		refuse *clienttest.Error
		code   int
		stdout string
		stderr string
		// vars are what the request must carry.
		vars map[string]any
		// gh is how $GITHUB_OUTPUT begins.
		gh string
	}{
		{name: "promote, followed", args: []string{"promote", "hello-1", "--to", "prod"}, code: 0, stdout: "hello-2\n",
			stderr: "submitted promotion hello-2 of hello-1 to hello/prod", vars: map[string]any{"id": "hello-1", "to": "prod", "newId": ""},
			gh: "state=SUCCESS\ndeployment_id=hello-2\n"},
		{name: "promote under an ID, not followed", args: []string{"promote", "hello-1", "--to", "prod", "--id", "hello-prod-9", "--no-wait"},
			code: 0, stdout: "hello-2\n", vars: map[string]any{"id": "hello-1", "to": "prod", "newId": "hello-prod-9"},
			gh: "state=ENQUEUED\ndeployment_id=hello-2\n"},
		{name: "promote without --to", args: []string{"promote", "hello-1"}, code: 2, stderr: "--to is required"},
		{name: "promote refused", args: []string{"promote", "hello-1", "--to", "prod"}, code: 2, stderr: "did not succeed",
			refuse: &clienttest.Error{Message: "hello-1 did not succeed (ERROR): only a deploy that succeeded can be promoted", Code: "UNPROCESSABLE"}},
		{name: "promote forbidden", args: []string{"promote", "hello-1", "--to", "prod"}, code: 3, stderr: "permission denied",
			refuse: &clienttest.Error{Message: "token:ci does not hold deployment.submit on demo/hello/prod", Code: "FORBIDDEN"}},
		{name: "redeploy, followed", args: []string{"redeploy", "hello-1"}, code: 0, stdout: "hello-2\n",
			stderr: "submitted redeploy hello-2 of hello-1", vars: map[string]any{"id": "hello-1", "newId": ""},
			gh: "state=SUCCESS\ndeployment_id=hello-2\n"},
		{name: "redeploy of a deploy still running", args: []string{"redeploy", "hello-1"}, code: 2, stderr: "conflict",
			refuse: &clienttest.Error{Message: "hello-1 has not ended (PENDING): nothing to redeploy yet", Code: "CONFLICT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := promoteServer(t, c.refuse)
			gh := filepath.Join(t.TempDir(), "github_output")
			r := runCLI(t, map[string]string{envServer: srv.URL, envToken: "tok", envGitHubOutput: gh}, "", c.args...)
			if r.code != c.code || r.stdout != c.stdout || !strings.Contains(r.stderr, c.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, stdout %q, stderr with %q", r.code, r.stdout, r.stderr, c.code, c.stdout, c.stderr)
			}
			if c.vars != nil {
				reqs := srv.Requests()
				if len(reqs) == 0 {
					t.Fatal("no request reached the server")
				}
				for k, v := range c.vars {
					if reqs[0].Variables[k] != v {
						t.Errorf("variable %s = %v, want %v (%+v)", k, reqs[0].Variables[k], v, reqs[0].Variables)
					}
				}
			}
			out, _ := os.ReadFile(gh)
			if !strings.HasPrefix(string(out), c.gh) || c.gh == "" && len(out) > 0 {
				t.Errorf("GITHUB_OUTPUT %q, want it to begin with %q", out, c.gh)
			}
		})
	}
}
