package governance_test

import (
	"slices"
	"testing"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// TestNextEnvironments reads the promotion order from the promotion rules:
// where a deploy goes next is where a rule asks for its environment first.
func TestNextEnvironments(t *testing.T) {
	rules, err := governance.New(config.Governance{Promotion: []config.PromotionRule{
		{Name: "prod", Match: config.Match{Application: "hello", Environment: "prod"}, From: "staging"},
		{Name: "prod-eu", Match: config.Match{Environment: "prod-eu", Labels: map[string]string{"region": "eu"}}, From: "staging"},
		{Name: "staging", Match: config.Match{Environment: "staging"}, From: "dev"},
		{Name: "acme", Match: config.Match{Tenant: "acme", Environment: "prod"}, From: "qa"},
		// No environment in the match: a rule of every environment tells no order.
		{Name: "everywhere", Match: config.Match{Application: "hello"}, From: "dev"},
	}}, history{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		in   deploy.GovernanceInput
		want []string
	}{
		{"staging of hello", deploy.GovernanceInput{Tenant: "demo", Application: "hello", Environment: "staging"}, []string{"prod"}},
		{"staging of hello in eu", deploy.GovernanceInput{Tenant: "demo", Application: "hello", Environment: "staging",
			Labels: map[string]string{"region": "eu"}}, []string{"prod", "prod-eu"}},
		{"staging of another application", deploy.GovernanceInput{Tenant: "demo", Application: "shop", Environment: "staging"}, nil},
		{"dev", deploy.GovernanceInput{Tenant: "demo", Application: "hello", Environment: "dev"}, []string{"staging"}},
		{"qa of another tenant", deploy.GovernanceInput{Tenant: "demo", Application: "hello", Environment: "qa"}, nil},
		{"qa of acme", deploy.GovernanceInput{Tenant: "acme", Application: "hello", Environment: "qa"}, []string{"prod"}},
		{"prod, the last", deploy.GovernanceInput{Tenant: "demo", Application: "hello", Environment: "prod"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rules.NextEnvironments(c.in); !slices.Equal(got, c.want) {
				t.Fatalf("NextEnvironments = %v, want %v", got, c.want)
			}
		})
	}
}
