package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// specPipeline is the pipeline of the specification's example: a command
// step off by default, an HTTP step that polls.
const specPipeline = `
pipeline:
  custom:
    spec_key_refs: ["env:MANENT_SPEC_KEY"]
    revoked_specs: ["` + "3b0f4c000000000000000000000000000000000000000000000000000000e91a" + `"]
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory, max_retries: 3}
    - name: db-migrate
      mode: optional
      enabled: false
      type: command
      max_retries: 0
      timeout: 15m
      secrets: [db-admin]
      ssh: {user: migrator, key_secret: ssh-migrate}
      params:
        database: {pattern: "[a-z][a-z0-9_]{0,62}", required: true}
      outputs:
        applied: {pattern: "[0-9]{1,6}"}
      run:
        run_once: true
        command: ["/opt/tools/migrate", "up", "--to", "{{ .Version }}", "--db", "{{ .Params.database }}"]
      dry_run:
        run_once: true
        command: ["/opt/tools/migrate", "plan", "--to", "{{ .Version }}", "--db", "{{ .Params.database }}"]
        secrets: [db-readonly]
    - {name: deploy, mode: mandatory, max_retries: 2}
    - {name: activation, mode: optional, enabled: true}
    - name: cdn-purge
      mode: optional
      enabled: true
      type: http
      secrets: [cdn-token]
      params:
        zone: {pattern: "[a-f0-9]{32}", required: true}
      outputs:
        purge_id: {pattern: "[a-z0-9-]{1,64}", path: "$.result.id"}
      run:
        method: POST
        url: "https://api.cdn.example.com/zones/{{ .Params.zone }}/purge"
        auth: {type: bearer, secret: cdn-token}
        json: {tags: ["{{ .Application }}"], applied: '{{ index .Outputs "db-migrate" "applied" }}', max: 100, ratio: 0.5}
        poll:
          url: "https://api.cdn.example.com/purges/{{ .Response.result.id }}"
          until: {path: "$.status", in: [done]}
          fail: {path: "$.status", in: [failed]}
  descriptor_policy:
    step_params:
      db-migrate: [database]
`

func TestParseCustomSteps(t *testing.T) {
	c, err := config.Parse([]byte(specPipeline), t.TempDir())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var migrate, purge config.StepConfig
	for _, s := range c.Pipeline.Steps {
		switch s.Name {
		case "db-migrate":
			migrate = s
		case "cdn-purge":
			purge = s
		}
	}
	ten := time.Minute * 10
	want := &deploy.CustomSpec{
		Name: "cdn-purge", Type: deploy.StepTypeHTTP, Timeout: ten, MaxRetries: 2, Secrets: []string{"cdn-token"},
		Params:  map[string]deploy.ParamSpec{"zone": {Pattern: "[a-f0-9]{32}", Required: true}},
		Outputs: map[string]deploy.OutputSpec{"purge_id": {Pattern: "[a-z0-9-]{1,64}", Path: "$.result.id"}},
		Run: deploy.CustomRun{
			Method: "POST", URL: "https://api.cdn.example.com/zones/{{ .Params.zone }}/purge",
			Auth: &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"},
			JSON: map[string]any{"tags": []any{"{{ .Application }}"}, "applied": `{{ index .Outputs "db-migrate" "applied" }}`, "max": 100.0, "ratio": 0.5},
			// The defaults are in the specification, so its hash covers them.
			Poll: &deploy.HTTPPoll{URL: "https://api.cdn.example.com/purges/{{ .Response.result.id }}",
				Interval: 10 * time.Second, Timeout: ten,
				Until: &deploy.PollMatch{Path: "$.status", In: []string{"done"}},
				Fail:  &deploy.PollMatch{Path: "$.status", In: []string{"failed"}}},
		},
	}
	if got := purge.Spec(); !reflect.DeepEqual(got, want) {
		t.Errorf("cdn-purge spec:\n got %+v\nwant %+v", got, want)
	}
	ms := migrate.Spec()
	if ms.Type != deploy.StepTypeCommand || ms.MaxRetries != 0 || ms.Timeout != 15*time.Minute || ms.Run.Method != "" ||
		!ms.Run.RunOnce || ms.DryRun == nil || !reflect.DeepEqual(ms.DryRun.Secrets, []string{"db-readonly"}) ||
		*ms.SSH != (deploy.CustomSSH{User: "migrator", KeySecret: "ssh-migrate"}) {
		t.Errorf("db-migrate spec: %+v", ms)
	}
	cu := c.Pipeline.Custom
	if cu.SecretsDir != "/dev/shm/manent" || !strings.HasSuffix(cu.KnownHosts, "/.ssh/known_hosts") || cu.AllowHTTP ||
		len(cu.SpecKeyRefs) != 1 || len(cu.RevokedSpecs) != 1 {
		t.Errorf("pipeline.custom = %+v", cu)
	}
	if (config.StepConfig{Name: "deploy"}).Spec() != nil {
		t.Error("a standard step has a specification")
	}
}

