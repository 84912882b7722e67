package descriptor_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// consumer is a valid descriptor that waits for and imports from infra-42.
const consumer = minimal + `id: os-config-1
after: [infra-42]
imports:
  infra: {deployment: infra-42}
deploy:
  targetsFrom: [{import: infra, export: vms}]
  paramsFrom:
    db_host: {import: infra, export: db_host}
`

func TestChainsValid(t *testing.T) {
	at := time.Date(2026, 10, 12, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		doc  string
		// check inspects the parsed descriptor; nil fields are compared below.
		want func(d *deploy.Descriptor) any
		exp  any
	}{
		{
			name: "after, afterTimeout, imports and refs",
			doc:  consumer + "afterTimeout: 2h\n",
			want: func(d *deploy.Descriptor) any {
				return []any{d.After, d.AfterTimeout, d.Imports, d.Deploy.TargetsFrom, d.Deploy.ParamsFrom}
			},
			exp: []any{
				[]string{"infra-42"}, 2 * time.Hour,
				map[string]deploy.Import{"infra": {Deployment: "infra-42"}},
				[]deploy.ImportRef{{Import: "infra", Export: "vms"}},
				map[string]deploy.ImportRef{"db_host": {Import: "infra", Export: "db_host"}},
			},
		},
		{
			name: "afterTimeout in days, at the bounds",
			doc:  minimal + "after: [a]\nafterTimeout: 30d\n",
			want: func(d *deploy.Descriptor) any { return d.AfterTimeout },
			exp:  30 * 24 * time.Hour,
		},
		{
			name: "afterTimeout absent stays 0 for the engine's default",
			doc:  minimal + "after: [a]\n",
			want: func(d *deploy.Descriptor) any { return d.AfterTimeout },
			exp:  time.Duration(0),
		},
		{
			name: "afterTimeout 1m",
			doc:  minimal + "after: [a]\nafterTimeout: 1m\n",
			want: func(d *deploy.Descriptor) any { return d.AfterTimeout },
			exp:  time.Minute,
		},
		{
			name: "schedule.at with an offset is kept in UTC",
			doc:  minimal + "schedule: {at: 2026-10-12T14:00:00+02:00}\n",
			want: func(d *deploy.Descriptor) any { return d.Schedule },
			exp:  &deploy.Schedule{At: &at},
		},
		{
			name: "schedule.at with after",
			doc:  minimal + "after: [a]\nschedule: {at: \"2026-10-12T12:00:00Z\"}\n",
			want: func(d *deploy.Descriptor) any { return []any{d.Schedule, d.After} },
			exp:  []any{&deploy.Schedule{At: &at}, []string{"a"}},
		},
		{
			name: "cron defaults to UTC",
			doc:  minimal + "schedule: {cron: \"0 3 * * 1-5\"}\n",
			want: func(d *deploy.Descriptor) any { return d.Schedule },
			exp:  &deploy.Schedule{Cron: "0 3 * * 1-5", TimeZone: "UTC"},
		},
		{
			name: "cron with a time zone and names",
			doc:  minimal + "schedule: {cron: \"*/15 8-18 * jan-jun MON-FRI\", timezone: Europe/Paris}\n",
			want: func(d *deploy.Descriptor) any { return d.Schedule },
			exp:  &deploy.Schedule{Cron: "*/15 8-18 * jan-jun MON-FRI", TimeZone: "Europe/Paris"},
		},
		{
			name: "cron on the 29th of February fires in leap years",
			doc:  minimal + "schedule: {cron: \"0 0 29 2 *\"}\n",
			want: func(d *deploy.Descriptor) any { return d.Schedule.Cron },
			exp:  "0 0 29 2 *",
		},
		{
			name: "exports default to string, targets without a pattern",
			doc: minimal + `exports:
  vms: {from: deploy.vms, format: targets}
  db_host: {from: deploy.db_host, pattern: '[a-z0-9.-]{1,253}', public: true}
  hosts: {from: provision.out.hosts, format: targets, pattern: '10\.20\.\d+\.\d+'}
`,
			want: func(d *deploy.Descriptor) any { return d.Exports },
			exp: map[string]deploy.ExportSpec{
				"vms":     {From: "deploy.vms", Format: "targets"},
				"db_host": {From: "deploy.db_host", Format: "string", Pattern: "[a-z0-9.-]{1,253}", Public: true},
				"hosts":   {From: "provision.out.hosts", Format: "targets", Pattern: `10\.20\.\d+\.\d+`},
			},
		},
		{
			name: "current import with every field",
			doc: minimal + `imports:
  infra: {current: {application: infra-web, environment: prod, artifact: infra-web, tenant: ops}}
deploy: {targetsFrom: [{import: infra, export: vms}]}
`,
			want: func(d *deploy.Descriptor) any { return d.Imports },
			exp: map[string]deploy.Import{"infra": {Current: &deploy.CurrentImport{
				Application: "infra-web", Environment: "prod", Artifact: "infra-web", Tenant: "ops",
			}}},
		},
		{
			name: "own application in another environment is not a self import",
			doc:  minimal + "imports: {prev: {current: {application: hello, environment: prod}}}\ndeploy: {paramsFrom: {x: {import: prev, export: y}}}\n",
			want: func(d *deploy.Descriptor) any { return d.Imports["prev"].Current.Environment },
			exp:  "prod",
		},
		{
			name: "own application in another tenant is not a self import",
			doc:  minimal + "tenant: shop\nimports: {prev: {current: {application: hello, tenant: other}}}\ndeploy: {paramsFrom: {x: {import: prev, export: y}}}\n",
			want: func(d *deploy.Descriptor) any { return d.Imports["prev"].Current.Tenant },
			exp:  "other",
		},
		{
			name: "a dry-run may import the release in service",
			doc:  minimal + "dryRun: true\nimports: {infra: {current: {application: infra}}}\ndeploy: {targetsFrom: [{import: infra, export: vms}]}\n",
			want: func(d *deploy.Descriptor) any { return d.Deploy.TargetsFrom },
			exp:  []deploy.ImportRef{{Import: "infra", Export: "vms"}},
		},
		{
			name: "JSON",
			doc: `{"apiVersion": "manent/v1", "application": "a", "environment": "b",
				"artifact": {"type": "application", "name": "a", "version": "1", "source": "file:a"},
				"after": ["x", "y"], "afterTimeout": "90m", "schedule": {"at": "2026-10-12T12:00:00Z"}}`,
			want: func(d *deploy.Descriptor) any { return []any{d.After, d.AfterTimeout, d.Schedule} },
			exp:  []any{[]string{"x", "y"}, 90 * time.Minute, &deploy.Schedule{At: &at}},
		},
		{
			name: "empty lists and maps are absent",
			doc:  minimal + "after: []\nimports: {}\nexports: {}\ndeploy: {targetsFrom: [], paramsFrom: {}}\n",
			want: func(d *deploy.Descriptor) any {
				return []any{d.After == nil, d.Imports == nil, d.Exports == nil, d.Deploy.TargetsFrom == nil, d.Deploy.ParamsFrom == nil}
			},
			exp: []any{true, true, true, true, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := tt.want(d); !reflect.DeepEqual(got, tt.exp) {
				t.Errorf("got  %#v\nwant %#v", got, tt.exp)
			}
		})
	}
}

