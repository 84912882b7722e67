package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
)

func TestStatusTableSections(t *testing.T) {
	tests := []struct {
		name    string
		change  func(d *client.DeploymentDetail)
		want    []string
		notWant []string
	}{
		{
			name: "governance decision and change ticket",
			change: func(d *client.DeploymentDetail) {
				d.Decision = client.GovernanceDecision{Rule: "prod-approval, prod-change", Requires: []string{"approvals", "change"},
					Reason: "prod needs an approval and a change ticket"}
				d.Steps = append(d.Steps, client.StepDetail{Name: "change:open", Type: "change", State: client.StepStateSuccess,
					Output: []client.KeyValue{{Key: "connector", Value: "servicenow"}, {Key: "number", Value: "CHG0042"}, {Key: "ticket", Value: "9f2c"}}})
			},
			want: []string{
				"Governance  rules prod-approval, prod-change\n",
				"Requires    approvals, change\n",
				"Decision    prod needs an approval and a change ticket\n",
				"Change      CHG0042 (9f2c) in servicenow\n",
			},
		},
		{
			name: "change ticket without a number",
			change: func(d *client.DeploymentDetail) {
				d.Steps = append(d.Steps, client.StepDetail{Name: "change:open", Type: "change", State: client.StepStateSuccess,
					Output: []client.KeyValue{{Key: "connector", Value: "webhook"}, {Key: "ticket", Value: "T-7"}}})
			},
			want:    []string{"Change      T-7 in webhook\n"},
			notWant: []string{"Governance", "Requires", "Decision"},
		},
		{
			name:    "no decision, no change, no after, no dependents",
			change:  func(*client.DeploymentDetail) {},
			notWant: []string{"Governance", "Change ", "After", "Waited on by"},
		},
		{
			name: "after, waiting for one of two",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateWaitingDependency
				d.After = &client.AfterDetail{Status: "waiting", ExpiresAt: t0.Add(24 * time.Hour), Dependencies: []client.Dependency{
					{Id: "db-1", State: client.DeploymentStatePending}, {Id: "net-1", State: client.DeploymentStateSuccess}}}
			},
			want: []string{
				"After          waiting for 1 of 2: db-1 (PENDING), net-1 (SUCCESS)\n",
				"After expires  2025-01-03T03:04:05Z\n",
			},
		},
		{
			name: "after failed, a dependency removed by retention",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateDependencyFailed
				d.After = &client.AfterDetail{Status: "failed", Reason: "db-1 ended ERROR", Dependencies: []client.Dependency{
					{Id: "db-1", State: client.DeploymentStateError}, {Id: "old-1"}}}
			},
			want:    []string{"After       failed: db-1 (ERROR), old-1 (removed); db-1 ended ERROR\n"},
			notWant: []string{"After expires"},
		},
		{
			name: "waited on by two deploys",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateSuccess
				d.Dependents = []client.Dependency{
					{Id: "api-1", State: client.DeploymentStatePending}, {Id: "web-1", State: client.DeploymentStateWaitingDependency}}
			},
			want:    []string{"Waited on by  api-1 (PENDING), web-1 (WAITING_DEPENDENCY)\n"},
			notWant: []string{"After"},
		},
		{
			name: "after and waited on by",
			change: func(d *client.DeploymentDetail) {
				d.After = &client.AfterDetail{Status: "satisfied", Dependencies: []client.Dependency{
					{Id: "db-1", State: client.DeploymentStateSuccess}}}
				d.Dependents = []client.Dependency{{Id: "web-1", State: client.DeploymentStateError}}
			},
			want: []string{
				"After         satisfied: db-1 (SUCCESS)\n",
				"Waited on by  web-1 (ERROR)\n",
			},
		},
		{
			// The status is printed as the server gives it: a cancelled deploy
			// no longer waits, and its expiry means nothing.
			name: "approval of a cancelled deploy",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateCancelled
				d.Approval = &client.ApprovalDetail{Status: "cancelled", Required: 1, ExpiresAt: t0.Add(24 * time.Hour)}
			},
			want:    []string{"Approval    cancelled, 0 of 1\n"},
			notWant: []string{"waiting", "needed", "Expires"},
		},
		{
			name: "expired approval",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateExpired
				d.Approval = &client.ApprovalDetail{Status: "expired", Required: 1, ExpiresAt: t0.Add(24 * time.Hour)}
			},
			want: []string{"Approval    expired, 0 of 1\n", "Expired     2025-01-03T03:04:05Z\n"},
		},
		{
			name: "exports",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateSuccess
				d.Exports = []client.Export{
					{Name: "db_host", Format: "string", Value: "db.internal"},
					{Name: "notes", Format: "string", Value: "a\nb"},
					{Name: "vms", Format: "targets", Public: true,
						Value: `[{"host":"10.20.0.1"},{"host":"10.20.0.2","port":2222,"user":"deploy"},"10.20.0.3"]`},
				}
			},
			want: []string{
				"EXPORT   FORMAT           VALUE\n",
				"db_host  string           db.internal\n",
				"notes    string           a\\nb\n",
				"vms      targets, public  10.20.0.1, deploy@10.20.0.2:2222, 10.20.0.3\n",
			},
		},
		{name: "no exports", change: func(*client.DeploymentDetail) {}, notWant: []string{"EXPORT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment("hello-1", client.DeploymentStatePending)
			d.Environment = "prod"
			tt.change(&d)
			var buf bytes.Buffer
			if err := statusTable(&buf, &d); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("lacks %q:\n%s", w, buf.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(buf.String(), w) {
					t.Errorf("has %q:\n%s", w, buf.String())
				}
			}
		})
	}
}
