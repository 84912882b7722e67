package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

func TestParseDefaults(t *testing.T) {
	dir := t.TempDir()
	for _, doc := range []string{"", "# nothing yet\n", "server: {}\n"} {
		c, err := config.Parse([]byte(doc), dir)
		if err != nil {
			t.Fatalf("Parse(%q): %v", doc, err)
		}
		checks := []struct {
			name      string
			got, want any
		}{
			{"listen", c.Server.Listen, "127.0.0.1:8080"},
			{"database.max_connections", c.Database.MaxConnections, 40},
			{"executor_id", c.Server.ExecutorID, "local"},
			{"role", c.Server.Role, config.RoleAll},
			{"default_tenant", c.Server.DefaultTenant, "default"},
			{"work_dir (the installation's, under its data directory)", c.Server.WorkDir, ""},
			{"introspection", c.Server.IntrospectionPolicy(), config.IntrospectionAdmins},
			{"envconfig.dir", c.EnvConfig.Dir, filepath.Join(dir, "envconfig")},
			{"artifacts.sources", len(c.Artifacts.Sources), 0},
			{"artifacts.file_root", c.Artifacts.FileRoot, ""},
			{"artifacts.max_size", c.Artifacts.MaxSize, int64(1 << 30)},
			{"artifacts.max_entries", c.Artifacts.MaxEntries, 100_000},
			{"artifacts.max_unpacked_size", c.Artifacts.MaxUnpackedSize, int64(4 << 30)},
			{"pipeline.steps", c.Pipeline.Steps, config.DefaultSteps()},
			{"retry_interval", c.Pipeline.RetryInterval, time.Second},
			{"retry_max_interval", c.Pipeline.RetryMaxInterval, time.Minute},
			{"descriptor_policy", c.Pipeline.DescriptorPolicy, config.DescriptorPolicy{Targets: true}},
			{"poll_interval", c.Queues.PollInterval, 50 * time.Millisecond},
			{"worker_concurrency", c.Queues.WorkerConcurrency, 16},
			{"concurrency of any partition", c.Queues.Concurrency("t/a/e"), 1},
			{"application_version", c.Engine.ApplicationVersion, "manent-2"},
			{"max_recovery_attempts", c.Engine.MaxRecoveryAttempts, 20},
			{"rollout_look_interval", c.Engine.RolloutLookInterval, 15 * time.Minute},
			{"secrets.file_root", c.Secrets.FileRoot, dir},
			{"secrets.env_prefix", c.Secrets.EnvPrefix, "MANENT_SECRET_"},
			{"dir", c.Dir, dir},
		}
		for _, ch := range checks {
			if !reflect.DeepEqual(ch.got, ch.want) {
				t.Errorf("%q: %s = %v, want %v", doc, ch.name, ch.got, ch.want)
			}
		}
	}
}

