package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

func rolledBackServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Handle("GetDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"deployment": rolledBack(client.RollbackStateCompleted)}, nil
	})
	return srv
}

func TestStatusJSONOfARolledBackDeployIsTheServers(t *testing.T) {
	srv := rolledBackServer(t)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "status", "hello-2", "-o", "json")
	var want bytes.Buffer
	if err := json.Indent(&want, rolledBack(client.RollbackStateCompleted).Status, "", "  "); err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.stdout != want.String()+"\n" {
		t.Fatalf("exit %d\n%s\nwant:\n%s\n%s", r.code, r.stdout, want.String(), r.stderr)
	}
}

func TestStepsListCheckpointsAndCompensations(t *testing.T) {
	srv := rolledBackServer(t)
	env := map[string]string{envServer: srv.URL}

	r := runCLI(t, env, "", "steps", "hello-2")
	want := `STEP               KIND        STATE    ATTEMPTS  STARTED               DURATION  ERROR
config             run         SUCCESS  1         2025-01-02T03:04:05Z  200ms     -
checkpoint:deploy  checkpoint  SUCCESS  1         2025-01-02T03:04:06Z  300ms     -
deploy             run         SUCCESS  1         2025-01-02T03:04:06Z  700ms     -
post-test          run         ERROR    1         2025-01-02T03:04:07Z  1.0s      health: 404 Not Found
activation         run         SKIPPED  0         -                     -         -
rollback:deploy    rollback    SUCCESS  1         2025-01-02T03:04:08Z  500ms     -
`
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, got:\n%s\nwant:\n%s%s", r.code, r.stdout, want, r.stderr)
	}

	r = runCLI(t, env, "", "steps", "hello-2", "-o", "json")
	var steps []map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &steps) != nil {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s["name"].(string)+" "+s["kind"].(string)+" "+s["state"].(string))
	}
	wantNames := "config run SUCCESS, checkpoint:deploy checkpoint SUCCESS, deploy run SUCCESS, post-test run ERROR, " +
		"activation run SKIPPED, rollback:deploy rollback SUCCESS"
	if strings.Join(got, ", ") != wantNames {
		t.Errorf("steps -o json: %s\nwant %s", strings.Join(got, ", "), wantNames)
	}
	// The status JSON's entries as the server wrote them; the compensation
	// in the same shape, from the API's step.
	if out := steps[2]["output"].(map[string]any); out["release"] != "1.1.0" {
		t.Errorf("deploy output = %v", out)
	}
	last := steps[len(steps)-1]
	if last["type"] != "standard" || last["attempts"] != float64(1) || last["started_at"] != "2025-01-02T03:04:08Z" ||
		last["finished_at"] != "2025-01-02T03:04:08.5Z" || last["error"] != nil || last["output"] == nil {
		t.Errorf("compensation = %v", last)
	}
}
