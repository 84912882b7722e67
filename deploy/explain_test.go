package deploy_test

import (
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestDecisionExplain(t *testing.T) {
	a := deploy.Artifact{Name: "hello", Version: "1.1.0"}
	cases := []struct {
		name string
		d    deploy.Decision
		want string
	}{
		{"nothing", deploy.Decision{}, "no governance rule asks anything of it"},
		{"one approval and a promotion", deploy.Decision{
			Approvals: &deploy.ApprovalRequirement{Count: 1},
			Promotion: &deploy.PromotionCheck{From: "staging", SatisfiedBy: "hello-staging-b2d1de04"},
		}, "needs 1 approval from an identity other than the requester; staging must have run hello 1.1.0 successfully — it did: hello-staging-b2d1de04"},
		{"restricted approvers", deploy.Decision{
			Approvals: &deploy.ApprovalRequirement{Count: 2, Groups: []string{"sre", "leads"}, Roles: []string{"role:rm"}, Expiry: 4 * time.Hour},
		}, "needs 2 approvals from identities other than the requester in one of the groups sre, leads or holding role role:rm within 4h"},
		{"change and an overridden freeze", deploy.Decision{
			Change: &deploy.ChangeRequirement{Connector: "servicenow"},
			Freeze: &deploy.Freeze{Window: "sunday", Overridden: true, Reason: "INC-42"},
		}, "needs a change ticket approved through servicenow; accepted in freeze window sunday with an override: INC-42"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.d.Explain(a); got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
