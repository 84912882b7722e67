package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Review of issue 9: the complexity limit counts one per field and ignores
// what a list field returns, so a read-only token may still ask for
// first × limit × aliases objects in one small request. On a server with
// 500 deploys of 200 log lines, 12 aliases of the query below (881 bytes,
// complexity 84) answered 108 MB after 23 s and grew the server from 40 MB
// to 1.4 GB; the limit allows 50 of them. deployments(first) and
// logs(limit) (and activity(first), releases(first), ...) must multiply
// the cost of what they select, as gqlgen's complexity functions do.
func TestReviewListsMultiplyComplexity(t *testing.T) {
	inner := "deployments(first: 500) { edges { node { logs(limit: 5000) { lines { message } } } } }"
	var b strings.Builder
	b.WriteString("{")
	for i := range 12 {
		fmt.Fprintf(&b, " a%d: %s", i, inner)
	}
	b.WriteString(" }")
	srv := newTestServer(t, &fakeService{}, newFakeEvents())
	raw := srv.postRaw(t, "viewer", b.String())
	var resp gqlResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("decode %.300s: %v", raw, err)
	}
	if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != codeComplexity {
		t.Fatalf("12 × deployments(first: 500) × logs(limit: 5000) (up to 30M log lines) was not refused: %.300s", raw)
	}
}
