package main

import (
	"encoding/json"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
)

// inventoryServer answers GetInventory with what a server sends: null for
// the release of an environment with nothing in service.
func inventoryServer(t *testing.T) *clienttest.Server {
	srv := clienttest.New(t)
	srv.Handle("GetInventory", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"inventory": []any{
			map[string]any{"tenant": "demo", "application": "hello", "environment": "staging", "deploymentId": "hello-1",
				"artifact": map[string]any{"type": "tarball", "name": "hello", "version": "1.0.0", "source": "file:hello.tgz", "pinnedSha256": nil},
				"sha256":   "0123456789abcdef0123", "deployedAt": "2025-01-02T03:04:05Z", "deployedBy": "token:ci", "previous": nil, "lastFailure": nil},
			map[string]any{"tenant": "demo", "application": "hello", "environment": "prod", "deploymentId": "hello-1",
				"artifact": map[string]any{"type": "tarball", "name": "hello", "version": "1.0.0", "source": "file:hello.tgz", "pinnedSha256": nil},
				"sha256":   nil, "deployedAt": "2025-01-02T03:04:05Z", "deployedBy": "token:ci",
				"previous": map[string]any{"deploymentId": "hello-0",
					"artifact": map[string]any{"type": "tarball", "name": "hello", "version": "0.9.0", "source": "file:hello-0.9.tgz", "pinnedSha256": nil},
					"sha256":   "fedcba9876543210fedc", "deployedAt": "2025-01-01T03:04:05Z", "deployedBy": nil},
				"lastFailure": map[string]any{"deploymentId": "hello-2", "step": "post-test", "error": "health: 404 Not Found",
					"finishedAt": "2025-01-02T04:04:05Z", "rollback": "COMPLETED"}},
			map[string]any{"tenant": "demo", "application": "hello", "environment": "broken", "deploymentId": nil,
				"artifact": nil, "sha256": nil, "deployedAt": nil, "deployedBy": nil, "previous": nil,
				"lastFailure": map[string]any{"deploymentId": "hello-3", "step": nil, "error": nil,
					"finishedAt": "2025-01-02T05:04:05Z", "rollback": nil}},
		}}, nil
	})
	return srv
}

func TestInventoryTable(t *testing.T) {
	srv := inventoryServer(t)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "inventory")
	want := `TENANT  APPLICATION  ENVIRONMENT  VERSION  DEPLOYMENT  SHA256        DEPLOYED              BY        PREVIOUS  LAST FAILURE  STEP       FAILED                ROLLBACK
demo    hello        staging      1.0.0    hello-1     0123456789ab  2025-01-02T03:04:05Z  token:ci  -         -             -          -                     -
demo    hello        prod         1.0.0    hello-1     -             2025-01-02T03:04:05Z  token:ci  0.9.0     hello-2       post-test  2025-01-02T04:04:05Z  completed
demo    hello        broken       -        -           -             -                     -         -         hello-3       -          2025-01-02T05:04:05Z  -
`
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, got:\n%s\nwant:\n%s%s", r.code, r.stdout, want, r.stderr)
	}
}

func TestInventoryJSON(t *testing.T) {
	srv := inventoryServer(t)
	r := runCLI(t, map[string]string{envServer: srv.URL}, "", "inventory", "-o", "json")
	var got []json.RawMessage
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got) != 3 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	tests := []struct {
		name string
		got  json.RawMessage
		want string
	}{
		{"in service", got[0], `{"tenant":"demo","application":"hello","environment":"staging","deployment_id":"hello-1",` +
			`"artifact":{"type":"tarball","name":"hello","version":"1.0.0","source":"file:hello.tgz"},"sha256":"0123456789abcdef0123",` +
			`"deployed_at":"2025-01-02T03:04:05Z","deployed_by":"token:ci","previous":null,"last_failure":null}`},
		{"in service with a last failure", got[1], `{"tenant":"demo","application":"hello","environment":"prod","deployment_id":"hello-1",` +
			`"artifact":{"type":"tarball","name":"hello","version":"1.0.0","source":"file:hello.tgz"},"sha256":null,` +
			`"deployed_at":"2025-01-02T03:04:05Z","deployed_by":"token:ci","previous":{"deployment_id":"hello-0",` +
			`"artifact":{"type":"tarball","name":"hello","version":"0.9.0","source":"file:hello-0.9.tgz"},"sha256":"fedcba9876543210fedc",` +
			`"deployed_at":"2025-01-01T03:04:05Z","deployed_by":null},"last_failure":{"deployment_id":"hello-2","step":"post-test",` +
			`"error":"health: 404 Not Found","finished_at":"2025-01-02T04:04:05Z","rollback":"completed"}}`},
		{"nothing in service", got[2], `{"tenant":"demo","application":"hello","environment":"broken","deployment_id":null,` +
			`"artifact":null,"sha256":null,"deployed_at":null,"deployed_by":null,"previous":null,"last_failure":{"deployment_id":"hello-3",` +
			`"step":null,"error":null,"finished_at":"2025-01-02T05:04:05Z","rollback":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := canonicalJSON(t, tt.got), canonicalJSON(t, []byte(tt.want)); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// The views never print a zero time for a release that is not there.
func TestInventoryViewsOfAnEmptyEnvironment(t *testing.T) {
	v := toInventoryViews([]client.InventoryEntry{{Tenant: "demo", Application: "hello", Environment: "broken",
		LastFailure: &client.LastFailure{DeploymentId: "hello-3", FinishedAt: t0.Add(time.Hour), Rollback: client.RollbackStateDisabled}}})
	if len(v) != 1 || v[0].DeploymentID != nil || v[0].Artifact != nil || v[0].DeployedAt != nil ||
		v[0].LastFailure == nil || *v[0].LastFailure.Rollback != "disabled" {
		t.Fatalf("view = %+v", v)
	}
}

// canonicalJSON is raw with its object keys sorted.
func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
