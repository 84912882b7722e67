package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs the CLI in-process with the given environment and stdin.
func runCLI(t *testing.T, env map[string]string, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{
		stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return env[k] },
		now:    func() time.Time { return t0 },
		// Short, so a test of a lost server ends quickly.
		clientOptions: []client.Option{client.WithReconnectWindow(2 * time.Second)},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := a.run(ctx, args)
	return cliResult{stdout: out.String(), stderr: errb.String(), code: code}
}

func statusOf(id string, state client.DeploymentState) json.RawMessage {
	return json.RawMessage(`{"id":"` + id + `","state":"` + string(state) + `","steps":[],"exports":{"url":"http://hello.test"}}`)
}

func deployment(id string, state client.DeploymentState, steps ...client.StepDetail) client.DeploymentDetail {
	d := client.DeploymentDetail{Id: id, Tenant: "demo", Application: "hello", Environment: "staging",
		State: state, Requester: "token:ci", CreatedAt: t0, Steps: steps, Status: statusOf(id, state)}
	if client.Terminal(state) {
		d.StartedAt, d.FinishedAt = t0, t0.Add(2*time.Second)
	}
	return d
}

func submitted(d client.DeploymentDetail) map[string]any {
	return map[string]any{"submitDeployment": map[string]any{"created": true, "validated": false,
		"deployment": &client.SubmittedDeployment{DeploymentDetail: d}}}
}

// deployServer accepts any submission as hello-1 and plays events to the
// end state.
func deployServer(t *testing.T, end client.DeploymentState) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Token = "tok"
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return submitted(deployment("hello-1", client.DeploymentStateEnqueued)), nil
	})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		events := []client.DeploymentDetail{
			deployment("hello-1", client.DeploymentStateEnqueued),
			deployment("hello-1", client.DeploymentStatePending, step("config", 0, client.StepStateRunning, 1, 0, "")),
			deployment("hello-1", end, step("config", 0, client.StepStateSuccess, 1, 120, "")),
		}
		for _, d := range events {
			if err := s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "state", "deployment": d, "logLines": []any{}}}); err != nil {
				return err
			}
		}
		return nil
	})
	return srv
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const descriptor = "apiVersion: manent/v1\nkind: Deployment\napplication: hello\nenvironment: staging\n"

