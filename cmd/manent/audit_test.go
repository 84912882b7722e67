package main

import (
	"reflect"
	"testing"

	"manent.dev/manent/client/clienttest"
)

// auditServer answers ListAuditEntries with two pages of one entry each.
func auditServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Handle("ListAuditEntries", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["after"] == "c1" {
			return map[string]any{"auditEntries": map[string]any{
				"nodes": []any{map[string]any{"id": "1", "time": "2025-01-02T03:00:00Z", "actor": "token:ci",
					"action": "deployment.submit", "target": "hello-1", "details": map[string]any{"comment": "x"},
					"resources": []any{map[string]any{"tenant": "demo", "application": "hello", "environment": "prod"}}}},
				"pageInfo": map[string]any{"hasNextPage": false, "endCursor": nil}}}, nil
		}
		return map[string]any{"auditEntries": map[string]any{
			"nodes": []any{map[string]any{"id": "2", "time": "2025-01-02T03:04:00Z", "actor": "token:ci",
				"action": "deployment.finish", "target": "hello-1", "details": map[string]any{"state": "SUCCESS"},
				"resources": []any{map[string]any{"tenant": "demo", "application": "hello", "environment": "prod"}}}},
			"pageInfo": map[string]any{"hasNextPage": true, "endCursor": "c1"}}}, nil
	})
	return srv
}

func TestAuditFlagsBecomeTheFilter(t *testing.T) {
	srv := auditServer(t)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "audit", "--since", "2d", "--action", "deployment.*",
		"--tenant", "demo", "--application", "hello", "--environment", "prod", "--actor", "token:ci", "--limit", "5")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (two pages)", len(reqs))
	}
	want := map[string]any{"tenant": "demo", "application": "hello", "environment": "prod", "actor": "token:ci",
		"action": "deployment.*", "since": "2024-12-31T03:04:05Z", "first": float64(5)}
	if got := reqs[0].Variables; !reflect.DeepEqual(got, want) {
		t.Errorf("variables = %v, want %v", got, want)
	}
	if reqs[1].Variables["after"] != "c1" || reqs[1].Variables["first"] != float64(4) {
		t.Errorf("second page variables = %v", reqs[1].Variables)
	}
	wantTable := `TIME                  ACTOR     ACTION             TARGET   ABOUT            OUTCOME
2025-01-02T03:04:00Z  token:ci  deployment.finish  hello-1  demo/hello/prod  SUCCESS
2025-01-02T03:00:00Z  token:ci  deployment.submit  hello-1  demo/hello/prod  -
`
	if r.stdout != wantTable {
		t.Errorf("table:\n%s\nwant:\n%s", r.stdout, wantTable)
	}
}

func TestAuditJSON(t *testing.T) {
	srv := auditServer(t)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "audit", "-o", "json", "--limit", "1")
	want := `[{"id":"2","time":"2025-01-02T03:04:00Z","actor":"token:ci","action":"deployment.finish","target":"hello-1",` +
		`"details":{"state":"SUCCESS"},"resources":[{"tenant":"demo","application":"hello","environment":"prod"}]}]`
	if r.code != 0 || canonicalJSON(t, []byte(r.stdout)) != canonicalJSON(t, []byte(want)) {
		t.Errorf("exit %d, got %s want %s%s", r.code, r.stdout, want, r.stderr)
	}
}

func TestAuditRefusesBadFlags(t *testing.T) {
	srv := auditServer(t)
	for _, args := range [][]string{{"--since", "yesterday"}, {"--since", "-1h"}, {"--limit", "-1"}, {"extra"}} {
		r := runCLI(t, map[string]string{envServer: srv.URL}, "", append([]string{"audit"}, args...)...)
		if r.code != 2 || r.stderr == "" {
			t.Errorf("manent audit %v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent for refused flags", n)
	}
}
