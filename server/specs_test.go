package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
)

// The words of the custom steps' specifications that no reader may see.
const (
	secretCommand = "/opt/tools/migrate-7f3a"
	secretHost    = "purge.cdn-7f3a.example.com"
)

// specsConfig writes a manent.yml with two custom steps, an approval rule
// for prod and signing keys, the environment configurations of shop in
// staging and prod, and the artifact; extra is added to pipeline.custom.
func specsConfig(t *testing.T, dir, extra string) string {
	t.Helper()
	files := map[string]string{
		"manent.yml": fmt.Sprintf(`server: {executor_id: test, default_tenant: demo, work_dir: work}
auth:
  tokens:
    - {name: admin, sha256: %s}
    - {name: ci, sha256: %s, groups: [ci]}
rbac:
  policy: |
    p, token:admin, *, *, admin
    p, group:ci, demo, shop/*, deployment.submit
    p, group:ci, demo, shop/*, deployment.read
envconfig: {dir: envconfig}
artifacts: {sources: ["file:"], file_root: artifacts}
governance:
  approvals:
    - {name: prod, match: {environment: prod}}
pipeline:
  retry_interval: 10ms
  retry_max_interval: 100ms
  custom:
    spec_key_refs: ["env:MANENT_SPEC_KEY"]
%s
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - name: db-migrate
      mode: optional
      enabled: false
      type: command
      secrets: [db-admin]
      ssh: {key_secret: ssh-migrate}
      params: {database: {pattern: "[a-z]+", required: true}}
      run: {run_once: true, command: ["%s", "up", "{{ .Params.database }}"]}
    - {name: deploy, mode: mandatory}
    - name: cdn-purge
      mode: mandatory
      type: http
      secrets: [cdn-token]
      run:
        url: "https://%s/zones/{{ .Application }}/purge"
        auth: {type: bearer, secret: cdn-token}
        json: {ttl: 1.50}
queues: {poll_interval: 20ms}
`, hash(demoTokens["admin"]), hash(demoTokens["ci"]), extra, secretCommand, secretHost),
		"artifacts/shop-1.0.0.tar.gz": string(tarball(t, map[string]string{"index.html": "<p>shop</p>"})),
	}
	for _, env := range []string{"staging", "prod"} {
		files["envconfig/demo/shop/"+env+".yml"] = `plugin: local
targets: [{path: targets/` + env + `}]
step_params: {db-migrate: {database: shop}}
secrets:
  - {name: db-admin, ref: env:MANENT_SECRET_DB}
  - {name: ssh-migrate, ref: env:MANENT_SECRET_SSH}
  - {name: cdn-token, ref: env:MANENT_SECRET_CDN}
`
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "manent.yml")
}

func shopDescriptor(id, env, extra string) string {
	return "apiVersion: manent/v1\nid: " + id + "\napplication: shop\nenvironment: " + env +
		"\nartifact: {type: application, name: shop, version: 1.0.0, source: file:shop-1.0.0.tar.gz}\n" + extra
}

// noSpecIn fails when a reader's answer shows a specification: its
// command, its URL or its signature.
func noSpecIn(t *testing.T, what string, body []byte, signatures ...string) {
	t.Helper()
	for _, s := range append([]string{secretCommand, secretHost, `"spec"`, `"signature"`}, signatures...) {
		if s != "" && bytes.Contains(body, []byte(s)) {
			t.Errorf("%s shows %q: %s", what, s, body)
		}
	}
}

type plannedJSON struct {
	Plan []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		SpecHash string `json:"spec_hash"`
	} `json:"plan"`
}

