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