// TestCustomStepErrors lists every refusal of a custom step's
// configuration: each one with its path, all of them at once.
func TestCustomStepErrors(t *testing.T) {
	base := "pipeline:\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"
	tests := []struct {
		name  string
		steps string // more entries of pipeline.steps
		extra string // more keys of pipeline
		want  []string
	}{
		{
			name: "names",
			steps: `    - {name: qa, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: Purge, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: bake, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: cleanup, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: purge, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: purge, mode: optional, type: http, run: {url: "https://a.example.com/"}}
    - {name: other, mode: optional, type: shell, run: {url: "https://a.example.com/"}}
    - {name: notify, mode: optional}
`,
			want: []string{
				"pipeline.steps[2].name: qa is a standard step: a custom step needs a name of its own",
				"pipeline.steps[3].name: must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter",
				"pipeline.steps[4].name: bake is reserved: it names the records of a rollout's waves (bake[2] is wave 2's); give the step another name",
				"pipeline.steps[5].name: cleanup always runs (config first, cleanup last) and cannot be listed",
				"pipeline.steps[7].name: purge is listed twice",
				"pipeline.steps[8].type: must be http or command",
				"pipeline.steps[9].name: unknown step: must be one of secrets, artifacts, qa, deploy, post-test, activation, or a custom step with a type (http or command)",
			},
		},
		{
			name:  "custom keys on a standard step",
			steps: "    - {name: activation, mode: optional, secrets: [a], params: {}, outputs: {}, ssh: {}, run: {}, dry_run: {}}\n",
			want: []string{
				"pipeline.steps[2].secrets: only custom steps have secrets: a standard step has no type (add type: http or type: command for a step of your own)",
				"pipeline.steps[2].params: only custom steps have params: a standard step has no type (add type: http or type: command for a step of your own)",
				"pipeline.steps[2].outputs: only custom steps have outputs: a standard step has no type (add type: http or type: command for a step of your own)",
				"pipeline.steps[2].ssh: only custom steps have ssh: a standard step has no type (add type: http or type: command for a step of your own)",
				"pipeline.steps[2].run: only custom steps have run: a standard step has no type (add type: http or type: command for a step of your own)",
				"pipeline.steps[2].dry_run: only custom steps have dry_run: a standard step has no type (add type: http or type: command for a step of your own)",
			},
		},
		{
			name: "timeout, secrets, params, outputs",
			steps: `    - name: migrate
      mode: optional
      type: command
      timeout: 7h
      secrets: [db-admin, DB, db-admin]
      ssh: {key_secret: k}
      params:
        Database: {pattern: "x"}
        nopattern: {required: true}
        bad: {pattern: "(["}
        level: {pattern: "[0-9]", default: "high"}
      outputs:
        Applied: {pattern: "x"}
        count: {}
        at: {pattern: "[0-9]+", path: "$.at"}
      run: {command: ["/opt/migrate"]}
`,
			want: []string{
				"pipeline.steps[2].timeout: must be between 1s and 6h",
				"pipeline.steps[2].secrets[1]: must be the name of a secret of the environment configuration (1 to 63 characters of a-z, 0-9, _ and -, starting with a letter)",
				"pipeline.steps[2].secrets[2]: db-admin is listed twice",
				"pipeline.steps[2].params.Database: name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"pipeline.steps[2].params.bad.pattern: must be a regular expression (RE2 syntax): missing closing ]: `[`",
				"pipeline.steps[2].params.level.default: does not match the pattern",
				"pipeline.steps[2].params.nopattern.pattern: is required: a regular expression the whole value must match",
				"pipeline.steps[2].outputs.Applied: key must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter",
				"pipeline.steps[2].outputs.at.path: only HTTP steps read outputs from a JSON response: a command writes key=value lines to $MANENT_OUTPUT",
				"pipeline.steps[2].outputs.count.pattern: is required: a regular expression the whole value must match",
				"pipeline.steps[2].run.run_once: must be true: a step that declares outputs runs on one target only, or each target would give its own",
			},
		},
		{
			name: "command steps",
			steps: `    - {name: a, mode: optional, type: command, run: {command: ["/bin/true"]}}
    - {name: b, mode: optional, type: command, ssh: {key_secret: k, password_secret: p}, run: {command: ["/bin/true"]}}
    - {name: c, mode: optional, type: command, ssh: {user: "-oProxy", key_secret: K}, run: {command: ["/bin/true"]}}
    - name: d
      mode: optional
      type: command
      ssh: {password_secret: p}
      run:
        command: []
        sha256: ABC
        method: GET
        url: "https://a.example.com/"
        headers: {X-A: b}
        auth: {type: bearer, secret: s}
        json: {a: 1}
        expect: [200]
        poll: {url: "https://a.example.com/"}
        secrets: [s]
    - {name: e, mode: optional, type: command, ssh: {key_secret: k}}
`,
			want: []string{
				"pipeline.steps[2].ssh: is required: a command step logs in with ssh.key_secret or ssh.password_secret",
				"pipeline.steps[3].ssh: must give exactly one of key_secret and password_secret",
				"pipeline.steps[4].ssh.key_secret: must be the name of a secret of the environment configuration (1 to 63 characters of a-z, 0-9, _ and -, starting with a letter)",
				"pipeline.steps[4].ssh.user: must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and -, not starting with - or .",
				"pipeline.steps[5].run.secrets: the run receives the step's secrets (secrets): only dry_run has secrets of its own",
				"pipeline.steps[5].run.method: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.url: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.headers: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.auth: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.json: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.expect: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.poll: is for HTTP steps: a command step runs run.command on the targets",
				"pipeline.steps[5].run.command: is required: the program (an absolute path) and its arguments, as a list",
				"pipeline.steps[5].run.sha256: must be 64 hexadecimal digits: the SHA-256 of command[0] on the targets (sha256sum prints it)",
				"pipeline.steps[6].run: is required: what the step does",
			},
		},
		{
			name: "HTTP steps",
			steps: `    - name: a
      mode: optional
      type: http
      ssh: {key_secret: k}
      secrets: [token]
      outputs:
        id: {pattern: "x"}
        ref: {pattern: "x", path: "result.id"}
      run:
        run_once: true
        command: ["/bin/true"]
        sha256: "` + strings.Repeat("a", 64) + `"
        method: get
        headers:
          Content-Type: text/plain
          idempotency-key: x
          X-Trace: a
          x-trace: b
          "bad header": c
        auth: {type: basic, secret: other}
        expect: [100, 200, 600]
    - {name: b, mode: optional, type: http, run: {method: GET, json: {a: b}}}
    - {name: c, mode: optional, type: http, secrets: [t], run: {url: "https://a.example.com/", auth: {type: header, secret: t, username: u}}}
    - {name: d, mode: optional, type: http, secrets: [t], run: {url: "https://a.example.com/", headers: {X-Key: a}, auth: {type: header, secret: t, header: x-key}}}
    - {name: e, mode: optional, type: http, secrets: [t], run: {url: "https://a.example.com/", auth: {type: header, secret: t, header: Host}}}
    - {name: f, mode: optional, type: http, secrets: [t], run: {url: "https://a.example.com/", auth: {type: digest, header: X}}}
    - {name: g, mode: optional, type: http, secrets: [t], run: {url: "https://a.example.com/", auth: {type: basic, secret: t, username: "a:b"}}}
`,
			want: []string{
				"pipeline.steps[2].outputs.id.path: is required: where the JSON response holds the output ($.result.id)",
				"pipeline.steps[2].outputs.ref.path: must be a JSON path such as $.a.b[0] or $[\"a.b\"]: must start with $ (the response): $.a.b[0] or $[\"a.b\"]",
				"pipeline.steps[2].ssh: only command steps log in to the targets: an HTTP step sends its request from the worker",
				"pipeline.steps[2].run.run_once: is for command steps: an HTTP step sends run.url from the worker",
				"pipeline.steps[2].run.command: is for command steps: an HTTP step sends run.url from the worker",
				"pipeline.steps[2].run.sha256: is for command steps: an HTTP step sends run.url from the worker",
				"pipeline.steps[2].run.method: must be GET, POST, PUT, PATCH or DELETE",
				"pipeline.steps[2].run.url: is required: the URL of the request, scheme and host written in full",
				"pipeline.steps[2].run.headers.Content-Type: Content-Type is set by manent (the body, its idempotency key, the auth, the connection): it cannot be given",
				`pipeline.steps[2].run.headers["bad header"]: must be a header name (letters, digits and !#$%&'*+.^_` + "`|~-)",
				"pipeline.steps[2].run.headers.idempotency-key: idempotency-key is set by manent (the body, its idempotency key, the auth, the connection): it cannot be given",
				"pipeline.steps[2].run.headers.x-trace: is the same header as X-Trace (header names ignore case)",
				"pipeline.steps[2].run.auth.secret: must be one of the step's secrets (secrets)",
				"pipeline.steps[2].run.auth.username: is required with type basic",
				"pipeline.steps[2].run.expect[0]: must be an HTTP status of a final answer, 200 to 599",
				"pipeline.steps[2].run.expect[2]: must be an HTTP status of a final answer, 200 to 599",
				"pipeline.steps[3].run.url: is required: the URL of the request, scheme and host written in full",
				"pipeline.steps[3].run.json: a GET request has no body: use POST, PUT, PATCH or DELETE",
				"pipeline.steps[4].run.auth.username: is for type basic only",
				"pipeline.steps[4].run.auth.header: is required with type header: the name of the header that carries the secret",
				"pipeline.steps[5].run.auth.header: is also in headers: the header carries the secret or a value, not both",
				"pipeline.steps[6].run.auth.header: Host is set by manent: it cannot carry the secret",
				"pipeline.steps[7].run.auth.type: must be bearer, basic or header",
				"pipeline.steps[7].run.auth.secret: is required: the name of one of the step's secrets (secrets)",
				"pipeline.steps[7].run.auth.header: is for type header only",
				"pipeline.steps[8].run.auth.username: must not hold a colon or a control character",
			},
		},
		{
			name: "polls, dry runs, JSON bodies",
			steps: `    - name: a
      mode: optional
      type: http
      timeout: 1m
      secrets: [t]
      run:
        url: "https://a.example.com/"
        json: {n: 12345678901234567890}
        poll: {interval: 500ms, timeout: 2m, until: {path: "$.s"}, fail: {in: [x]}}
      dry_run:
        url: "https://a.example.com/"
        auth: {type: bearer, secret: t}
        secrets: [R]
    - {name: b, mode: optional, type: http, timeout: 1m, run: {url: "https://a.example.com/", poll: {url: "https://a.example.com/", interval: 2m, until: {path: "$..s", in: [d]}}}}
`,
			want: []string{
				"pipeline.steps[2].run.json.n: must be a finite number that a JSON number holds exactly (a 64-bit float): write a larger or more precise one as a string",
				"pipeline.steps[2].run.poll.url: is required: the URL that tells how the operation goes",
				"pipeline.steps[2].run.poll.timeout: must be between 1s and the step's timeout (1m0s)",
				"pipeline.steps[2].run.poll.until.in: is required: the values that match, at least one",
				"pipeline.steps[2].run.poll.fail.path: is required: where the answer holds the operation's state ($.status)",
				"pipeline.steps[2].dry_run.secrets[0]: must be the name of a secret of the environment configuration (1 to 63 characters of a-z, 0-9, _ and -, starting with a letter)",
				"pipeline.steps[2].dry_run.auth.secret: must be one of the dry run's secrets (dry_run.secrets): a dry run never receives those of the run",
				"pipeline.steps[3].run.poll.interval: must be between 1s and the poll's timeout (1m0s)",
				"pipeline.steps[3].run.poll.until.path: must be a JSON path such as $.a.b[0] or $[\"a.b\"]: must name one value: member names and indexes only ($.a.b[0], $[\"a.b\"]), no wildcard, slice, filter or descendant (..)",
			},
		},
		{
			name: "a dry run given the run's secrets",
			steps: `    - name: migrate
      mode: optional
      type: command
      secrets: [db-admin, db-audit]
      ssh: {key_secret: k}
      run: {command: ["/opt/migrate", "up"]}
      dry_run: {command: ["/opt/migrate", "plan"], secrets: [db-readonly, db-admin]}
    - name: purge
      mode: optional
      type: http
      secrets: [cdn-token]
      run: {url: "https://a.example.com/"}
      dry_run: {url: "https://a.example.com/", auth: {type: bearer, secret: cdn-token}, secrets: [cdn-token]}
`,
			want: []string{
				"pipeline.steps[2].dry_run.secrets[1]: db-admin is one of the run's secrets (secrets): a dry run never receives those, give it read-only ones of its own",
				"pipeline.steps[3].dry_run.secrets[0]: cdn-token is one of the run's secrets (secrets): a dry run never receives those, give it read-only ones of its own",
			},
		},
		{
			name: "the default poll interval against a short timeout",
			steps: `    - name: a
      mode: optional
      type: http
      timeout: 5s
      run: {url: "https://a.example.com/", poll: {url: "https://a.example.com/", until: {path: "$.s", in: [d]}}}
    - name: b
      mode: optional
      type: http
      timeout: 1m
      run: {url: "https://a.example.com/", poll: {url: "https://a.example.com/", timeout: 3s, until: {path: "$.s", in: [d]}}}
    - name: c
      mode: optional
      type: http
      timeout: 5s
      run: {url: "https://a.example.com/", poll: {url: "https://a.example.com/", interval: 1s, until: {path: "$.s", in: [d]}}}
`,
			want: []string{
				"pipeline.steps[2].run.poll.interval: is needed: the default, 10s, is longer than the poll's timeout (5s); set one between 1s and 5s",
				"pipeline.steps[3].run.poll.interval: is needed: the default, 10s, is longer than the poll's timeout (3s); set one between 1s and 3s",
			},
		},
		{
			name: "placeholders, against the step's parameters and the outputs of the steps above",
			steps: `    - name: first
      mode: optional
      type: http
      outputs: {id: {pattern: "[a-z]+", path: "$.id"}}
      run:
        url: "https://a.example.com/{{ .Outputs.later.key }}"
        poll: {url: "https://a.example.com/{{ .Response.id }}", until: {path: "$.s", in: [done]}}
    - name: cmd
      mode: optional
      type: command
      ssh: {key_secret: k}
      params: {db: {pattern: "[a-z]+"}}
      run: {command: ["migrate", "{{ .Params.db }}", "{{ .Params.other }}", "{{ .Foo }}", "{{ .Response.id }}"]}
      dry_run: {command: ["/opt/{{ .Params.db }}"]}
    - name: later
      mode: optional
      type: http
      outputs: {key: {pattern: "[a-z]+", path: "$.key"}}
      params: {db: {pattern: "[a-z]+"}}
      run:
        url: "http://{{ .Params.db }}.example.com/x?id={{ index .Outputs \"first\" \"id\" }}"
        headers: {X-Db: "{{ .Params.db }}", X-Bad: "{{ printf \"%s\" .Version }}"}
        json: {a: ["{{ .Params.db }}", "{{ .Outputs.first.nope }}"], "{{ .Version }}": 1}
        poll: {url: "https://a.example.com/{{ .Response.id }}?v={{ .Params.x }}", until: {path: "$.s", in: [done]}}
`,
			want: []string{
				`pipeline.steps[2].run.url: {{.Outputs.later.key}}: no step "later" with outputs runs before this one`,
				"pipeline.steps[3].run.command[0]: the program must be an absolute path (/opt/tools/migrate): the command is never looked up in $PATH",
				"pipeline.steps[3].dry_run.command[0]: the program must be written without placeholders",
				"pipeline.steps[4].run.url: {{.Params.db}}: a placeholder cannot stand in the scheme, the host or the port: write them in full",
				`pipeline.steps[4].run.headers.X-Bad: {{printf "%s" .Version}}: function printf is not allowed: only placeholders such as {{ .Version }} and {{ index .Outputs "step" "key" }}`,
				`pipeline.steps[4].run.json.a[1]: {{.Outputs.first.nope}}: step "first" declares no output "nope"`,
				`pipeline.steps[4].run.poll.url: {{.Params.x}}: the step declares no parameter "x"`,
			},
		},
		{
			name:  "pipeline.custom",
			extra: "  custom:\n    spec_key_refs: [\"vault:secret/k\", \"env:MANENT_SPEC_K\", \"env:MANENT_SPEC_K\", \"env:MANENT_SECRET_K\", \"file:keys/k\", \"file:/etc/manent/k\"]\n    revoked_specs: [abc, \"" + strings.Repeat("A", 64) + "\", \"" + strings.Repeat("a", 64) + "\", \"" + strings.Repeat("a", 64) + "\"]\n    known_hosts: \"\"\n    secrets_dir: /dev/shm/../tmp\n    allow_http: maybe\n",
			want: []string{
				"pipeline.custom.allow_http: must be true or false",
				"pipeline.custom.spec_key_refs[0]: must be env:NAME or file:path",
				"pipeline.custom.spec_key_refs[2]: is listed twice",
				"pipeline.custom.spec_key_refs[3]: env: a key must not start with MANENT_SECRET_ (secrets.env_prefix): environment configurations may read those variables",
				"pipeline.custom.spec_key_refs[4]: file: a key must be outside secrets.file_root, where environment configurations read their secrets (give secrets.file_root a directory of its own; a relative key path is relative to manent.yml)",
				"pipeline.custom.revoked_specs[0]: must be a spec_hash: 64 lowercase hexadecimal digits",
				"pipeline.custom.revoked_specs[1]: must be a spec_hash: 64 lowercase hexadecimal digits",
				"pipeline.custom.revoked_specs[3]: is listed twice",
				"pipeline.custom.known_hosts: must name a known_hosts file (default ~/.ssh/known_hosts)",
				"pipeline.custom.secrets_dir: must be an absolute directory on the targets, of A-Z, a-z, 0-9, '.', '_', '/' and -, without . or .. segments (default /dev/shm/manent)",
			},
		},
		{
			name: "descriptor policy of custom steps",
			steps: `    - {name: notify, mode: optional, type: http, params: {channel: {pattern: "[a-z]+"}}, run: {url: "https://a.example.com/"}}
`,
			extra: "  descriptor_policy:\n    step_params: {notify: [channel, level, \"*\"], deploy: [mode]}\n",
			want: []string{
				"pipeline.descriptor_policy.step_params.deploy: deploy is a standard step: only custom steps declare parameters",
				"pipeline.descriptor_policy.step_params.notify[1]: undeclared parameter: step notify declares channel",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(base+tt.steps+tt.extra), t.TempDir())
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

func TestCustomStepNUL(t *testing.T) {
	_, err := config.Parse([]byte("pipeline:\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"+
		"    - {name: notify, mode: optional, type: http, run: {url: \"https://a.example.com/\", json: {a: \"x\\0y\"}}}\n"), t.TempDir())
	if got := problems(t, err); !reflect.DeepEqual(got, []string{"pipeline.steps[2]: holds a NUL character (U+0000) in one of its strings: a plan cannot store it"}) {
		t.Errorf("problems = %v", got)
	}
}

func TestCustomStepAllowHTTP(t *testing.T) {
	doc := func(custom string) string {
		return "pipeline:\n  custom: {" + custom + "}\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n" +
			"    - {name: notify, mode: optional, type: http, run: {url: \"http://hooks.internal/deploys\"}}\n"
	}
	_, err := config.Parse([]byte(doc("allow_http: false")), t.TempDir())
	if got := problems(t, err); !reflect.DeepEqual(got, []string{"pipeline.steps[2].run.url: the URL must use https (http needs pipeline.custom.allow_http)"}) {
		t.Errorf("problems = %v", got)
	}
	if _, err := config.Parse([]byte(doc("allow_http: true")), t.TempDir()); err != nil {
		t.Errorf("with allow_http: %v", err)
	}
}

// TestCustomStepOutputsOfStandardSteps: a placeholder may name any output
// of a standard step listed above the custom step, as the spec's own
// example does ({{ index .Outputs "post-test" "key" }}): what a standard
// step outputs is its plugin's, declared nowhere. A standard step below,
// or not in the pipeline, still has nothing to give.
func TestCustomStepOutputsOfStandardSteps(t *testing.T) {
	base := "pipeline:\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n"
	tests := []struct {
		name  string
		steps string
		want  []string
	}{
		{
			name: "steps above",
			steps: `    - {name: post-test, mode: mandatory}
    - name: notify
      mode: mandatory
      type: http
      run:
        url: "https://hooks.example.com/{{ .Outputs.deploy.release }}"
        json: {url: '{{ index .Outputs "post-test" "key" }}', sha: "{{ .Outputs.artifacts.sha256 }}"}
`,
		},
		{
			name: "a step below, a step not in the pipeline",
			steps: `    - name: notify
      mode: mandatory
      type: http
      run:
        url: "https://hooks.example.com/{{ .Outputs.qa.archive }}"
        json: {url: '{{ index .Outputs "post-test" "key" }}'}
    - {name: post-test, mode: mandatory}
`,
			want: []string{
				`pipeline.steps[2].run.url: {{.Outputs.qa.archive}}: no step "qa" with outputs runs before this one`,
				`pipeline.steps[2].run.json.url: {{index .Outputs "post-test" "key"}}: no step "post-test" with outputs runs before this one`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(base+tt.steps), t.TempDir())
			var got []string
			if err != nil {
				got = problems(t, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestCustomStepSHA256EitherCase: run.sha256 is accepted in either case,
// as tools print it, and the specification holds it in lowercase, so that
// its hash does not depend on the case written.
func TestCustomStepSHA256EitherCase(t *testing.T) {
	const lower = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	for _, written := range []string{lower, strings.ToUpper(lower), "9F86d081884C7D659A2FEAA0C55AD015a3bf4f1b2b0b822cd15d6c15b0f00a08"} {
		doc := "pipeline:\n  steps:\n    - {name: artifacts, mode: mandatory}\n    - {name: deploy, mode: mandatory}\n" +
			"    - {name: warm, mode: mandatory, type: command, ssh: {key_secret: k}, run: {command: [\"/opt/warm\"], sha256: " + written + "}}\n"
		c, err := config.Parse([]byte(doc), t.TempDir())
		if err != nil {
			t.Errorf("run.sha256 %s refused: %v", written, err)
			continue
		}
		if got := c.Pipeline.Steps[2].Spec().Run.SHA256; got != lower {
			t.Errorf("run.sha256 %s: the specification holds %s, want %s", written, got, lower)
		}
	}
}