func TestDeployFollowsToSuccess(t *testing.T) {
	srv := deployServer(t, client.DeploymentStateSuccess)
	ghOut := filepath.Join(t.TempDir(), "github_output")
	env := map[string]string{envServer: srv.URL, envToken: "tok", envGitHubOutput: ghOut}
	r := runCLI(t, env, "", "deploy", "-f", writeFile(t, "d.yml", descriptor))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != "hello-1\n" {
		t.Fatalf("stdout %q, want the ID alone", r.stdout)
	}
	for _, want := range []string{"submitted deployment hello-1", "step config: RUNNING\n", "step config: SUCCESS (120ms)\n", "deployment hello-1: SUCCESS (2.0s)\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	gh, err := os.ReadFile(ghOut)
	if err != nil {
		t.Fatal(err)
	}
	if string(gh) != "state=SUCCESS\ndeployment_id=hello-1\nexport_url=http://hello.test\n" {
		t.Fatalf("GITHUB_OUTPUT:\n%s", gh)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Variables["descriptor"] != descriptor || reqs[0].Variables["validateOnly"] != false {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestDeployOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		end      client.DeploymentState
		args     []string
		code     int
		stdout   string
		requests int
	}{
		{name: "error exits 1", end: client.DeploymentStateError, code: 1, stdout: "hello-1\n", requests: 2},
		{name: "cancelled exits 1", end: client.DeploymentStateCancelled, code: 1, stdout: "hello-1\n", requests: 2},
		{name: "json prints the final status alone", end: client.DeploymentStateSuccess, args: []string{"-o", "json"},
			stdout: "{\n  \"id\": \"hello-1\",\n  \"state\": \"SUCCESS\",\n  \"steps\": [],\n  \"exports\": {\n    \"url\": \"http://hello.test\"\n  }\n}\n", requests: 2},
		{name: "no-wait json prints the status as accepted", end: client.DeploymentStateSuccess, args: []string{"--no-wait", "-o", "json"},
			stdout: "{\n  \"id\": \"hello-1\",\n  \"state\": \"ENQUEUED\",\n  \"steps\": [],\n  \"exports\": {\n    \"url\": \"http://hello.test\"\n  }\n}\n", requests: 1},
		{name: "no-wait prints the ID", end: client.DeploymentStateSuccess, args: []string{"--no-wait"}, stdout: "hello-1\n", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := deployServer(t, tt.end)
			args := append([]string{"deploy", "-f", writeFile(t, "d.yml", descriptor), "--token", "tok", "--server", srv.URL}, tt.args...)
			r := runCLI(t, nil, "", args...)
			if r.code != tt.code || r.stdout != tt.stdout {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Fatalf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestDeployDryRunFromStdin(t *testing.T) {
	srv := deployServer(t, client.DeploymentStateSuccess)
	env := map[string]string{envServer: srv.URL, envToken: "tok"}
	r := runCLI(t, env, descriptor+"dryRun: false\n", "deploy", "-f", "-", "--dry-run", "--no-wait")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sent, _ := srv.Requests()[0].Variables["descriptor"].(string)
	if !strings.Contains(sent, "dryRun: true") || strings.Contains(sent, "dryRun: false") || !strings.Contains(sent, "application: hello") {
		t.Fatalf("descriptor sent:\n%s", sent)
	}
}

func TestDeployTimeout(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return submitted(deployment("slow-1", client.DeploymentStateEnqueued)), nil
	})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, _ clienttest.Request, s *clienttest.Stream) error {
		d := deployment("slow-1", client.DeploymentStatePending, step("deploy", 0, client.StepStateRunning, 1, 0, ""))
		if err := s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "state", "deployment": d, "logLines": []any{}}}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	ghOut := filepath.Join(t.TempDir(), "out")
	r := runCLI(t, map[string]string{envServer: srv.URL, envGitHubOutput: ghOut}, "",
		"deploy", "-f", writeFile(t, "d.yml", descriptor), "--timeout", "500ms")
	if r.code != 124 || !strings.Contains(r.stderr, "timed out after 500ms following deployment slow-1 (last seen PENDING)") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if gh, _ := os.ReadFile(ghOut); !strings.HasPrefix(string(gh), "state=PENDING\ndeployment_id=slow-1\n") {
		t.Fatalf("GITHUB_OUTPUT %q", gh)
	}
}

func TestDeployRefused(t *testing.T) {
	tests := []struct {
		name   string
		answer *clienttest.Error
		code   int
		stderr []string
	}{
		{name: "forbidden", answer: &clienttest.Error{Message: "token:viewer may not deployment.submit on hello/staging", Code: "FORBIDDEN"},
			code: 3, stderr: []string{"permission denied: token:viewer may not"}},
		{name: "invalid", answer: &clienttest.Error{Message: "invalid descriptor", Code: "INVALID_DESCRIPTOR", Fields: []clienttest.Field{
			{Path: "artifact.version", Message: "is required"}, {Path: "deploy.targets[0].path", Message: "must be absolute"}}},
			code: 2, stderr: []string{"invalid descriptor:\n  artifact.version: is required\n  deploy.targets[0].path: must be absolute"}},
		{name: "policy", answer: &clienttest.Error{Message: "environment staging is frozen", Code: "UNPROCESSABLE"},
			code: 2, stderr: []string{"refused: environment staging is frozen"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t)
			srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) { return nil, tt.answer })
			r := runCLI(t, map[string]string{envServer: srv.URL}, "", "deploy", "-f", writeFile(t, "d.yml", descriptor))
			if r.code != tt.code || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests after a refusal, want 1", n)
			}
		})
	}
}