// TestCustomStepsShownByTypeAndHash submits deploys to an API process (no
// worker: they stay queued or waiting) and reads them back by every way a
// reader has: the plan endpoint, the status JSON, GraphQL. Each shows a
// custom step's type and spec_hash and nothing of its specification.
// Then admin specs finds them, by hash, by revoked_specs, all of them,
// and tells a plan altered in DBOS's records.
func TestCustomStepsShownByTypeAndHash(t *testing.T) {
	t.Setenv("MANENT_SPEC_KEY", strings.Repeat("s", 32))
	dir := t.TempDir()
	configPath := specsConfig(t, dir, "")
	t.Setenv("DATABASE_URL", pgtest.URL(t))
	srv := startRole(t, configPath, RoleAPI)
	base := srv.URL() + "/api/v1/deployments"

	resp, body := request(t, "POST", base+"/plan", demoTokens["ci"], shopDescriptor("shop-v", "staging", "steps: {db-migrate: true}\n"))
	var plan plannedJSON
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &plan) != nil {
		t.Fatalf("plan: %d %s", resp.StatusCode, body)
	}
	noSpecIn(t, "the plan endpoint", body)
	hashes := map[string]string{}
	for _, s := range plan.Plan {
		if (s.SpecHash != "") != (s.Type != "standard") {
			t.Errorf("plan step %+v", s)
		}
		if s.SpecHash != "" {
			hashes[s.Name] = s.SpecHash
		}
	}
	migrate, purge := hashes["db-migrate"], hashes["cdn-purge"]
	if len(migrate) != 64 || len(purge) != 64 || migrate == purge {
		t.Fatalf("hashes = %v", hashes)
	}

	submits := []struct{ id, env, extra string }{
		{"shop-q", "staging", "steps: {db-migrate: true}\n"},
		{"shop-plain", "staging", ""},
		{"shop-a", "prod", ""},
		{"shop-nightly", "staging", "schedule: {cron: \"0 3 * * *\"}\n"},
	}
	for _, s := range submits {
		resp, body := request(t, "POST", base, demoTokens["ci"], shopDescriptor(s.id, s.env, s.extra))
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusCreated {
			t.Fatalf("submit %s: %d %s", s.id, resp.StatusCode, body)
		}
		noSpecIn(t, "the answer to a submission", body)
	}

	db, err := postgres.Open(t.Context(), os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var signatures []string
	rows, err := db.SQL().QueryContext(t.Context(),
		`SELECT s->>'signature' FROM manent.deployments, jsonb_array_elements(plan->'steps') AS s WHERE s ? 'signature'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var sig string
		if err := rows.Scan(&sig); err != nil {
			t.Fatal(err)
		}
		signatures = append(signatures, sig)
	}
	if err := rows.Close(); err != nil || len(signatures) != 4 {
		t.Fatalf("stored signatures: %d (%v)", len(signatures), err)
	}

	resp, body = request(t, "GET", base+"/shop-q", demoTokens["ci"], "")
	var status struct {
		Steps []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			SpecHash string `json:"spec_hash"`
		} `json:"steps"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &status) != nil {
		t.Fatalf("status: %d %s", resp.StatusCode, body)
	}
	noSpecIn(t, "the status JSON", body, signatures...)
	shown := map[string]string{}
	for _, s := range status.Steps {
		shown[s.Name] = s.Type + " " + s.SpecHash
	}
	if shown["db-migrate"] != "command "+migrate || shown["cdn-purge"] != "http "+purge || shown["deploy"] != "standard " {
		t.Errorf("status steps = %v", shown)
	}

	var gq struct {
		Deployment struct {
			Plan struct {
				Steps []struct {
					Name     string  `json:"name"`
					Type     string  `json:"type"`
					SpecHash *string `json:"specHash"`
				} `json:"steps"`
			} `json:"plan"`
		} `json:"deployment"`
	}
	query := `query($id: ID!) { deployment(id: $id) { id state plan { steps { name type specHash maxRetries timeoutSeconds mandatory } }
		effective { plugin secretNames healthChecks } steps { name type kind state output { key value } error } } }`
	if codes := graphQL(t, srv, demoTokens["ci"], query, map[string]any{"id": "shop-q"}, &gq); codes != nil {
		t.Fatalf("graphql: %v", codes)
	}
	raw, _ := json.Marshal(gq)
	noSpecIn(t, "GraphQL", raw, signatures...)
	var got []string
	for _, s := range gq.Deployment.Plan.Steps {
		if s.SpecHash != nil {
			got = append(got, s.Name+" "+s.Type+" "+*s.SpecHash)
		}
	}
	if want := []string{"db-migrate command " + migrate, "cdn-purge http " + purge}; !reflect.DeepEqual(got, want) {
		t.Errorf("GraphQL plan = %v, want %v", got, want)
	}

	// admin specs, by hash: every plan still to run that holds cdn-purge.
	report, err := Specs(t.Context(), Config{ConfigPath: configPath, Logger: quiet()}, []string{purge}, false)
	if err != nil {
		t.Fatal(err)
	}
	use := func(kind, id, workflow, status, env, step, h string) SpecUse {
		return SpecUse{Kind: kind, ID: id, Workflow: workflow, Status: status, Application: "shop", Environment: env, Step: step, SpecHash: h}
	}
	want := SpecsReport{Hashes: []string{purge}, Uses: []SpecUse{
		use("workflow", "shop-a", "manent.wait", "ENQUEUED", "prod", "cdn-purge", purge),
		use("workflow", "shop-plain", "manent.deploy", "ENQUEUED", "staging", "cdn-purge", purge),
		use("workflow", "shop-q", "manent.deploy", "ENQUEUED", "staging", "cdn-purge", purge),
		use("schedule", "shop-nightly", "", "ACTIVE", "staging", "cdn-purge", purge),
	}}
	if !reflect.DeepEqual(report, want) {
		t.Errorf("admin specs --hash:\n got %+v\nwant %+v", report, want)
	}
	out, _ := json.Marshal(report)
	if !strings.Contains(string(out), `{"kind":"schedule","id":"shop-nightly","status":"ACTIVE","application":"shop","environment":"staging","step":"cdn-purge","spec_hash":"`+purge+`"}`) {
		t.Errorf("the JSON of a schedule's use: %s", out)
	}

	// From revoked_specs, in a configuration of its own.
	revokedPath := specsConfig(t, t.TempDir(), "    revoked_specs: [\""+migrate+"\"]")
	report, err = Specs(t.Context(), Config{ConfigPath: revokedPath, Logger: quiet()}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := (SpecsReport{Hashes: []string{migrate}, Uses: []SpecUse{use("workflow", "shop-q", "manent.deploy", "ENQUEUED", "staging", "db-migrate", migrate)}}); !reflect.DeepEqual(report, want) {
		t.Errorf("admin specs from revoked_specs:\n got %+v\nwant %+v", report, want)
	}

	// A plan altered in DBOS's records: its recorded hash no longer says
	// what it holds.
	var enc string
	if err := db.SQL().QueryRowContext(t.Context(), "SELECT inputs FROM dbos.workflow_input WHERE workflow_uuid = 'shop-plain'").Scan(&enc); err != nil {
		t.Fatal(err)
	}
	rawJob, _ := base64.StdEncoding.DecodeString(enc)
	var job deploy.Job
	if err := json.Unmarshal(rawJob, &job); err != nil {
		t.Fatal(err)
	}
	for i := range job.Plan.Steps {
		if s := &job.Plan.Steps[i]; s.Spec != nil {
			s.Spec.Run.URL = "https://evil.example.com/"
		}
	}
	rawJob, _ = json.Marshal(job)
	if _, err := db.SQL().ExecContext(t.Context(), "UPDATE dbos.workflow_input SET inputs = $1 WHERE workflow_uuid = 'shop-plain'",
		base64.StdEncoding.EncodeToString(rawJob)); err != nil {
		t.Fatal(err)
	}

	report, err = Specs(t.Context(), Config{ConfigPath: configPath, Logger: quiet()}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	tampered := use("workflow", "shop-plain", "manent.deploy", "ENQUEUED", "staging", "cdn-purge", purge)
	tampered.Mismatch = true
	want = SpecsReport{Hashes: sortedPair(migrate, purge), Uses: []SpecUse{
		use("workflow", "shop-a", "manent.wait", "ENQUEUED", "prod", "cdn-purge", purge),
		tampered,
		use("workflow", "shop-q", "manent.deploy", "ENQUEUED", "staging", "db-migrate", migrate),
		use("workflow", "shop-q", "manent.deploy", "ENQUEUED", "staging", "cdn-purge", purge),
		use("schedule", "shop-nightly", "", "ACTIVE", "staging", "cdn-purge", purge),
	}}
	if !reflect.DeepEqual(report, want) {
		t.Errorf("admin specs --all:\n got %+v\nwant %+v", report, want)
	}
	out, _ = json.Marshal(report)
	if !strings.Contains(string(out), `"mismatch":true`) || strings.Count(string(out), "mismatch") != 1 {
		t.Errorf("mismatch in the JSON: %s", out)
	}

	if _, err := Specs(t.Context(), Config{ConfigPath: configPath, Logger: quiet()}, []string{"abc"}, false); err == nil {
		t.Error("a malformed --hash was accepted")
	}
}

func sortedPair(a, b string) []string {
	if a > b {
		a, b = b, a
	}
	return []string{a, b}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(new(bytes.Buffer), nil)) }

// TestSpecKeysAtStartUp: the keys are resolved when the server starts; a
// short one stops it without its value, and a pipeline with custom steps
// but no keys starts with a warning.
func TestSpecKeysAtStartUp(t *testing.T) {
	tests := []struct {
		name, custom, key string
		wantErr, wantWarn string
	}{
		{name: "a key of 32 bytes signs", custom: `spec_key_refs: ["env:MANENT_SPEC_KEY"]`, key: strings.Repeat("k", 32)},
		{name: "a short key stops the start", custom: `spec_key_refs: ["env:MANENT_SPEC_KEY"]`, key: "short-key-value",
			wantErr: "spec keys: pipeline.custom.spec_key_refs[0]: the key env:MANENT_SPEC_KEY has 15 bytes: at least 32 are needed (openssl rand -hex 32 prints 64)"},
		{name: "a key that is not there stops the start", custom: `spec_key_refs: ["env:MANENT_SPEC_NONE"]`,
			wantErr: "spec keys: pipeline.custom.spec_key_refs[0]: secret reference env:MANENT_SPEC_NONE: variable not set"},
		{name: "no keys: a warning", custom: `allow_http: false`, wantWarn: "pipeline.custom.spec_key_refs is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("MANENT_SPEC_KEY", tt.key)
			cfg, err := config.Parse([]byte("pipeline:\n  custom: {"+tt.custom+"}\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"+
				"    - {name: notify, mode: optional, type: http, run: {url: \"https://hooks.example.com/\"}}\n"), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			k, err := specKeyring(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)))
			switch {
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("err = %v, want %s", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.key != "" && strings.Contains(fmt.Sprint(err), tt.key):
				t.Fatal("the error shows the key")
			case tt.wantErr == "" && k.Signs() != (tt.wantWarn == ""):
				t.Fatalf("signs = %v", k.Signs())
			}
			if tt.wantWarn != "" && !strings.Contains(logs.String(), tt.wantWarn) || tt.wantWarn == "" && logs.Len() > 0 {
				t.Errorf("log = %q", logs.String())
			}
		})
	}
}

