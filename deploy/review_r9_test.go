package deploy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Review of issue 9: a dependency the caller may not read (or one removed
// by retention) has no state: null, as docs/chains.md and docs/security.md
// say and GraphQL answers. The status JSON (REST GET /api/v1/deployments/{id},
// manent status/list -o json) says "state": "" instead.
func TestReviewUnknownDependencyStateIsNull(t *testing.T) {
	exp := time.Now().Add(time.Hour)
	d := &Deployment{ID: "child", State: StateWaitingDependency, AfterExpiresAt: &exp,
		Descriptor: Descriptor{After: []string{"hidden"}},
		Dependencies: []Dependency{{ID: "hidden"}}}
	b, err := json.Marshal(NewStatus(d))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `{"id":"hidden","state":null}`) {
		t.Fatalf("status JSON after = %s, want the dependency's state null", b)
	}
}