func TestGlobalsFromEnvAndFlags(t *testing.T) {
	srv := clienttest.New(t)
	srv.Token = "from-env"
	srv.Handle("GetViewer", func(r clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"viewer": map[string]any{"subject": "token:ci", "groups": []string{"ci"}}}, nil
	})
	dead := "http://127.0.0.1:1"

	r := runCLI(t, map[string]string{envServer: srv.URL, envToken: "from-env"}, "", "whoami", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"subject": "token:ci"`) {
		t.Fatalf("env: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Flags win over the environment.
	r = runCLI(t, map[string]string{envServer: dead, envToken: "nope"}, "", "whoami", "--server", srv.URL, "--token", "from-env")
	if r.code != 0 || !strings.Contains(r.stdout, "token:ci") {
		t.Fatalf("flags: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A refused token: exit 3, and the token is never printed.
	r = runCLI(t, map[string]string{envServer: srv.URL, envToken: "wrong-secret"}, "", "whoami")
	if r.code != 3 || strings.Contains(r.stderr+r.stdout, "wrong-secret") {
		t.Fatalf("bad token: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, map[string]string{envServer: dead}, "", "whoami")
	if r.code != 4 || !strings.Contains(r.stderr, dead) || !strings.Contains(r.stderr, envServer) {
		t.Fatalf("unreachable: exit %d\n%s", r.code, r.stderr)
	}
}

func TestTokenIsRedacted(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetViewer", func(r clienttest.Request) (any, *clienttest.Error) {
		return nil, &clienttest.Error{Message: "a careless server echoes " + r.Authorization}
	})
	r := runCLI(t, map[string]string{envServer: srv.URL, envToken: "sup3r-secret"}, "", "whoami")
	if r.code != 1 || strings.Contains(r.stderr, "sup3r-secret") || !strings.Contains(r.stderr, "Bearer ********") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{"frob"},
		{"deploy"},
		{"deploy", "-f", "/does/not/exist.yml"},
		{"status"},
		{"status", "a", "b"},
		{"list", "--bogus"},
		{"list", "-o", "xml"},
		{"list", "--state", "DONE"},
		{"list", "--since", "yesterday"},
		{"logs", "x", "--timeout", "1m"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runCLI(t, map[string]string{envServer: "http://127.0.0.1:1"}, "", args...)
			if r.code != 2 || !strings.HasPrefix(r.stderr, "manent: ") {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

func TestListFilters(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("ListDeployments", func(r clienttest.Request) (any, *clienttest.Error) {
		node := client.DeploymentSummary{Id: "d1", State: client.DeploymentStateError, Status: statusOf("d1", client.DeploymentStateError)}
		return map[string]any{"deployments": map[string]any{
			"edges":    []any{map[string]any{"cursor": "c1", "node": node}},
			"pageInfo": map[string]any{"hasNextPage": false, "endCursor": "c1"},
		}}, nil
	})
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "list", "--state", "error,cancelled", "--state", "pending",
		"--since", "7d", "--environment", "prod", "--limit", "3", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != 1 || got[0]["id"] != "d1" {
		t.Fatalf("stdout %s (%v)", r.stdout, err)
	}
	v := srv.Requests()[0].Variables
	states, _ := v["states"].([]any)
	if len(states) != 3 || states[0] != "ERROR" || states[2] != "PENDING" || v["environment"] != "prod" ||
		v["createdAfter"] != "2024-12-26T03:04:05Z" || v["first"] != float64(3) || v["tenant"] != nil {
		t.Fatalf("variables %v", v)
	}
}

func TestValidate(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("SubmitDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["validateOnly"] != true {
			t.Errorf("validate submitted for real: %v", r.Variables)
		}
		if strings.Contains(r.Variables["descriptor"].(string), "bad") {
			return nil, &clienttest.Error{Message: "invalid descriptor", Code: "INVALID_DESCRIPTOR",
				Fields: []clienttest.Field{{Path: "environment", Message: "is required"}}}
		}
		return map[string]any{"submitDeployment": map[string]any{"created": false, "validated": true,
			"deployment": &client.SubmittedDeployment{DeploymentDetail: deployment("hello-1", client.DeploymentStateEnqueued),
				Plan: client.Plan{Steps: []client.PlannedStep{{Name: "config", Type: "standard"}}}}}}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "validate", "-f", writeFile(t, "ok.yml", descriptor))
	if r.code != 0 || !strings.Contains(r.stdout, "The descriptor is valid") || !strings.Contains(r.stdout, "config") {
		t.Fatalf("valid: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "validate", "-f", writeFile(t, "bad.yml", "bad: true\n"), "-o", "json")
	if r.code != 2 || !strings.Contains(r.stderr, "environment: is required") {
		t.Fatalf("invalid: exit %d\n%s", r.code, r.stderr)
	}
	var v invalidView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Valid || v.Code != "INVALID_DESCRIPTOR" || len(v.Errors) != 1 {
		t.Fatalf("invalid stdout %s (%v)", r.stdout, err)
	}
}

func TestStatusAndSteps(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["id"] != "hello-1" {
			return map[string]any{"deployment": nil}, nil
		}
		return map[string]any{"deployment": fixedDeployment()}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "status", "hello-1", "-o", "json")
	var st map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || st["state"] != "ERROR" {
		t.Fatalf("status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "steps", "hello-1", "-o", "json")
	var steps []map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &steps) != nil || len(steps) != 3 ||
		steps[0]["output"].(map[string]any)["revision"] != "abc" {
		t.Fatalf("steps: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "steps", "hello-1")
	if r.code != 0 || !strings.Contains(r.stdout, "qa      run   ERROR    3") {
		t.Fatalf("steps table: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, env, "", "status", "nope")
	if r.code != 2 || !strings.Contains(r.stderr, `deployment "nope" not found`) {
		t.Fatalf("not found: exit %d\n%s", r.code, r.stderr)
	}
}

func TestLogsFollow(t *testing.T) {
	srv := clienttest.New(t)
	ln := func(seq int, msg string) client.LogLineDetail {
		return client.LogLineDetail{Seq: seq, Time: t0.Add(time.Duration(seq) * time.Second), Step: "deploy", Level: "info", Message: msg}
	}
	srv.Handle("GetLogs", func(r clienttest.Request) (any, *clienttest.Error) {
		lines := []client.LogLineDetail{}
		state := client.DeploymentStatePending
		if clienttest.Int(r.Variables["after"]) == 0 {
			lines = []client.LogLineDetail{ln(1, "one"), ln(2, "two")}
		} else {
			state = client.DeploymentStateSuccess
		}
		return map[string]any{"deployment": map[string]any{"id": "hello-1", "state": state,
			"logs": map[string]any{"lines": lines, "lastSeq": 2}}}, nil
	})
	srv.HandleSubscription("DeploymentEvents", func(ctx context.Context, r clienttest.Request, s *clienttest.Stream) error {
		if clienttest.Int(r.Variables["logsAfter"]) != 2 {
			t.Errorf("logsAfter %v, want 2", r.Variables["logsAfter"])
		}
		return s.Next(map[string]any{"deploymentEvents": map[string]any{"kind": "log",
			"deployment": deployment("hello-1", client.DeploymentStateSuccess), "logLines": []client.LogLineDetail{ln(3, "three")}}})
	})
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "logs", "-f", "hello-1")
	want := "2025-01-02T03:04:06.000Z INFO  deploy: one\n2025-01-02T03:04:07.000Z INFO  deploy: two\n2025-01-02T03:04:08.000Z INFO  deploy: three\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestCancel(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("CancelDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["id"] == "done-1" {
			return nil, &clienttest.Error{Message: "deployment done-1 already ended (SUCCESS)", Code: "CONFLICT"}
		}
		d := deployment("hello-1", client.DeploymentStatePending)
		d.CancelRequested = true
		return map[string]any{"cancelDeployment": d}, nil
	})
	env := map[string]string{envServer: srv.URL}
	r := runCLI(t, env, "", "cancel", "hello-1")
	if r.code != 0 || !strings.Contains(r.stdout, "cancel requested") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, env, "", "cancel", "done-1")
	if r.code != 2 || !strings.Contains(r.stderr, "already ended") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

func TestRedact(t *testing.T) {
	a := &app{token: "demo-ci"}
	got := a.redact("token:demo-ci sent Bearer demo-ci; demo-ci")
	if got != "token:demo-ci sent Bearer ********; ********" {
		t.Fatalf("redact = %q", got)
	}
}
