package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestARefusedPromotionAuditsABoundedRecord: promote and redeploy audit a
// refusal (deployment.promote.refused, deployment.redeploy.refused) with
// the request's to and newId as the caller sent them, before or without
// checking their size. Whoever may read one deploy (and nothing more: the
// refusal comes before any permission on the target) can write megabytes
// of their choosing into the append-only audit log with every request (the
// GraphQL body may be 4 MiB), which retention alone removes.
func TestARefusedPromotionAuditsABoundedRecord(t *testing.T) {
	r := newPromoteRig(t)
	r.deployFollowed(r.descriptor("h-stg", "staging", "1.1.0", ""))
	huge := strings.Repeat("x", 3<<20)
	for _, m := range []struct{ action, query string }{
		{"deployment.promote.refused", `mutation($v: String!) { promote(id: "h-stg", to: $v) { id } }`},
		{"deployment.promote.refused", `mutation($v: ID!) { promote(id: "h-stg", to: "prod", newId: $v) { id } }`},
		{"deployment.redeploy.refused", `mutation($v: ID!) { redeploy(id: "h-stg", newId: $v) { id } }`},
	} {
		a := r.gql(tokenReader, m.query, map[string]any{"v": huge})
		if a.code() == "" {
			t.Fatalf("%s with a 3 MiB argument was accepted", m.query)
		}
	}
	for _, action := range []string{"deployment.promote.refused", "deployment.redeploy.refused"} {
		a := r.gql(tokenAdmin, `query($a: String!) { auditEntries(filter: {action: $a}) { nodes { actor target details } } }`,
			map[string]any{"a": action})
		var page struct {
			Nodes []json.RawMessage `json:"nodes"`
		}
		if a.code() != "" || json.Unmarshal(a.Data["auditEntries"], &page) != nil {
			t.Fatalf("auditEntries(%s): %+v", action, a)
		}
		for _, n := range page.Nodes {
			if len(n) > 16<<10 {
				t.Errorf("%s entry holds %d bytes of the caller's input", action, len(n))
			}
		}
	}
}