// TestIntrospectionPolicy: server.introspection, or its former form
// allow_introspection, says who may read the GraphQL schema.
func TestIntrospectionPolicy(t *testing.T) {
	tests := []struct {
		name, doc, want, problem string
	}{
		{name: "default", doc: "server: {}\n", want: config.IntrospectionAdmins},
		{name: "admins", doc: "server: {introspection: admins}\n", want: config.IntrospectionAdmins},
		{name: "all", doc: "server: {introspection: all}\n", want: config.IntrospectionAll},
		{name: "none", doc: "server: {introspection: none}\n", want: config.IntrospectionNone},
		{name: "former form, true", doc: "server: {allow_introspection: true}\n", want: config.IntrospectionAll},
		{name: "former form, false", doc: "server: {allow_introspection: false}\n", want: config.IntrospectionNone},
		{name: "unknown value", doc: "server: {introspection: yes}\n", problem: "server.introspection: must be admins, all or none"},
		{name: "both forms", doc: "server: {introspection: all, allow_introspection: true}\n",
			problem: "server.allow_introspection: is the former form of server.introspection: set only introspection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tt.doc), t.TempDir())
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("err = %v, want %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Server.IntrospectionPolicy(); got != tt.want {
				t.Errorf("policy = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultSteps(t *testing.T) {
	var got []string
	for _, s := range config.DefaultSteps() {
		got = append(got, s.Name+":"+s.Mode)
		if !s.Enabled || s.MaxRetries != 2 || s.Timeout != 10*time.Minute {
			t.Errorf("step %s: enabled %v, max_retries %d, timeout %v", s.Name, s.Enabled, s.MaxRetries, s.Timeout)
		}
	}
	want := "secrets:mandatory artifacts:mandatory qa:mandatory deploy:mandatory post-test:optional activation:optional"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

func TestParseValues(t *testing.T) {
	dir := t.TempDir()
	c, err := config.Parse([]byte(`
server:
  listen: 0.0.0.0:9000
  public_url: https://manent.example.com
  executor_id: worker-1
  role: worker
  default_tenant: shop
  work_dir: work
  introspection: none
database: {url: postgres://localhost/manent}
auth:
  tokens:
    - {name: ci, sha256: `+strings.Repeat("0a", 32)+`, groups: [ci, deployers]}
rbac:
  policy: |
    p, admin, *, *, admin
envconfig: {dir: /etc/manent/envconfig}
artifacts:
  sources: ["file:", "https://repo.example.com/"]
  file_root: ./artifacts
  max_size: 512MiB
  max_entries: 20000
  max_unpacked_size: 2GiB
pipeline:
  steps:
    - {name: artifacts, mode: mandatory, max_retries: 0, timeout: 30s}
    - {name: deploy, mode: mandatory}
    - {name: activation, mode: optional, enabled: false}
    - name: notify
      mode: optional
      type: http
      params: {channel: {pattern: "[a-z]+"}}
      run: {url: "https://hooks.example.com/deploys"}
  retry_interval: 2s
  retry_max_interval: 30s
  descriptor_policy:
    targets: false
    params: [log_level]
    step_params: {notify: ["*"]}
    rollback: true
queues:
  poll_interval: 10ms
  worker_concurrency: 4
  environments: {"shop/web/prod": 2}
engine: {application_version: v7, max_recovery_attempts: 5}
secrets: {file_root: /run/secrets, env_prefix: SHOP_}
`), dir)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := config.Server{
		Listen: "0.0.0.0:9000", PublicURL: "https://manent.example.com", ExecutorID: "worker-1",
		Role: "worker", DefaultTenant: "shop", WorkDir: filepath.Join(dir, "work"), Introspection: config.IntrospectionNone,
	}
	if c.Server != want {
		t.Errorf("server = %+v, want %+v", c.Server, want)
	}
	steps := []config.StepConfig{
		{Name: "artifacts", Mode: "mandatory", Enabled: true, MaxRetries: 0, Timeout: 30 * time.Second},
		{Name: "deploy", Mode: "mandatory", Enabled: true, MaxRetries: 2, Timeout: 10 * time.Minute},
		{Name: "activation", Mode: "optional", Enabled: false, MaxRetries: 2, Timeout: 10 * time.Minute},
		{Name: "notify", Mode: "optional", Enabled: true, MaxRetries: 2, Timeout: 10 * time.Minute, Type: "http",
			Params: map[string]config.ParamConfig{"channel": {Pattern: "[a-z]+"}},
			Run:    &config.RunConfig{URL: "https://hooks.example.com/deploys"}},
	}
	if !reflect.DeepEqual(c.Pipeline.Steps, steps) {
		t.Errorf("steps = %+v", c.Pipeline.Steps)
	}
	if c.Artifacts.FileRoot != filepath.Join(dir, "artifacts") || c.Artifacts.MaxSize != 512<<20 {
		t.Errorf("artifacts = %+v", c.Artifacts)
	}
	if got, want := c.Artifacts.ArchiveLimits(), (deploy.ArchiveLimits{MaxEntries: 20000, MaxBytes: 2 << 30}); got != want {
		t.Errorf("archive limits = %+v, want %+v", got, want)
	}
	if c.EnvConfig.Dir != "/etc/manent/envconfig" || c.Secrets.FileRoot != "/run/secrets" {
		t.Errorf("absolute paths changed: %s %s", c.EnvConfig.Dir, c.Secrets.FileRoot)
	}
	if c.Queues.Concurrency("shop/web/prod") != 2 || c.Queues.Concurrency("shop/web/dev") != 1 {
		t.Errorf("queues = %+v", c.Queues)
	}
	if got := c.Auth.Tokens[0]; got.Name != "ci" || !reflect.DeepEqual(got.Groups, []string{"ci", "deployers"}) {
		t.Errorf("token = %+v", got)
	}
	if !c.Pipeline.DescriptorPolicy.AllowsStepParam("notify", "anything") || c.Pipeline.DescriptorPolicy.AllowsParam("other") ||
		!c.Pipeline.DescriptorPolicy.Rollback {
		t.Errorf("policy = %+v", c.Pipeline.DescriptorPolicy)
	}
}

// problems returns the "path: message" lines of a *config.Error.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *config.Error", err, err)
	}
	out := make([]string, len(ce.Fields))
	for i, f := range ce.Fields {
		out[i] = f.String()
	}
	return out
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "unknown keys everywhere, all reported with paths",
			doc: `
server: {listen: 127.0.0.1:8080, port: 80}
databse: {url: x}
auth: {tokens: [{name: a, sha256: ` + strings.Repeat("ab", 32) + `, group: [x]}]}
pipeline: {steps: [{name: deploy, mode: mandatory, retries: 3}], descriptor_policy: {target: true}}
queues: {poll: 1s}
`,
			want: []string{
				"server.port: unknown field",
				"databse: unknown field (did you mean database?)",
				"auth.tokens[0].group: unknown field (did you mean groups?)",
				"pipeline.steps[0].retries: unknown field",
				"pipeline.descriptor_policy.target: unknown field (did you mean targets?)",
				"queues.poll: unknown field",
				"pipeline.steps: must include artifacts",
			},
		},
		{
			name: "wrong types",
			doc:  "server: {allow_introspection: maybe}\nqueues: {worker_concurrency: many, poll_interval: 5}\nartifacts: {max_size: big, sources: file:}\n",
			want: []string{
				"server.allow_introspection: must be true or false",
				"queues.worker_concurrency: must be an integer",
				"queues.poll_interval: must be a duration such as 500ms, 30s, 10m or 1h",
				"artifacts.max_size: must be a size such as 1073741824, 512MiB or 1GiB",
				"artifacts.sources: must be a list",
			},
		},
		{
			name: "too few connections",
			doc:  "database: {max_connections: 3}\n",
			want: []string{"database.max_connections: must be at least 4"},
		},
		{
			name: "server values",
			doc:  "server: {listen: nowhere, public_url: ftp://x, executor_id: '', role: boss, default_tenant: Demo}\n",
			want: []string{
				"server.listen: must be host:port, such as 127.0.0.1:8080",
				"server.public_url: must be an absolute http:// or https:// URL",
				"server.executor_id: must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_' and -",
				"server.role: must be all, api or worker",
				"server.default_tenant: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit",
			},
		},
		{
			name: "tokens",
			doc: "auth:\n  tokens:\n    - {name: ci, sha256: demo-ci}\n    - {name: ci, sha256: " + strings.Repeat("AB", 32) + "}\n" +
				"    - {sha256: " + strings.Repeat("ab", 32) + ", groups: ['a b']}\n    - {name: x, sha256: " + strings.Repeat("ab", 32) + "}\n",
			want: []string{
				"auth.tokens[0].sha256: must be 64 lowercase hexadecimal digits: the SHA-256 of the token, not the token",
				"auth.tokens[1].name: is used by another token",
				"auth.tokens[1].sha256: must be 64 lowercase hexadecimal digits: the SHA-256 of the token, not the token",
				"auth.tokens[2].name: is required",
				"auth.tokens[2].groups[0]: must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -",
				"auth.tokens[3].sha256: is the hash of another token",
			},
		},
		{
			name: "artifact prefixes",
			doc:  "artifacts: {sources: ['', 'ftp://x/', 'https://repo.example.com', 'http://127.0.0.1:80', 'file:', 'http://127.0.0.1:'], max_size: 0, max_entries: 0, max_unpacked_size: 0}\n",
			want: []string{
				"artifacts.sources[0]: must not be empty",
				"artifacts.sources[1]: must start with file:, http:// or https://",
				"artifacts.sources[2]: must end the host with / or : (https://repo.example.com/ or http://127.0.0.1:), or it would match other hosts",
				"artifacts.sources[3]: must end the host with / or : (https://repo.example.com/ or http://127.0.0.1:), or it would match other hosts",
				"artifacts.max_size: must be more than 0",
				"artifacts.max_entries: must be more than 0",
				"artifacts.max_unpacked_size: must be more than 0",
			},
		},
		{
			name: "pipeline steps",
			doc: `
pipeline:
  steps:
    - {name: config, mode: mandatory}
    - {name: db-migrate, mode: optional}
    - {name: deploy, mode: mandatory}
    - {name: artifacts, mode: sometimes}
    - {name: deploy, mode: optional}
    - {name: qa, mode: mandatory, enabled: false, max_retries: -1, timeout: 7h}
    - {name: activation}
    - {name: post-test, mode: optional, timeout: 500ms}
  retry_interval: 0s
`,
			want: []string{
				"pipeline.steps[0].name: config always runs (config first, cleanup last) and cannot be listed",
				"pipeline.steps[1].name: unknown step: must be one of secrets, artifacts, qa, deploy, post-test, activation, or a custom step with a type (http or command)",
				"pipeline.steps[3].mode: must be mandatory or optional",
				"pipeline.steps[4].name: deploy is listed twice",
				"pipeline.steps[5].enabled: a mandatory step always runs: make it optional, or remove it",
				"pipeline.steps[5].max_retries: must be between 0 and 100",
				"pipeline.steps[5].timeout: must be between 1s and 6h",
				"pipeline.steps[6].mode: is required: mandatory or optional",
				"pipeline.steps[7].timeout: must be between 1s and 6h",
				"pipeline.steps: artifacts must come before deploy",
				"pipeline.steps: qa must come before deploy",
				"pipeline.retry_interval: must be more than 0",
			},
		},
		{
			name: "step names reserved for the records of a rollout's waves",
			doc: `
pipeline:
  steps:
    - {name: artifacts, mode: mandatory}
    - {name: bake, mode: optional}
    - {name: deploy, mode: mandatory}
    - {name: gates, mode: optional}
    - {name: pause, mode: optional, type: http, run: {url: "https://hooks.example/p"}}
    - {name: approval, mode: optional, type: http, run: {url: "https://hooks.example/a"}}
    - {name: defer, mode: optional, type: http, run: {url: "https://hooks.example/d"}}
`,
			want: []string{
				"pipeline.steps[1].name: bake is reserved: it names the records of a rollout's waves (bake[2] is wave 2's); give the step another name",
				"pipeline.steps[3].name: gates is reserved: it names the records of a rollout's waves (gates[2] is wave 2's); give the step another name",
				"pipeline.steps[4].name: pause is reserved: it names the records of a rollout's waves (pause[2] is wave 2's); give the step another name",
				"pipeline.steps[5].name: approval is reserved: it names the records of a rollout's waves (approval[2] is wave 2's); give the step another name",
				"pipeline.steps[6].name: defer is reserved: it names the records of a rollout's waves (defer[2] is wave 2's); give the step another name",
			},
		},
		{
			name: "descriptor policy",
			doc:  "pipeline: {descriptor_policy: {params: [LogLevel, '*'], step_params: {db-migrate: [x], deploy: ['a-b']}, rollback: yes}}\n",
			want: []string{
				"pipeline.descriptor_policy.rollback: must be true or false",
				"pipeline.descriptor_policy.params[0]: must be * or a parameter name (a-z, 0-9 and _, starting with a letter)",
				"pipeline.descriptor_policy.step_params.db-migrate: no such step in pipeline.steps",
				"pipeline.descriptor_policy.step_params.deploy: deploy is a standard step: only custom steps declare parameters",
				"pipeline.descriptor_policy.step_params.deploy[0]: must be * or a parameter name (a-z, 0-9 and _, starting with a letter)",
			},
		},
		{
			name: "queues, engine, secrets",
			doc: "queues: {poll_interval: 0s, worker_concurrency: 0, environments: {shop/web: 2, a/b/c: 0}}\n" +
				"engine: {application_version: '', max_recovery_attempts: 0, rollout_look_interval: 500ms}\nsecrets: {env_prefix: ''}\n",
			want: []string{
				"queues.poll_interval: must be between 1ms and 1m",
				"queues.worker_concurrency: must be at least 1",
				"queues.environments.a/b/c: must be at least 1",
				"queues.environments.shop/web: must be tenant/application/environment",
				"engine.application_version: must not be empty: DBOS recovers only the workflows of its own application version",
				"engine.max_recovery_attempts: must be at least 1",
				"engine.rollout_look_interval: must be between 1s and 24h",
				"secrets.env_prefix: must be upper-case letters, digits and _, starting with a letter (an empty prefix would expose every variable)",
			},
		},
		{
			name: "metrics token not a hash",
			doc:  "server: {metrics: {token_sha256: s3cret-token}}\n",
			want: []string{"server.metrics.token_sha256: must be 64 lowercase hexadecimal digits: the SHA-256 of the token, not the token"},
		},
		{
			name: "metrics token shared with the API",
			doc: "auth: {tokens: [{name: ci, sha256: " + strings.Repeat("ab", 32) + "}]}\n" +
				"server: {metrics: {token_sha256: " + strings.Repeat("ab", 32) + "}}\n",
			want: []string{"server.metrics.token_sha256: is the hash of a token of auth.tokens: give the scraper a token of its own, which reads the metrics and nothing else"},
		},
		{
			name: "not a mapping",
			doc:  "- server\n",
			want: []string{"manent.yml must be a mapping of sections (server, database, auth, ...)"},
		},
		{
			name: "syntax",
			doc:  "server:\n  listen: a\n  role: b: c\n",
			want: []string{"syntax error at line 3: mapping values are not allowed in this context"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.doc), t.TempDir())
			if err == nil {
				t.Fatal("accepted")
			}
			got := problems(t, err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manent.yml")
	if err := os.WriteFile(path, []byte("database: {url: postgres://from-file/db}\nenvconfig: {dir: env}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("file", func(t *testing.T) {
		t.Setenv("DATABASE_URL", "")
		c, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Path != path || c.Dir != dir || c.Database.URL != "postgres://from-file/db" || c.EnvConfig.Dir != filepath.Join(dir, "env") {
			t.Errorf("got path %s dir %s url %s envconfig %s", c.Path, c.Dir, c.Database.URL, c.EnvConfig.Dir)
		}
	})
	t.Run("DATABASE_URL wins", func(t *testing.T) {
		t.Setenv("DATABASE_URL", "postgres://from-env/db")
		c, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Database.URL != "postgres://from-env/db" {
			t.Errorf("url = %s", c.Database.URL)
		}
	})
	t.Run("errors name the file", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.yml")
		if err := os.WriteFile(bad, []byte("sever: {}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := config.Load(bad)
		if err == nil || !strings.Contains(err.Error(), bad+": 1 problem(s)\n  sever: unknown field (did you mean server?)") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := config.Load(filepath.Join(dir, "none.yml")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestEmptyPipelineIsRefused(t *testing.T) {
	_, err := config.Parse([]byte("pipeline: {steps: []}\n"), t.TempDir())
	got := problems(t, err)
	want := []string{"pipeline.steps: must include artifacts", "pipeline.steps: must include deploy"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestDatabasePools: database.max_connections is split between DBOS's pool
// and the read model's, DBOS's taking the odd one.
func TestDatabasePools(t *testing.T) {
	for _, tc := range []struct{ max, dbos, manent int }{{40, 20, 20}, {10, 5, 5}, {5, 3, 2}, {4, 2, 2}} {
		d, m := config.Database{MaxConnections: tc.max}.Pools()
		if d != tc.dbos || m != tc.manent {
			t.Errorf("Pools() of %d = %d, %d, want %d, %d", tc.max, d, m, tc.dbos, tc.manent)
		}
	}
}
