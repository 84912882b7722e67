package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const customStepsConfig = `server: {executor_id: e2e, default_tenant: demo}
auth:
  tokens:
    - {name: demo-ci, sha256: 6103ab6630769a112b5874e7acbc1edfe7f56b38fe179e4b434f1254f45b7470, groups: [ci]}
rbac:
  policy: |
    p, group:ci, demo, shop/*, deployment.submit
    p, group:ci, demo, shop/*, deployment.read
envconfig: {dir: envconfig}
artifacts: {sources: ["file:"], file_root: artifacts}
secrets: {file_root: secrets}
pipeline:
  custom:
    spec_key_refs: ["file:keys/spec"]
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - name: db-migrate
      mode: mandatory
      type: command
      secrets: [db-admin]
      ssh: {key_secret: ssh-migrate}
      params: {database: {pattern: "[a-z]+", required: true}}
      run: {command: ["/opt/tools/migrate-e2e", "up", "{{ .Params.database }}"]}
    - {name: deploy, mode: mandatory}
`

// TestCustomStepsThroughTheBinaries: manent validate shows a custom step's
// type and spec_hash and nothing of its command; a deploy submitted to an
// API process waits in its queue, and manent-server admin specs --hash
// finds it there.
func TestCustomStepsThroughTheBinaries(t *testing.T) {
	serverBin, cliBin := binaries(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "manent.yml"), customStepsConfig)
	write(t, filepath.Join(dir, "keys/spec"), strings.Repeat("e", 40))
	write(t, filepath.Join(dir, "artifacts/shop-1.0.0.tar.gz"), "not read: nothing runs")
	write(t, filepath.Join(dir, "envconfig/demo/shop/prod.yml"), `plugin: local
targets: [{path: targets/prod}]
step_params: {db-migrate: {database: shop}}
secrets:
  - {name: db-admin, ref: "file:db"}
  - {name: ssh-migrate, ref: "file:ssh"}
`)
	desc := filepath.Join(dir, "shop.yml")
	write(t, desc, "apiVersion: manent/v1\nid: shop-1\napplication: shop\nenvironment: prod\n"+
		"artifact: {type: application, name: shop, version: 1.0.0, source: file:shop-1.0.0.tar.gz}\n")

	srv := newServer(t, serverBin, dir)
	srv.role = "api" // nothing runs: the deploy stays in its queue
	srv.start()

	stdout, stderr, code := cli(t, cliBin, srv.URL(), "demo-ci", "validate", "-f", desc, "-o", "json")
	if code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
	var v struct {
		Plan []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			SpecHash string `json:"spec_hash"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("validate output: %v\n%s", err, stdout)
	}
	hash := ""
	for _, s := range v.Plan {
		if s.Name == "db-migrate" && s.Type == "command" {
			hash = s.SpecHash
		}
	}
	if len(hash) != 64 || strings.Contains(stdout, "migrate-e2e") {
		t.Fatalf("validate shows %q as the hash, or the command:\n%s", hash, stdout)
	}
	table, _, code := cli(t, cliBin, srv.URL(), "demo-ci", "validate", "-f", desc)
	if code != 0 || !strings.Contains(table, "db-migrate  command") || !strings.Contains(table, hash) || strings.Contains(table, "migrate-e2e") {
		t.Fatalf("validate table (exit %d):\n%s", code, table)
	}

	if out, errOut, code := cli(t, cliBin, srv.URL(), "demo-ci", "deploy", "-f", desc, "--no-wait", "-o", "json"); code != 0 {
		t.Fatalf("deploy: exit %d\n%s%s", code, out, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, serverBin, "-c", filepath.Join(dir, "manent.yml"), "admin", "specs", "--hash", hash)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+srv.dbURL)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("admin specs: %v\n%s", err, out)
	}
	want := fmt.Sprintf(`{"hashes":[%q],"uses":[{"kind":"workflow","id":"shop-1","workflow":"manent.deploy","status":"ENQUEUED","application":"shop","environment":"prod","step":"db-migrate","spec_hash":%q}]}`, hash, hash)
	var got, wantV any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("admin specs output: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, got), mustJSON(t, wantV); g != w {
		t.Errorf("admin specs:\n got %s\nwant %s", g, w)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
