package graph

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestApprovalContextEvidence: the evidence links to the deploy that
// satisfied the promotion only when the viewer may read it and it is one of
// the deploy's own tenant and application, in the rule's environment. A
// Rego policy may name any ID as satisfied_by: a deploy elsewhere, even one
// the viewer reads, is no evidence of this promotion and is never shown.
func TestApprovalContextEvidence(t *testing.T) {
	const doneAt = "2025-03-02T08:00:00Z"
	evidence := func(tenant, application, environment string) *deploy.Deployment {
		d := newDeployBoard().d
		d.ID, d.Tenant, d.Application, d.Environment, d.State = "hello-0", tenant, application, environment, deploy.StateSuccess
		finished := approvalT0.Add(-time.Hour)
		d.FinishedAt = &finished
		return &d
	}
	tests := []struct {
		name string
		// src is what Get answers for the evidence; nil: not found.
		src  *deploy.Deployment
		want string
	}{
		{"of the deploy's tenant, application and from", evidence("demo", "hello", "staging"),
			`[{"environment":"staging","deploymentId":"hello-0","finishedAt":"` + doneAt + `"}]`},
		{"unreadable", nil, `[{"environment":"staging","deploymentId":null,"finishedAt":null}]`},
		{"of another tenant", evidence("other", "hello", "staging"), `[{"environment":"staging","deploymentId":null,"finishedAt":null}]`},
		{"of another application", evidence("demo", "shop", "staging"), `[{"environment":"staging","deploymentId":null,"finishedAt":null}]`},
		{"in another environment", evidence("demo", "hello", "dev"), `[{"environment":"staging","deploymentId":null,"finishedAt":null}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := awaiting("hello-9")
			svc := &fakeService{
				get: func(_ context.Context, id string) (*deploy.Deployment, error) {
					switch {
					case id == d.ID:
						return &d, nil
					case id == "hello-0" && tt.src != nil:
						return tt.src, nil
					}
					return nil, deploy.DeploymentNotFound(id)
				},
				environment: func(_ context.Context, res deploy.Resource) (*deploy.InventoryEntry, error) {
					return &deploy.InventoryEntry{Tenant: res.Tenant, Application: res.Application, Environment: res.Environment}, nil
				},
			}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "admin", `{ deployment(id: "hello-9") { approvalContext { promotionEvidence { environment deploymentId finishedAt } } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			want := `{"approvalContext":{"promotionEvidence":` + tt.want + `}}`
			if got := string(resp.Data["deployment"]); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}
