package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/descriptor"
)

func TestGovernanceDefaults(t *testing.T) {
	dir := t.TempDir()
	c, err := config.Parse([]byte(`
governance:
  approvals:
    - {name: prod, match: {environment: prod}}
  freezes:
    - name: sunday
      recurring: [{cron: "0 0 * * SUN", duration: 24h}]
  promotion:
    - {match: {environment: prod}, from: staging}
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Governance
	want := config.ApprovalRule{Name: "prod", Match: config.Match{Environment: "prod"}, Count: 1, Expiry: 24 * time.Hour}
	if !reflect.DeepEqual(g.Approvals, []config.ApprovalRule{want}) {
		t.Errorf("approvals = %+v", g.Approvals)
	}
	if w := g.Freezes[0].Recurring[0]; w.Timezone != "UTC" {
		t.Errorf("timezone = %q, want UTC", w.Timezone)
	}
	if p := g.Promotion[0]; p.Soak != 0 || p.InService {
		t.Errorf("promotion = %+v", p)
	}
	c, err = config.Parse([]byte("governance: {rego: policy/governance.rego}\n"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Governance.Rego != filepath.Join(dir, "policy", "governance.rego") {
		t.Errorf("rego = %q, want it resolved against the directory of manent.yml", c.Governance.Rego)
	}
}

func TestGovernanceErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "approvals",
			doc: `
governance:
  approvals:
    - {match: {environment: Prod, labels: {Bad: x}}, count: 0, groups: ["a b"], expiry: 0s}
    - {name: dup, count: 101, expiry: 721h}
    - {name: dup, match: {region: eu}}
`,
			want: []string{
				"governance.approvals[2].match.region: unknown field",
				"governance.approvals[0].name: is required",
				"governance.approvals[0].match.environment: must be a name: 1 to 63 characters of a-z, 0-9 and -",
				"governance.approvals[0].match.labels.Bad: key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit",
				"governance.approvals[0].count: must be between 1 and 100",
				"governance.approvals[0].groups[0]: must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -",
				"governance.approvals[0].expiry: must be between 1s and 720h",
				"governance.approvals[1].count: must be between 1 and 100",
				"governance.approvals[1].expiry: must be between 1s and 720h",
				"governance.approvals[2].name: is the name of another governance rule",
			},
		},
		{
			name: "freezes",
			doc: `
governance:
  freezes:
    - {name: empty}
    - name: bad
      absolute:
        - {from: "2026-12-24", to: "2026-12-27T00:00:00Z"}
        - {from: "2026-12-27T00:00:00Z", to: "2026-12-24T00:00:00Z"}
      recurring:
        - {cron: "0 0 * *", duration: 24h}
        - {cron: "@every 1h", duration: 1h}
        - {cron: "0 0 * * SUN", duration: 0s, timezone: Mars/Olympus}
        - {duration: 745h}
`,
			want: []string{
				"governance.freezes[0]: needs absolute or recurring windows",
				"governance.freezes[1].absolute[0].from: must be an RFC 3339 time such as 2026-12-24T00:00:00Z",
				"governance.freezes[1].absolute[1].to: must be after from",
				"governance.freezes[1].recurring[0].cron: must be 5 fields (minute hour day-of-month month day-of-week), such as 0 0 * * SUN: expected exactly 5 fields, found 4: [0 0 * *]",
				"governance.freezes[1].recurring[1].cron: must be 5 fields (minute hour day-of-month month day-of-week), such as 0 0 * * SUN: @every and TZ= are not supported (use timezone)",
				"governance.freezes[1].recurring[2].timezone: must be an IANA time zone such as UTC or Europe/Paris",
				"governance.freezes[1].recurring[2].duration: must be between 1s and 744h",
				"governance.freezes[1].recurring[3].cron: is required: 5 fields (minute hour day-of-month month day-of-week), such as 0 0 * * SUN",
				"governance.freezes[1].recurring[3].duration: must be between 1s and 744h",
			},
		},
		{
			name: "freezes narrowed to targets",
			doc: `
governance:
  freezes:
    - {name: none, targets: {labels: {}}, absolute: [{from: "2026-12-24T00:00:00Z", to: "2026-12-27T00:00:00Z"}]}
    - {name: bad, targets: {labels: {Region: eu}}, absolute: [{from: "2026-12-24T00:00:00Z", to: "2026-12-27T00:00:00Z"}]}
    - {name: typo, targets: {label: {region: eu}}, absolute: [{from: "2026-12-24T00:00:00Z", to: "2026-12-27T00:00:00Z"}]}
`,
			want: []string{
				"governance.freezes[2].targets.label: unknown field (did you mean labels?)",
				"governance.freezes[0].targets.labels: needs at least one label: a selector without labels would select every target (leave targets out to freeze the whole environment)",
				"governance.freezes[1].targets.labels.Region: key must be 1 to 63 characters of a-z, 0-9, '.', '_', '/' and -, starting with a letter or digit",
				"governance.freezes[2].targets.labels: needs at least one label: a selector without labels would select every target (leave targets out to freeze the whole environment)",
			},
		},
		{
			name: "promotion and change",
			doc: `
governance:
  promotion:
    - {from: staging}
    - {match: {environment: prod}, from: prod, soak: -1h}
    - {match: {environment: prod}}
  change:
    - {match: {environment: prod}}
    - {connector: "Service Now"}
`,
			want: []string{
				"governance.promotion[0].match.environment: is required: a promotion rule says which environment it guards",
				"governance.promotion[1].from: must be another environment than match.environment",
				"governance.promotion[1].soak: must be between 0s and 8760h",
				"governance.promotion[2].from: is required",
				"governance.change[0].connector: is required",
				"governance.change[1].connector: must be a connector name: 1 to 63 characters of a-z, 0-9, '.', '_' and -",
			},
		},
		{
			name: "rego replaces the rules",
			doc:  "governance:\n  rego: policy.rego\n  approvals: [{name: prod}]\n",
			want: []string{"governance.rego: a Rego policy replaces the YAML rules: remove approvals, freezes, promotion and change, or rego"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.doc), t.TempDir())
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *config.Error", err)
			}
			got := make([]string, len(ce.Fields))
			for i, f := range ce.Fields {
				got[i] = f.String()
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", join(got), join(tt.want))
			}
		})
	}
}

func join(lines []string) string {
	out := ""
	for _, l := range lines {
		out += "  " + l + "\n"
	}
	return out
}

// TestExampleGovernance checks the demo's prod: its rules and that
// hello-prod.yml resolves to its environment configuration.
func TestExampleGovernance(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	g := c.Governance
	if len(g.Approvals) != 1 || g.Approvals[0].Count != 1 || g.Approvals[0].Match.Environment != "prod" ||
		len(g.Freezes) != 1 || g.Freezes[0].Recurring[0].Cron != "0 0 * * SUN" ||
		len(g.Promotion) != 1 || g.Promotion[0].From != "staging" || !g.Promotion[0].InService {
		t.Errorf("governance = %+v", g)
	}
	data, err := os.ReadFile("../examples/deploys/hello-prod.yml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := descriptor.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.LoadEnvConfig(c.Server.DefaultTenant, d.Application, d.Environment)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := config.Merge(d, env, c.Pipeline.DescriptorPolicy, c.Server.DefaultTenant)
	if err != nil {
		t.Fatal(err)
	}
	if eff.Partition() != "demo/hello/prod" || len(eff.Targets) != 1 || eff.Targets[0].Path != "../.manent/targets/hello/prod" {
		t.Errorf("effective = %+v", eff)
	}
}