// TestSpecKeysOutOfReachOfTheSteps: the keys the server signs with are
// read where no secret reference can reach: the providers the engine
// resolves every reference with (an environment configuration's, or one
// changed in the plans recorded in the database) cannot read them, and a
// key path that a symbolic link leads into secrets.file_root stops the
// start.
func TestSpecKeysOutOfReachOfTheSteps(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"keys/spec": strings.Repeat("f", 40) + "\n", "secrets/db": "db-password\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "keys/spec"), filepath.Join(dir, "secrets/spec")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secrets/db"), filepath.Join(dir, "keys/linked")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MANENT_SPEC_KEY", strings.Repeat("e", 32))
	parse := func(keys string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte("secrets: {file_root: secrets}\npipeline:\n  custom: {spec_key_refs: ["+keys+"]}\n  steps:\n"+
			"    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"), dir)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := parse(`"env:MANENT_SPEC_KEY", "file:keys/spec"`)
	k, err := specKeyring(t.Context(), cfg, quiet())
	if err != nil || !k.Signs() {
		t.Fatalf("keys outside the secrets' namespace: %v", err)
	}
	resolver := map[string]deploy.SecretProvider{}
	for _, p := range engineSecrets(cfg) {
		resolver[p.Scheme()] = p
	}
	for _, ref := range []string{"env:MANENT_SPEC_KEY", "file:../keys/spec", "file:" + filepath.Join(dir, "keys/spec"), "file:spec"} {
		scheme, _, _ := strings.Cut(ref, ":")
		if v, err := resolver[scheme].Resolve(t.Context(), ref); err == nil {
			t.Errorf("a step's secret reference %s reads the key: %q", ref, v)
		}
	}
	if v, err := resolver["file"].Resolve(t.Context(), "file:db"); err != nil || v != "db-password" {
		t.Fatalf("a secret of the namespace: %q, %v", v, err)
	}

	_, err = specKeyring(t.Context(), parse(`"file:keys/linked"`), quiet())
	if want := "spec keys: pipeline.custom.spec_key_refs[0]: secret reference file:keys/linked: a symbolic link leads into secrets.file_root"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a key linked into secrets.file_root: %v, want %s", err, want)
	}
}
