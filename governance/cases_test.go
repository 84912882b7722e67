package governance_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// history is a Lookup over a fixed list of successes.
type history map[string][]governance.Success

func (h history) SucceededDeploys(_ context.Context, tenant, application, environment, name, version string) ([]governance.Success, error) {
	return h[tenant+"/"+application+"/"+environment+"/"+name+"@"+version], nil
}

var (
	// Wednesday 13 May 2026, 10:00 UTC.
	weekday = time.Date(2026, 5, 13, 10, 0, 0, 0, time.UTC)
	// Sunday 17 May 2026, 10:00 UTC.
	sunday = time.Date(2026, 5, 17, 10, 0, 0, 0, time.UTC)
	// Monday 18 May 2026, 00:00 UTC: the Sunday window has just closed.
	monday = time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
)

var stagingSuccess = history{
	"demo/hello/staging/hello@1.0.0": {
		{DeploymentID: "stg-old", FinishedAt: weekday.Add(-48 * time.Hour)},
		{DeploymentID: "stg-1", FinishedAt: weekday.Add(-2 * time.Hour)},
	},
	"demo/hello/staging/hello@1.1.0": {{DeploymentID: "stg-2", FinishedAt: weekday.Add(-10 * time.Minute)}},
}

func inventory(version string) []deploy.InventoryEntry {
	return []deploy.InventoryEntry{{
		Tenant: "demo", Application: "hello", Environment: "staging", DeploymentID: "stg-x",
		Artifact: deploy.Artifact{Type: "application", Name: "hello", Version: version},
	}}
}

// input is a submission of hello 1.0.0 to prod on a weekday, after its
// success in staging, with changes applied by the case.
func input(change func(*deploy.GovernanceInput)) deploy.GovernanceInput {
	in := deploy.GovernanceInput{
		Identity: deploy.Identity{Subject: "token:demo-ci", Groups: []string{"ci"}},
		Tenant:   "demo", Application: "hello", Environment: "prod",
		Labels:    map[string]string{},
		Artifact:  deploy.Artifact{Type: "application", Name: "hello", Version: "1.0.0", Source: "file:hello-1.0.0.tar.gz"},
		Time:      weekday,
		Inventory: inventory("1.0.0"),
	}
	if change != nil {
		change(&in)
	}
	return in
}

type governanceCase struct {
	name string
	in   deploy.GovernanceInput
	want deploy.Decision
	// refused lists the refusal's fields when the submit is refused.
	refused []deploy.FieldError
	// frozen is what Frozen answers.
	frozen *deploy.Freeze
}

var day = 24 * time.Hour

