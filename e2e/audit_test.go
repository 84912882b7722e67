package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// auditLine is what manent audit -o json prints of an entry.
type auditLine struct {
	Actor     string              `json:"actor"`
	Action    string              `json:"action"`
	Target    string              `json:"target"`
	Details   map[string]any      `json:"details"`
	Resources []map[string]string `json:"resources"`
}

func (r *rig) audit(token string, args ...string) []auditLine {
	r.t.Helper()
	out, errOut, code := r.manent(token, append([]string{"audit", "-o", "json"}, args...)...)
	if code != 0 {
		r.t.Fatalf("manent audit %v as %s: exit %d\n%s", args, token, code, errOut)
	}
	var lines []auditLine
	if err := json.Unmarshal([]byte(out), &lines); err != nil {
		r.t.Fatalf("manent audit %v: %v\n%s", args, err, out)
	}
	return lines
}

func actions(lines []auditLine) []string {
	out := []string{}
	for _, l := range lines {
		out = append(out, l.Action+"@"+l.Target)
	}
	return out
}

// TestAuditLog reads the audit of real deploys through the CLI and
// GraphQL: whoever reads the deploy reads its entries, filtered; another
// tenant's token and an identity without deployment.read on it see none,
// exactly as if the log were empty.
func TestAuditLog(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.srv.start()
	r.artifact("1.0.0")
	r.env("staging", "plugin: local\ntargets: [{path: targets/staging}]\n")
	r.env("prod", "plugin: local\ntargets: [{path: targets/prod}]\n")
	r.deployFollowed(r.descriptor("au-stg", "staging", "1.0.0", ""))
	r.deployFollowed(r.descriptor("au-prod", "prod", "1.0.0", ""))

	all := r.audit(tokenCI)
	want := []string{"deployment.finish@au-prod", "deployment.submit@au-prod", "deployment.finish@au-stg", "deployment.submit@au-stg"}
	if got := actions(all); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("manent audit = %v, want %v", got, want)
	}
	if l := all[0]; l.Actor != "token:demo-ci" || l.Details["state"] != "SUCCESS" ||
		len(l.Resources) != 1 || l.Resources[0]["environment"] != "prod" || l.Resources[0]["tenant"] != "demo" {
		t.Errorf("the finish entry = %+v", l)
	}
	for _, tt := range []struct {
		name  string
		token string
		args  []string
		want  []string
	}{
		{"by environment", tokenCI, []string{"--environment", "staging"}, want[2:]},
		{"by application and action", tokenCI, []string{"--application", "hello", "--action", "deployment.finish"},
			[]string{want[0], want[2]}},
		{"by action prefix", tokenCI, []string{"--action", "deployment.*", "--limit", "1"}, want[:1]},
		{"since", tokenCI, []string{"--since", "1h", "--environment", "prod"}, want[:2]},
		{"an admin of every tenant", tokenAdmin, []string{"--actor", "token:demo-ci"}, want},
		{"another tenant's token", tokenAcme, nil, []string{}},
		{"another tenant's token naming the tenant", tokenAcme, []string{"--tenant", "demo"}, []string{}},
		{"no deployment.read on hello", tokenOutsider, nil, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := actions(r.audit(tt.token, tt.args...)); strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("manent audit %v as %s = %v, want %v", tt.args, tt.token, got, tt.want)
			}
		})
	}

	out, errOut, code := r.manent(tokenCI, "audit", "--environment", "prod")
	if code != 0 || !strings.Contains(out, "TIME") || !strings.Contains(out, "deployment.finish  au-prod  demo/hello/prod  SUCCESS") {
		t.Errorf("manent audit table: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code := r.manent(tokenCI, "audit", "--since", "yesterday"); code != 2 || !strings.Contains(errOut, "--since") {
		t.Errorf("manent audit --since yesterday: exit %d, want 2\n%s", code, errOut)
	}
	if _, _, code := r.manent("", "audit"); code != 3 {
		t.Errorf("manent audit without a token: exit %d, want 3", code)
	}

	// GraphQL: the connection's pages, and the same nothing for acme.
	query := func(token, args string) map[string]any {
		body, _ := json.Marshal(map[string]string{"query": `{ auditEntries` + args +
			` { edges { cursor node { action target } } nodes { action } pageInfo { hasNextPage endCursor } } }`})
		b, status := r.postAs(token, "/graphql", "application/json", body)
		var resp struct {
			Data   map[string]map[string]any `json:"data"`
			Errors []any                     `json:"errors"`
		}
		if status != 200 || json.Unmarshal(b, &resp) != nil || len(resp.Errors) > 0 {
			t.Fatalf("auditEntries%s: %d %s", args, status, b)
		}
		return resp.Data["auditEntries"]
	}
	page := query(tokenCI, `(first: 3)`)
	info := page["pageInfo"].(map[string]any)
	if len(page["nodes"].([]any)) != 3 || info["hasNextPage"] != true {
		t.Fatalf("first page = %v", page)
	}
	rest := query(tokenCI, `(first: 3, after: "`+info["endCursor"].(string)+`")`)
	if nodes := rest["nodes"].([]any); len(nodes) != 1 || nodes[0].(map[string]any)["action"] != "deployment.submit" ||
		rest["pageInfo"].(map[string]any)["hasNextPage"] != false {
		t.Errorf("second page = %v", rest)
	}
	bad, _ := json.Marshal(map[string]string{"query": `{ auditEntries(after: "not-a-cursor") { nodes { id } } }`})
	if b, _ := r.postAs(tokenCI, "/graphql", "application/json", bad); !strings.Contains(string(b), `"code":"UNPROCESSABLE"`) {
		t.Errorf("auditEntries after a bad cursor: %s", b)
	}
	if acme := query(tokenAcme, `(filter: {tenant: "demo"})`); len(acme["nodes"].([]any)) != 0 || len(acme["edges"].([]any)) != 0 {
		t.Errorf("acme reads %v", acme)
	}
}