func TestChainsInvalid(t *testing.T) {
	refs := "deploy: {targetsFrom: [{import: infra, export: vms}]}\n"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "after: bad IDs, duplicates, itself",
			doc:  minimal + "id: me\nafter: [a, -b, a, me, \"\", [x]]\n",
			want: []string{
				"after[5]: must be a string",
				"after[1]: " + msgID,
				"after[2]: a is already listed (after[0])",
				"after[3]: a deploy cannot depend on itself",
				"after[4]: must be a deploy ID",
			},
		},
		{
			name: "after: at most 20",
			doc:  minimal + "after: [" + ids(21) + "]\n",
			want: []string{"after: at most 20 dependencies are allowed, found 21"},
		},
		{
			name: "after: 20 is fine, with dryRun it is not",
			doc:  minimal + "dryRun: true\nafter: [" + ids(20) + "]\n",
			want: []string{"after: is not allowed with dryRun: a dry-run runs immediately"},
		},
		{
			name: "after with schedule.cron",
			doc:  minimal + "after: [a]\nschedule: {cron: '0 3 * * *'}\n",
			want: []string{"after: is not allowed with schedule.cron: every run would depend on the same deploys"},
		},
		{
			name: "afterTimeout out of range and malformed",
			doc:  minimal + "after: [a]\nafterTimeout: 59s\n",
			want: []string{"afterTimeout: must be between 1m and 30 days (720h), found 59s"},
		},
		{name: "afterTimeout over 30 days", doc: minimal + "after: [a]\nafterTimeout: 721h\n", want: []string{"afterTimeout: must be between 1m and 30 days (720h), found 721h"}},
		{name: "afterTimeout 31d", doc: minimal + "after: [a]\nafterTimeout: 31d\n", want: []string{"afterTimeout: must be between 1m and 30 days (720h), found 31d"}},
		{name: "afterTimeout negative", doc: minimal + "after: [a]\nafterTimeout: -1h\n", want: []string{"afterTimeout: must be between 1m and 30 days (720h), found -1h"}},
		{name: "afterTimeout without unit", doc: minimal + "after: [a]\nafterTimeout: 3600\n", want: []string{"afterTimeout: must be a duration such as 30m, 2h or 7d"}},
		{name: "afterTimeout words", doc: minimal + "after: [a]\nafterTimeout: two days\n", want: []string{"afterTimeout: must be a duration such as 30m, 2h or 7d"}},
		{name: "afterTimeout days overflow", doc: minimal + "after: [a]\nafterTimeout: 99999999999999d\n", want: []string{"afterTimeout: must be a duration such as 30m, 2h or 7d"}},
		{name: "afterTimeout without after", doc: minimal + "afterTimeout: 2h\n", want: []string{"afterTimeout: bounds the wait for the deploys in after, and after is empty"}},
		{name: "schedule with dryRun", doc: minimal + "dryRun: true\nschedule: {at: 2026-10-12T12:00:00Z}\n", want: []string{"schedule: is not allowed with dryRun: a dry-run runs immediately"}},
		{name: "schedule with both", doc: minimal + "schedule: {at: 2026-10-12T12:00:00Z, cron: '0 3 * * *'}\n", want: []string{"schedule: give either at (one time) or cron (recurring), not both"}},
		{name: "schedule empty", doc: minimal + "schedule: {}\n", want: []string{"schedule: needs at (an RFC 3339 time) or cron (a 5-field cron expression)"}},
		{name: "schedule a string", doc: minimal + "schedule: '0 3 * * *'\n", want: []string{"schedule: must be a mapping"}},
		{name: "schedule.at a date", doc: minimal + "schedule: {at: 2026-10-12}\n", want: []string{"schedule.at: must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z"}},
		{name: "schedule.at without offset", doc: minimal + "schedule: {at: '2026-10-12T12:00:00'}\n", want: []string{"schedule.at: must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z"}},
		{name: "schedule.at with a timezone", doc: minimal + "schedule: {at: 2026-10-12T12:00:00Z, timezone: UTC}\n", want: []string{"schedule.timezone: applies to cron only: at carries its own offset"}},
		{name: "cron with 6 fields", doc: minimal + "schedule: {cron: '0 0 3 * * *'}\n", want: []string{"schedule.cron: " + msgCronFields}},
		{name: "cron descriptor", doc: minimal + "schedule: {cron: '@daily'}\n", want: []string{"schedule.cron: " + msgCronFields}},
		{name: "cron TZ prefix", doc: minimal + "schedule: {cron: 'TZ=UTC 3 * * *'}\n", want: []string{"schedule.cron: " + msgCronFields}},
		{name: "cron out of range", doc: minimal + "schedule: {cron: '61 * * * *'}\n", want: []string{"schedule.cron: is not a valid cron expression: end of range (61) above maximum (59): 61"}},
		{name: "cron never fires", doc: minimal + "schedule: {cron: '0 0 30 2 *'}\n", want: []string{"schedule.cron: never fires (no such date)"}},
		{name: "cron too long", doc: minimal + "schedule: {cron: '0 0 * * " + strings.Repeat("1,", 70) + "1'}\n", want: []string{"schedule.cron: must be at most 128 characters"}},
		{name: "timezone unknown", doc: minimal + "schedule: {cron: '0 3 * * *', timezone: Mars/Olympus}\n", want: []string{"schedule.timezone: must be an IANA time zone such as Europe/Paris or UTC"}},
		{name: "timezone Local", doc: minimal + "schedule: {cron: '0 3 * * *', timezone: Local}\n", want: []string{"schedule.timezone: must be an IANA time zone such as Europe/Paris or UTC"}},
		{name: "timezone path", doc: minimal + "schedule: {cron: '0 3 * * *', timezone: ../../etc/passwd}\n", want: []string{"schedule.timezone: must be an IANA time zone such as Europe/Paris or UTC"}},
		{
			name: "imports: neither, both, bad names",
			doc: minimal + `after: [infra-42]
imports:
  Infra: {deployment: infra-42}
  none: {}
  both: {deployment: infra-42, current: {application: x}}
  nul:
deploy:
  targetsFrom: [{import: Infra, export: vms}, {import: none, export: vms}, {import: both, export: vms}, {import: nul, export: x}]
`,
			want: []string{
				"imports.Infra: " + msgChainName,
				"imports.both: give either deployment or current, not both",
				"imports.none: needs deployment (a deploy ID in after) or current (the release in service of an application)",
				"imports.nul: needs deployment (a deploy ID in after) or current (the release in service of an application)",
			},
		},
		{
			name: "imports: deployment not in after",
			doc:  minimal + "after: [a]\nimports: {infra: {deployment: infra-42}}\n" + refs,
			want: []string{"imports.infra.deployment: infra-42 must be listed in after: an import reads a deploy this one waits for"},
		},
		{
			name: "imports: deployment not an ID",
			doc:  minimal + "imports: {infra: {deployment: Infra 42}}\n" + refs,
			want: []string{"imports.infra.deployment: " + msgID},
		},
		{
			name: "imports: current needs an application, names are names",
			doc:  minimal + "imports: {infra: {current: {environment: Prod, artifact: -x, tenant: a_b}}}\n" + refs,
			want: []string{
				"imports.infra.current.application: is required",
				"imports.infra.current.environment: " + msgName,
				"imports.infra.current.artifact: " + msgName,
				"imports.infra.current.tenant: " + msgName,
			},
		},
		{
			name: "imports: own release in service",
			doc:  minimal + "imports: {infra: {current: {application: hello}}}\n" + refs,
			want: []string{"imports.infra.current: a deploy cannot import its own release in service"},
		},
		{
			name: "imports: own release in service, named in full",
			doc:  minimal + "tenant: shop\nimports: {infra: {current: {application: hello, environment: staging, artifact: hello, tenant: shop}}}\n" + refs,
			want: []string{"imports.infra.current: a deploy cannot import its own release in service"},
		},
		{
			name: "imports: unused",
			doc:  minimal + "imports: {infra: {current: {application: infra}}, spare: {current: {application: x}}}\n" + refs,
			want: []string{"imports.spare: is not used by deploy.targetsFrom or deploy.paramsFrom"},
		},
		{
			name: "imports: at most 10",
			doc:  minimal + "imports: {" + manyImports(11) + "}\n",
			want: []string{"imports: at most 10 imports are allowed, found 11"},
		},
		{
			name: "exports: with dryRun, missing pattern and from, bad format, name, regexp",
			doc: minimal + `dryRun: true
exports:
  Vms: {from: deploy.vms, format: targets}
  host: {from: deploy.host}
  nofrom: {pattern: x}
  bad_from: {from: deploy, pattern: x}
  bad_step: {from: Deploy.x, pattern: x}
  fmt: {from: deploy.x, format: json, pattern: x}
  re: {from: deploy.x, pattern: '(a'}
  long: {from: deploy.x, pattern: '` + strings.Repeat("a", 1025) + `'}
`,
			want: []string{
				"exports: is not allowed with dryRun: dry-runs have no exports",
				"exports.Vms: " + msgChainName,
				"exports.bad_from.from: must be <step>.<key>, an output of a step such as deploy.vms",
				"exports.bad_step.from: must be <step>.<key>, an output of a step such as deploy.vms",
				"exports.fmt.format: must be string or targets",
				"exports.host.pattern: is required for a string export: it is matched against the whole value",
				"exports.long.pattern: must be at most 1024 bytes",
				"exports.nofrom.from: is required",
				"exports.re.pattern: must be a regular expression (Go syntax): missing closing ): `(a`",
			},
		},
		{
			name: "exports: at most 32",
			doc:  minimal + "exports: {" + manyExports(33) + "}\n",
			want: []string{"exports: at most 32 exports are allowed, found 33"},
		},
		{
			name: "targetsFrom with targets, undeclared and missing fields, duplicates",
			doc: minimal + `imports: {infra: {current: {application: infra}}}
deploy:
  targets: [{path: /srv}]
  targetsFrom: [{import: infra, export: vms}, {import: nope, export: vms}, {export: vms}, {import: infra}, {import: infra, export: vms}, x]
`,
			want: []string{
				"deploy.targetsFrom[5]: must be a mapping",
				"deploy.targetsFrom: conflicts with deploy.targets: the targets come either from the descriptor or from imports, not both",
				"deploy.targetsFrom[1].import: nope is not declared in imports",
				"deploy.targetsFrom[2].import: is required",
				"deploy.targetsFrom[3].export: is required",
				"deploy.targetsFrom[4]: infra.vms is already listed (deploy.targetsFrom[0])",
			},
		},
		{
			name: "paramsFrom also in params, bad names, undeclared",
			doc: minimal + `imports: {infra: {current: {application: infra}}}
deploy:
  params: {db_host: x}
  paramsFrom:
    db_host: {import: infra, export: db_host}
    DB: {import: infra, export: db}
    other: {import: gone, export: Bad-Name}
`,
			want: []string{
				"deploy.paramsFrom.DB: " + msgParam,
				"deploy.paramsFrom.db_host: is also in deploy.params: a parameter comes either from the descriptor or from an import",
				"deploy.paramsFrom.other.import: gone is not declared in imports",
				"deploy.paramsFrom.other.export: " + msgChainName,
			},
		},
		{
			name: "targetsFrom limit",
			doc:  minimal + "imports: {infra: {current: {application: infra}}}\ndeploy: {targetsFrom: [" + strings.Repeat("{import: infra, export: vms},", 33) + "]}\n",
			want: []string{
				"deploy.targetsFrom: at most 32 entries are allowed, found 33",
			},
		},
		{
			name: "unknown chain fields get suggestions",
			doc:  minimal + "after_timeout: 2h\nschedule: {crontab: x}\nimports: {a: {deploy: x}}\n",
			want: []string{
				"after_timeout: unknown field (did you mean afterTimeout?)",
				"schedule.crontab: unknown field",
				"imports.a.deploy: unknown field",
				"schedule: needs at (an RFC 3339 time) or cron (a 5-field cron expression)",
				"imports.a: needs deployment (a deploy ID in after) or current (the release in service of an application)",
				"imports.a: is not used by deploy.targetsFrom or deploy.paramsFrom",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := descriptor.Parse([]byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", d)
			}
			got := fieldsOf(t, err)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fields:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestChainsAllErrorsAtOnce checks that one document breaking a rule of each
// chain field gets every problem back in a single answer.
func TestChainsAllErrorsAtOnce(t *testing.T) {
	doc := minimal + `id: me
dryRun: true
after: [me, x]
afterTimeout: 45d
schedule: {cron: '0 3 * *', timezone: Nowhere/City}
imports:
  infra: {deployment: y}
  self: {current: {application: hello}}
exports:
  out: {from: deploy.x}
deploy:
  targets: [{path: /srv}]
  params: {p: v}
  targetsFrom: [{import: infra, export: vms}]
  paramsFrom: {p: {import: ghost, export: v}}
`
	want := []string{
		"after: is not allowed with dryRun: a dry-run runs immediately",
		"after: is not allowed with schedule.cron: every run would depend on the same deploys",
		"after[0]: a deploy cannot depend on itself",
		"afterTimeout: must be between 1m and 30 days (720h), found 45d",
		"schedule: is not allowed with dryRun: a dry-run runs immediately",
		"schedule.cron: " + msgCronFields,
		"schedule.timezone: must be an IANA time zone such as Europe/Paris or UTC",
		"imports.infra.deployment: y must be listed in after: an import reads a deploy this one waits for",
		"imports.self.current: a deploy cannot import its own release in service",
		"imports.self: is not used by deploy.targetsFrom or deploy.paramsFrom",
		"exports: is not allowed with dryRun: dry-runs have no exports",
		"exports.out.pattern: is required for a string export: it is matched against the whole value",
		"deploy.targetsFrom: conflicts with deploy.targets: the targets come either from the descriptor or from imports, not both",
		"deploy.paramsFrom.p: is also in deploy.params: a parameter comes either from the descriptor or from an import",
		"deploy.paramsFrom.p.import: ghost is not declared in imports",
	}
	_, err := descriptor.Parse([]byte(doc))
	if got := fieldsOf(t, err); !reflect.DeepEqual(got, want) {
		t.Errorf("fields:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestCompileExportPatternMatchesWholeValue(t *testing.T) {
	tests := []struct {
		pattern, value string
		match          bool
	}{
		{`10\.20\.\d+\.\d+`, "10.20.1.2", true},
		{`10\.20\.\d+\.\d+`, "10.20.1.2; rm -rf /", false},
		{`10\.20\.\d+\.\d+`, "x10.20.1.2", false},
		{`a|b`, "a", true},
		{`a|b`, "ab", false},
		{`[a-z]+`, "abc\n", false},
	}
	for _, tt := range tests {
		re, err := descriptor.CompileExportPattern(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(tt.value); got != tt.match {
			t.Errorf("%s on %q: %v, want %v", tt.pattern, tt.value, got, tt.match)
		}
	}
}

func TestIsSelfImport(t *testing.T) {
	d := &deploy.Descriptor{Tenant: "shop", Application: "api", Environment: "prod", Artifact: deploy.Artifact{Name: "api"}}
	tests := []struct {
		c    deploy.CurrentImport
		self bool
	}{
		{deploy.CurrentImport{Application: "api"}, true},
		{deploy.CurrentImport{Application: "api", Environment: "prod", Tenant: "shop", Artifact: "api"}, true},
		{deploy.CurrentImport{Application: "api", Environment: "staging"}, false},
		{deploy.CurrentImport{Application: "api", Tenant: "other"}, false},
		{deploy.CurrentImport{Application: "api", Artifact: "api-assets"}, false},
		{deploy.CurrentImport{Application: "db"}, false},
	}
	for _, tt := range tests {
		if got := descriptor.IsSelfImport(d, tt.c); got != tt.self {
			t.Errorf("%+v: %v, want %v", tt.c, got, tt.self)
		}
	}
}

const (
	msgID         = "must be 1 to 128 characters of a-z, 0-9, '.', '_', '@' and -, starting with a letter or digit"
	msgName       = "must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit"
	msgParam      = "name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter"
	msgChainName  = msgParam
	msgCronFields = `must be 5 fields (minute hour day-of-month month day-of-week) such as "0 3 * * 1-5"; the time zone goes in schedule.timezone`
)

func ids(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("dep-%d", i)
	}
	return strings.Join(out, ", ")
}

func manyImports(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "i%d: {current: {application: a%d}},", i, i)
	}
	return b.String()
}

func manyExports(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "e%d: {from: deploy.e%d, format: targets},", i, i)
	}
	return b.String()
}
