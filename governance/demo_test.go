package governance_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// docsPolicy returns the Rego policy docs/governance.md gives for the demo.
func docsPolicy(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/governance.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "### The demo rules in Rego")
	if !ok {
		t.Fatal("docs/governance.md has no demo policy")
	}
	_, rest, _ = strings.Cut(rest, "```rego\n")
	policy, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the demo policy is not closed")
	}
	return policy
}

// TestDemoPolicy checks that the documented Rego policy and the demo's
// YAML rules decide the same on the demo's walk-through and its variants.
func TestDemoPolicy(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("../examples/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	lookup := history{"demo/hello/staging/hello@1.0.0": {{DeploymentID: "hello-staging-1", FinishedAt: weekday.Add(-time.Hour)}}}
	rules, err := governance.New(c.Governance, lookup)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := governance.NewRego(docsPolicy(t), lookup)
	if err != nil {
		t.Fatal(err)
	}
	demo := func(change func(*deploy.GovernanceInput)) deploy.GovernanceInput {
		return input(func(in *deploy.GovernanceInput) {
			in.Artifact.Source = "file:hello-1.0.0.tar.gz"
			if change != nil {
				change(in)
			}
		})
	}
	approval := &deploy.ApprovalRequirement{Count: 1, Expiry: 24 * time.Hour}
	tests := []struct {
		name    string
		in      deploy.GovernanceInput
		want    deploy.Decision
		refused string
	}{
		{name: "hello-prod after staging", in: demo(nil), want: deploy.Decision{
			Rule: "hello-prod, hello-staging-first", Requires: []string{"approvals"},
			Reason:    "promoted from staging (deploy hello-staging-1); waits for 1 approval(s) by other identities within 24h",
			Approvals: approval, Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "hello-staging-1"},
		}},
		{name: "staging is not governed", in: demo(func(in *deploy.GovernanceInput) { in.Environment = "staging"; in.Time = sunday })},
		{name: "never ran in staging", in: demo(func(in *deploy.GovernanceInput) { in.Artifact.Version = "2.0.0" }),
			refused: "governance.promotion: hello 2.0.0 has not succeeded in staging"},
		{name: "replaced in staging", in: demo(func(in *deploy.GovernanceInput) { in.Inventory = inventory("1.1.0") }),
			refused: "governance.promotion: hello 1.0.0 is no longer in service in staging"},
		{name: "Sunday", in: demo(func(in *deploy.GovernanceInput) { in.Time = sunday }),
			refused: `governance.freeze: prod is frozen by window "sunday" until 2026-05-18T00:00:00Z`},
		{name: "Sunday with an override", in: demo(func(in *deploy.GovernanceInput) { in.Time = sunday; in.FreezeOverride = "hotfix" }), want: deploy.Decision{
			Rule: "hello-prod, hello-staging-first, sunday", Requires: []string{"approvals"},
			Reason:    `freeze "sunday" (until 2026-05-18T00:00:00Z) overridden: hotfix; promoted from staging (deploy hello-staging-1); waits for 1 approval(s) by other identities within 24h`,
			Approvals: approval, Freeze: &deploy.Freeze{Window: "sunday", Until: monday, Overridden: true, Reason: "hotfix"},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "hello-staging-1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for kind, g := range map[string]deploy.Governor{"yaml": rules, "rego": policy} {
				got, err := g.Decide(context.Background(), tt.in)
				if tt.refused != "" {
					if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(err.Error(), tt.refused) {
						t.Errorf("%s: Decide = %v, want a refusal with %q", kind, err, tt.refused)
					}
					continue
				}
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: Decide = %s, %v\nwant %s", kind, show(got), err, show(tt.want))
				}
			}
		})
	}
}

type failingLookup struct{}

func (failingLookup) SucceededDeploys(context.Context, string, string, string, string, string) ([]governance.Success, error) {
	return nil, errors.New("database is down")
}

