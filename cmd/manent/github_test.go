package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestGitHubOutputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(path, []byte("earlier=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status := json.RawMessage(`{"exports":{"url":"http://x","notes":"a\nb","replicas":3}}`)
	if err := writeGitHubOutputs(path, githubOutputs("d1", "SUCCESS", status)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	re := regexp.MustCompile(`^earlier=1
state=SUCCESS
deployment_id=d1
export_notes<<(ghadelimiter_[0-9a-f]+)
a
b
(ghadelimiter_[0-9a-f]+)
export_replicas=3
export_url=http://x
$`)
	m := re.FindStringSubmatch(string(b))
	if m == nil || m[1] != m[2] {
		t.Fatalf("GITHUB_OUTPUT:\n%s", b)
	}
}

func TestGitHubOutputsTargets(t *testing.T) {
	status := json.RawMessage(`{"exports":{"vms":[{"host":"10.20.0.1","port":22},"10.20.0.2"],"db_host":"db.internal"}}`)
	got := githubOutputs("d1", "SUCCESS", status)
	want := []output{{"state", "SUCCESS"}, {"deployment_id", "d1"}, {"export_db_host", "db.internal"},
		{"export_vms", `[{"host":"10.20.0.1","port":22},"10.20.0.2"]`}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("output %d = %v, want %v", i, got[i], want[i])
		}
	}
}
