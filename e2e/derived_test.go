package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRollbackToAnotherTenantsDeploy is the scenario with the real
// server and CLI: `manent rollback hello qa --to <a deploy of tenant acme>`
// answers as for a deploy that does not exist (exit 2), even for an admin
// who may read acme, and names nothing of it; a descriptor whose id has the
// form of a schedule's tick is refused (exit 2) before anything is stored.
func TestRollbackToAnotherTenantsDeploy(t *testing.T) {
	r := newRig(t, rigOptions{steps: []string{"artifacts", "deploy"}, maxRecovery: 3})
	r.artifact("1.0.0")
	r.artifact("2.0.0")
	r.env("qa", "plugin: local\ntargets:\n  - path: targets/qa\n")
	write(t, filepath.Join(r.dir, "envconfig/acme/secretapp/prod.yml"), "plugin: local\ntargets:\n  - path: targets/acme\n")
	r.srv.start()
	secret := filepath.Join(r.dir, "deploys", "secret-1.yml")
	write(t, secret, `apiVersion: manent/v1
id: secret-1
tenant: acme
application: secretapp
environment: prod
artifact: {type: application, name: hello, version: 1.0.0, source: "file:hello-1.0.0.tar.gz"}
`)
	if out, errOut, code := r.manent(tokenAcme, "deploy", "-f", secret, "--timeout", "2m"); code != 0 {
		t.Fatalf("acme deploy: exit %d\n%s\n%s", code, out, errOut)
	}
	r.deployFollowed(r.descriptor("hello-qa-1", "qa", "1.0.0", ""))
	r.deployFollowed(r.descriptor("hello-qa-2", "qa", "2.0.0", ""))

	tests := []struct {
		token, want string
		code        int
	}{
		// demo-admin may read acme: the answer is the same as for a deploy that does not exist.
		{tokenAdmin, `refused: no deploy "secret-1" to roll back to`, 2},
		// demo-ci lacks deployment.rollback: refused before anything is looked up.
		{tokenCI, "permission denied: token:demo-ci does not hold deployment.rollback on demo/hello/qa", 3},
	}
	for _, tt := range tests {
		out, errOut, code := r.manent(tt.token, "rollback", "hello", "qa", "--to", "secret-1", "--no-wait")
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Fatalf("rollback --to secret-1 as %s: exit %d, stderr %q, want %d %q", tt.token, code, errOut, tt.code, tt.want)
		}
		for _, secret := range []string{"acme", "secretapp", "prod"} {
			if strings.Contains(out+errOut, secret) {
				t.Errorf("rollback as %s shows %q:\n%s%s", tt.token, secret, out, errOut)
			}
		}
	}
	out, _, code := r.manent(tokenAdmin, "list", "--application", "hello", "-o", "json")
	var listed []deployStatus
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 2 {
		t.Fatalf("deploys of hello after the refused rollbacks: exit %d, %v\n%s", code, err, out)
	}

	tick := r.descriptor("hello-qa@20261201-020000", "qa", "1.0.0", "")
	_, errOut, code := r.manent(tokenCI, "deploy", "-f", tick, "--no-wait")
	if code != 2 || !strings.Contains(errOut, "id: must not end in @<yyyymmdd-hhmmss>") {
		t.Fatalf("deploy of a tick's ID: exit %d, stderr %q", code, errOut)
	}
	if body, status := r.get("/api/v1/deployments/hello-qa@20261201-020000"); status != 404 {
		t.Fatalf("refused deploy stored: %d %s", status, body)
	}
}
