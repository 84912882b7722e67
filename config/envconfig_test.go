package config_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func TestLoadEnvConfig(t *testing.T) {
	dir := t.TempDir()
	c, err := config.Parse([]byte(`secrets: {file_root: /run/secrets}
pipeline:
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - {name: qa, mode: mandatory}
    - {name: deploy, mode: mandatory}
    - {name: post-test, mode: optional}
    - {name: activation, mode: optional}
    - name: prune
      mode: optional
      type: http
      params: {keep_releases: {pattern: "[0-9]{1,3}"}}
      run: {url: "https://ops.example.com/prune"}
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := `
plugin: local
targets:
  - {path: ../targets/hello, labels: {zone: a}}
  - {host: web1.example.com, port: 22, user: deploy, path: /srv/hello}
params: {log_level: info}
step_params:
  prune: {keep_releases: "5"}
secrets:
  - {name: api-key, ref: env:MANENT_SECRET_API_KEY}
  - {name: tls, ref: file:tls/key.pem}
health:
  - {url: "http://127.0.0.1:8081/health", expect_status: 204, timeout: 5s}
  - {url: "https://hello.example.com/"}
rollback:
  enabled: true
`
	path := filepath.Join(dir, "envconfig", "shop", "hello", "prod.yml")
	mustWrite(t, path, doc)
	sum := sha256.Sum256([]byte(doc))

	got, err := c.LoadEnvConfig("shop", "hello", "prod")
	if err != nil {
		t.Fatal(err)
	}
	want := &config.EnvConfig{
		Plugin: "local",
		Targets: []deploy.Target{
			{Path: "../targets/hello", Labels: map[string]string{"zone": "a"}},
			{Host: "web1.example.com", Port: 22, User: "deploy", Path: "/srv/hello"},
		},
		Params:     map[string]string{"log_level": "info"},
		StepParams: map[string]map[string]string{"prune": {"keep_releases": "5"}},
		Secrets: []deploy.SecretRef{
			{Name: "api-key", Ref: "env:MANENT_SECRET_API_KEY"},
			{Name: "tls", Ref: "file:tls/key.pem"},
		},
		Health: []deploy.HealthCheck{
			{URL: "http://127.0.0.1:8081/health", ExpectStatus: 204, Timeout: 5 * time.Second},
			{URL: "https://hello.example.com/"},
		},
		Rollback:      deploy.RollbackPolicy{Enabled: true, On: []string{"deploy", "post-test", "activation"}},
		PipelineSteps: []string{"secrets", "artifacts", "qa", "deploy", "post-test", "activation", "prune"},
		Source:        "shop/hello/prod.yml",
		Revision:      hex.EncodeToString(sum[:]),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	t.Run("missing", func(t *testing.T) {
		_, err := c.LoadEnvConfig("shop", "hello", "dev")
		wantCode(t, err, deploy.EUNPROCESSABLE)
		if err.Error() != "no environment configuration for shop/hello/dev" {
			t.Errorf("message %q", err)
		}
	})
	t.Run("names cannot climb out of the directory", func(t *testing.T) {
		_, err := c.LoadEnvConfig("..", "hello", "prod")
		wantCode(t, err, deploy.EUNPROCESSABLE)
	})
	t.Run("invalid file names tenant, application and environment", func(t *testing.T) {
		mustWrite(t, filepath.Join(dir, "envconfig", "shop", "hello", "bad.yml"), "plugin: local\nextra: 1\n")
		_, err := c.LoadEnvConfig("shop", "hello", "bad")
		wantCode(t, err, deploy.EUNPROCESSABLE)
		if err.Error() != "invalid environment configuration for shop/hello/bad: extra: unknown field" {
			t.Errorf("message %q", err)
		}
	})
}

func TestParseEnvConfigErrors(t *testing.T) {
	c, err := config.Parse([]byte("secrets: {file_root: /run/secrets}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "everything wrong at once",
			doc: `
plugin: Local
targets:
  - {user: deploy}
  - {host: a, port: 0}
params: {Bad: x}
step_params: {deploy: {Bad: x}}
secrets:
  - {name: k, ref: env:PATH}
  - {name: k, ref: file:../../etc/shadow}
  - {name: Bad, ref: vault:x}
  - {ref: env:}
health:
  - {url: ftp://x, expect_status: 99, timeout: 10m}
  - {expect_status: 200}
stepParams: {}
`,
			want: []string{
				"stepParams: unknown field (did you mean step_params?)",
				"plugin: must be 1 to 32 characters of a-z, 0-9 and -, starting with a letter",
				"targets[0]: needs a host or a path",
				"targets[1].port: must be between 1 and 65535",
				"params.Bad: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"step_params.deploy.Bad: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"secrets[0].ref: env: variables must start with MANENT_SECRET_ (secrets.env_prefix)",
				"secrets[1].name: is listed twice",
				"secrets[1].ref: file: must stay inside secrets.file_root",
				"secrets[2].name: must be 1 to 63 characters of a-z, 0-9, _ and -, starting with a letter",
				"secrets[2].ref: must be env:NAME or file:path",
				"secrets[3].name: is required",
				"secrets[3].ref: env: must name an environment variable",
				"health[0].url: must be an absolute http:// or https:// URL without credentials",
				"health[0].expect_status: must be an HTTP status between 100 and 599",
				"health[0].timeout: must be between 0s and 5m",
				"health[1].url: is required",
			},
		},
		{name: "plugin required", doc: "targets: [{path: /a}]\n", want: []string{"plugin: is required"}},
		{name: "empty", doc: "", want: []string{"must be a mapping with at least plugin"}},
		{name: "absolute secret file inside the root", doc: "plugin: local\nsecrets: [{name: a, ref: 'file:/etc/passwd'}]\n",
			want: []string{"secrets[0].ref: file: must stay inside secrets.file_root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ParseEnvConfig([]byte(tt.doc))
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("err = %v", err)
			}
			got := make([]string, len(e.Fields))
			for i, f := range e.Fields {
				got[i] = f.String()
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestParseEnvConfigImports(t *testing.T) {
	c, err := config.Parse([]byte("secrets: {file_root: /run/secrets}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("valid", func(t *testing.T) {
		doc := `
plugin: ansible
imports:
  infra: {current: {application: infra-web}}
  dns: {current: {application: dns, environment: shared, artifact: bind, tenant: ops}}
targets_from: [{import: infra, export: vms}]
params: {log_level: info}
params_from:
  db_host: {import: infra, export: db_host}
  zone: {import: dns, export: zone}
`
		got, err := c.ParseEnvConfig([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		wantImports := map[string]deploy.Import{
			"infra": {Current: &deploy.CurrentImport{Application: "infra-web"}},
			"dns":   {Current: &deploy.CurrentImport{Application: "dns", Environment: "shared", Artifact: "bind", Tenant: "ops"}},
		}
		if !reflect.DeepEqual(got.Imports, wantImports) {
			t.Errorf("imports = %+v", got.Imports)
		}
		if want := []deploy.ImportRef{{Import: "infra", Export: "vms"}}; !reflect.DeepEqual(got.TargetsFrom, want) {
			t.Errorf("targets_from = %+v", got.TargetsFrom)
		}
		wantParams := map[string]deploy.ImportRef{"db_host": {Import: "infra", Export: "db_host"}, "zone": {Import: "dns", Export: "zone"}}
		if !reflect.DeepEqual(got.ParamsFrom, wantParams) {
			t.Errorf("params_from = %+v", got.ParamsFrom)
		}
		if got.Targets != nil {
			t.Errorf("targets = %+v, want none before the engine resolves the imports", got.Targets)
		}
	})
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "a deployment import",
			doc:  "plugin: local\nimports: {infra: {deployment: infra-42}}\ntargets_from: [{import: infra, export: vms}]\n",
			want: []string{"imports.infra.deployment: an environment configuration can only import releases in service (current)"},
		},
		{
			name: "deployment and current",
			doc:  "plugin: local\nimports: {infra: {deployment: infra-42, current: {application: infra}}}\ntargets_from: [{import: infra, export: vms}]\n",
			want: []string{"imports.infra.deployment: an environment configuration can only import releases in service (current)"},
		},
		{
			name: "neither",
			doc:  "plugin: local\nimports: {infra: {}}\ntargets_from: [{import: infra, export: vms}]\n",
			want: []string{"imports.infra: needs current (the release in service of an application)"},
		},
		{
			name: "an unused import",
			doc:  "plugin: local\ntargets: [{path: /a}]\nimports: {infra: {current: {application: infra}}}\n",
			want: []string{"imports.infra: is not used by targets_from or params_from"},
		},
		{
			name: "bad names in the import",
			doc:  "plugin: local\nimports: {Infra: {current: {environment: Prod, artifact: -x, tenant: a_b}}}\ntargets_from: [{import: Infra, export: vms}]\n",
			want: []string{
				"imports.Infra: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"imports.Infra.current.application: is required",
				"imports.Infra.current.environment: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
				"imports.Infra.current.artifact: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
				"imports.Infra.current.tenant: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
			},
		},
		{
			name: "targets and targets_from",
			doc:  "plugin: local\ntargets: [{path: /a}]\nimports: {infra: {current: {application: infra}}}\ntargets_from: [{import: infra, export: vms}]\n",
			want: []string{"targets_from: conflicts with targets: the targets come either from the file or from imports, not both"},
		},
		{
			name: "references to undeclared imports and bad exports",
			doc: `plugin: local
imports: {infra: {current: {application: infra}}}
targets_from:
  - {import: infra, export: vms}
  - {import: infra, export: vms}
  - {import: other, export: Vms}
  - {}
params_from:
  db_host: {import: infra, export: db_host}
  x: {import: nope, export: y}
`,
			want: []string{
				"targets_from[1]: infra.vms is already listed (targets_from[0])",
				"targets_from[2].import: other is not declared in imports",
				"targets_from[2].export: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"targets_from[3].import: is required",
				"targets_from[3].export: is required",
				"params_from.x.import: nope is not declared in imports",
			},
		},
		{
			name: "a parameter in params and params_from",
			doc:  "plugin: local\nparams: {db_host: a}\nimports: {infra: {current: {application: infra}}}\nparams_from: {db_host: {import: infra, export: db_host}, Bad: {import: infra, export: x}}\n",
			want: []string{
				"params_from.Bad: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"params_from.db_host: is also in params: a parameter comes either from the file or from an import",
			},
		},
		{
			name: "camelCase keys of the descriptor",
			doc:  "plugin: local\ntargetsFrom: []\n",
			want: []string{"targetsFrom: unknown field (did you mean targets_from?)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ParseEnvConfig([]byte(tt.doc))
			var e *deploy.Error
			if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE {
				t.Fatalf("err = %v", err)
			}
			got := make([]string, len(e.Fields))
			for i, f := range e.Fields {
				got[i] = f.String()
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
