package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestARollbackRunsTheBytesThatWereInService: issue 16 puts "Roll back to
// this…" on every earlier release of an environment's history, and its
// confirmation says "a new deploy runs that release's artifact". Promote
// and redeploy pin the digest their source downloaded ("the same bytes,
// not whatever the source serves under that version now"); a manual
// rollback, made from the same rerunDescriptor, is submitted without that
// pin: when the version was republished since, the rollback deploys other
// bytes than the release it claims to restore (here the local plugin
// happens to notice; a plugin that keys nothing by version deploys them).
func TestARollbackRunsTheBytesThatWereInService(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.artifact("1.1.0")
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\n")
	r.deployFollowed(r.descriptor("pin-1", "staging", "1.0.0", ""))
	r.deployFollowed(r.descriptor("pin-2", "staging", "1.1.0", ""))

	sha := func(id string) string {
		t.Helper()
		body, _ := r.get("/api/v1/deployments/" + id)
		var st struct {
			State    string `json:"state"`
			Artifact struct {
				SHA256 *string `json:"sha256"`
			} `json:"artifact"`
		}
		if err := json.Unmarshal(body, &st); err != nil || st.Artifact.SHA256 == nil {
			t.Fatalf("status of %s: %v %s", id, err, body)
		}
		return *st.Artifact.SHA256
	}
	was := sha("pin-1")

	// hello 1.0.0 is published again with other bytes.
	other, err := os.ReadFile(filepath.Join(repoRoot(), "examples/artifacts/hello-1.2.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "artifacts", "hello-1.0.0.tar.gz"), string(other))

	out, errOut, code := r.manent(tokenAdmin, "rollback", "hello", "staging", "--to", "pin-1", "--no-wait")
	if code != 0 {
		t.Fatalf("manent rollback hello staging --to pin-1: exit %d\n%s%s", code, out, errOut)
	}
	id := strings.TrimSpace(out)
	st := r.followToEnd(id)
	for _, s := range st.Steps {
		if s.Name == "artifacts" && s.State == "ERROR" {
			return // refused for a digest that does not match: what a pinned rollback does
		}
	}
	why := ""
	if st.Error != nil {
		why = ": " + *st.Error
	}
	if got := sha(id); got != was {
		t.Errorf("the rollback to pin-1 (sha256 %s) downloaded sha256 %s and handed it to the deploy step; it ended %s%s", was, got, st.State, why)
	}
}