// TestRegoErrors: a policy that cannot decide fails the submission instead
// of letting it through.
func TestRegoErrors(t *testing.T) {
	ctx := context.Background()
	in := input(nil)
	if _, err := governance.NewRego("package manent.governance\ndecision := {", nil); err == nil {
		t.Error("a syntax error was accepted")
	}
	tests := []struct {
		name, module string
		lookup       governance.Lookup
		want         string
	}{
		{"undefined decision", "package manent.governance\ndecision := {} if input.environment == \"qa\"\n", nil, "is undefined"},
		{"unknown key", "package manent.governance\ndecision := {\"approval\": {\"count\": 1}}\n", nil, `unknown field "approval"`},
		{"bad count", "package manent.governance\ndecision := {\"approvals\": {\"count\": 0}}\n", nil, "count of at least 1"},
		{"bad freeze", "package manent.governance\ndecision := {\"freeze\": {\"window\": \"x\", \"until\": \"monday\"}}\n", nil, "RFC 3339"},
		{"lookup error", "package manent.governance\ndecision := {\"rules\": [x.id | some x in manent.succeeded_deploys(\"demo\", \"hello\", \"staging\", \"hello\", \"1.0.0\")]}\n", failingLookup{}, "database is down"},
		{"no lookup", "package manent.governance\ndecision := {\"rules\": [x.id | some x in manent.succeeded_deploys(\"demo\", \"hello\", \"staging\", \"hello\", \"1.0.0\")]}\n", nil, "no deploy history"},
		{"bad cron", "package manent.governance\ndecision := {\"rules\": [w.until | w := manent.recurring_window(\"0 0 *\", \"1h\", \"UTC\", input.time_ns)]}\n", nil, "cron"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := governance.NewRego(tt.module, tt.lookup)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Decide(ctx, in); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decide error = %v, want %q", err, tt.want)
			}
			if _, err := g.Frozen(ctx, in); err == nil {
				t.Error("Frozen: no error")
			}
		})
	}
	t.Run("refusal without a path", func(t *testing.T) {
		g, err := governance.NewRego("package manent.governance\ndecision := {\"refusals\": [{\"message\": \"not on a friday\"}]}\n", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Decide(ctx, in)
		var e *deploy.Error
		if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE || len(e.Fields) != 1 || e.Fields[0] != (deploy.FieldError{Path: "governance.policy", Message: "not on a friday"}) {
			t.Errorf("Decide = %v", err)
		}
	})
}

func TestNewErrors(t *testing.T) {
	if _, err := governance.New(config.Governance{Promotion: []config.PromotionRule{{From: "staging"}}}, nil); err == nil {
		t.Error("promotion rules without a lookup were accepted")
	}
	if _, err := governance.New(config.Governance{Rego: "x.rego"}, nil); err == nil {
		t.Error("New accepted a Rego configuration")
	}
	bad := config.Governance{Freezes: []config.FreezeRule{{Name: "x", Recurring: []config.RecurringWindow{{Cron: "bad", Duration: time.Hour, Timezone: "UTC"}}}}}
	if _, err := governance.New(bad, nil); err == nil {
		t.Error("a bad cron was accepted")
	}
}

func TestFromConfig(t *testing.T) {
	g, err := governance.FromConfig(config.Governance{Rego: "testdata/policy.rego"}, stagingSuccess)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.(*governance.Rego); !ok {
		t.Errorf("FromConfig = %T, want *Rego", g)
	}
	if _, err := governance.FromConfig(config.Governance{Rego: "testdata/missing.rego"}, nil); err == nil {
		t.Error("a missing policy was accepted")
	}
	if g, err := governance.FromConfig(config.Governance{}, nil); err != nil {
		t.Fatal(err)
	} else if _, ok := g.(*governance.Rules); !ok {
		t.Errorf("FromConfig = %T, want *Rules", g)
	}
}