var cases = []governanceCase{
	{
		name: "approval rule by environment, promotion satisfied",
		in:   input(nil),
		want: deploy.Decision{
			Rule: "prod, staging-first", Requires: []string{"approvals"},
			Reason:    "promoted from staging (deploy stg-1); waits for 1 approval(s) by other identities within 24h",
			Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: day},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "stg-1"},
		},
	},
	{
		name: "approval rule by labels comes first",
		in:   input(func(in *deploy.GovernanceInput) { in.Labels["region"] = "eu" }),
		want: deploy.Decision{
			Rule: "prod-eu, staging-first", Requires: []string{"approvals"},
			Reason:    "promoted from staging (deploy stg-1); waits for 2 approval(s) by other identities within 1h from release-managers",
			Approvals: &deploy.ApprovalRequirement{Count: 2, Groups: []string{"release-managers"}, Expiry: time.Hour},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "stg-1"},
		},
	},
	{
		name: "change required",
		in:   input(func(in *deploy.GovernanceInput) { in.Labels["change"] = "yes" }),
		want: deploy.Decision{
			Rule: "prod, prod-change, staging-first", Requires: []string{"approvals", "change"},
			Reason:    "promoted from staging (deploy stg-1); waits for 1 approval(s) by other identities within 24h; waits for a change ticket approved through servicenow",
			Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: day},
			Change:    &deploy.ChangeRequirement{Connector: "servicenow"},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "stg-1"},
		},
	},
	{
		name: "nothing matching",
		in:   input(func(in *deploy.GovernanceInput) { in.Environment = "qa"; in.Time = sunday }),
		want: deploy.Decision{},
	},
	{
		name:    "recurring freeze on Sunday (UTC)",
		in:      input(func(in *deploy.GovernanceInput) { in.Time = sunday }),
		refused: []deploy.FieldError{{Path: "governance.freeze", Message: `prod is frozen by window "sunday" until 2026-05-18T00:00:00Z (a freezeOverride with a reason and deployment.freeze-override allow a deploy in it)`}},
		frozen:  &deploy.Freeze{Window: "sunday", Until: monday},
	},
	{
		name: "the Sunday window ends at midnight",
		in:   input(func(in *deploy.GovernanceInput) { in.Time = monday; in.Environment = "staging" }),
		want: deploy.Decision{},
	},
	{
		name: "absolute freeze by tenant and region",
		in: input(func(in *deploy.GovernanceInput) {
			in.Environment = "staging"
			in.Labels["region"] = "us"
			in.Time = time.Date(2026, 12, 25, 9, 0, 0, 0, time.UTC)
		}),
		refused: []deploy.FieldError{{Path: "governance.freeze", Message: `staging is frozen by window "year-end" until 2027-01-02T00:00:00Z (a freezeOverride with a reason and deployment.freeze-override allow a deploy in it)`}},
		frozen:  &deploy.Freeze{Window: "year-end", Until: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)},
	},
	{
		name: "absolute freeze of another region",
		in: input(func(in *deploy.GovernanceInput) {
			in.Environment = "staging"
			in.Labels["region"] = "eu"
			in.Time = time.Date(2026, 12, 25, 9, 0, 0, 0, time.UTC)
		}),
		want: deploy.Decision{},
	},
	{
		name: "freeze overridden",
		in:   input(func(in *deploy.GovernanceInput) { in.Time = sunday; in.FreezeOverride = "hotfix INC-42" }),
		want: deploy.Decision{
			Rule: "prod, staging-first, sunday", Requires: []string{"approvals"},
			Reason:    `freeze "sunday" (until 2026-05-18T00:00:00Z) overridden: hotfix INC-42; promoted from staging (deploy stg-1); waits for 1 approval(s) by other identities within 24h`,
			Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: day},
			Freeze:    &deploy.Freeze{Window: "sunday", Until: monday, Overridden: true, Reason: "hotfix INC-42"},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "stg-1"},
		},
		frozen: &deploy.Freeze{Window: "sunday", Until: monday, Overridden: true, Reason: "hotfix INC-42"},
	},
	{
		name:    "promotion missing",
		in:      input(func(in *deploy.GovernanceInput) { in.Artifact.Version = "2.0.0"; in.Inventory = inventory("2.0.0") }),
		refused: []deploy.FieldError{{Path: "governance.promotion", Message: "hello 2.0.0 has not succeeded in staging"}},
	},
	{
		name:    "promotion before the soak time",
		in:      input(func(in *deploy.GovernanceInput) { in.Artifact.Version = "1.1.0"; in.Inventory = inventory("1.1.0") }),
		refused: []deploy.FieldError{{Path: "governance.promotion", Message: "hello 1.1.0 succeeded in staging 10m ago, soak is 1h"}},
	},
	{
		name:    "promotion no longer in service",
		in:      input(func(in *deploy.GovernanceInput) { in.Inventory = inventory("1.1.0") }),
		refused: []deploy.FieldError{{Path: "governance.promotion", Message: "hello 1.0.0 is no longer in service in staging"}},
	},
	{
		name: "every reason at once",
		in:   input(func(in *deploy.GovernanceInput) { in.Time = sunday; in.Artifact.Version = "2.0.0" }),
		refused: []deploy.FieldError{
			{Path: "governance.freeze", Message: `prod is frozen by window "sunday" until 2026-05-18T00:00:00Z (a freezeOverride with a reason and deployment.freeze-override allow a deploy in it)`},
			{Path: "governance.promotion", Message: "hello 2.0.0 has not succeeded in staging"},
		},
		frozen: &deploy.Freeze{Window: "sunday", Until: monday},
	},
}

func loadRules(t *testing.T) config.Governance {
	t.Helper()
	t.Setenv("DATABASE_URL", "")
	c, err := config.Load("testdata/manent.yml")
	if err != nil {
		t.Fatal(err)
	}
	return c.Governance
}

func governors(t *testing.T, lookup governance.Lookup) map[string]deploy.Governor {
	t.Helper()
	rules, err := governance.New(loadRules(t), lookup)
	if err != nil {
		t.Fatal(err)
	}
	module, err := os.ReadFile("testdata/policy.rego")
	if err != nil {
		t.Fatal(err)
	}
	policy, err := governance.NewRego(string(module), lookup)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]deploy.Governor{"yaml": rules, "rego": policy}
}

// TestCases runs the shared cases against the YAML rules and the Rego
// policy: both must give exactly the same decisions.
func TestCases(t *testing.T) {
	ctx := context.Background()
	govs := governors(t, stagingSuccess)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			results := map[string]deploy.Decision{}
			for _, kind := range []string{"yaml", "rego"} {
				g := govs[kind]
				got, err := g.Decide(ctx, tc.in)
				if tc.refused != nil {
					var e *deploy.Error
					if !errors.As(err, &e) || e.Code != deploy.EUNPROCESSABLE || !reflect.DeepEqual(e.Fields, tc.refused) {
						t.Errorf("%s: Decide = %+v, %v; want refusal %+v", kind, got, err, tc.refused)
					}
				} else if err != nil {
					t.Errorf("%s: Decide: %v", kind, err)
				} else if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: Decide =\n%s\nwant\n%s", kind, show(got), show(tc.want))
				}
				results[kind] = got
				f, err := g.Frozen(ctx, tc.in)
				if err != nil || !reflect.DeepEqual(f, tc.frozen) {
					t.Errorf("%s: Frozen = %+v, %v; want %+v", kind, f, err, tc.frozen)
				}
			}
			if !reflect.DeepEqual(results["yaml"], results["rego"]) {
				t.Errorf("decisions differ:\nyaml %s\nrego %s", show(results["yaml"]), show(results["rego"]))
			}
		})
	}
}
