package main

import (
	"bytes"
	"encoding/json"
	"math"
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
			name: "a rollout in its second wave",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStatePending
				d.Status = json.RawMessage(`{"rollout": {"state": "running", "current_wave": "eu", "waves": [
					{"name": "canary", "state": "passed"}, {"name": "eu", "state": "baking"}, {"name": "rest", "state": "pending"}],
					"targets": [{"name": "a", "outcome": "targeted", "state": "SUCCESS"}, {"name": "b", "outcome": "targeted", "state": "SUCCESS"},
					{"name": "c", "outcome": "targeted", "state": "PENDING"}, {"name": "d", "outcome": "excluded", "state": "SKIPPED"}]}}`)
			},
			want: []string{"Rollout: running, wave eu (2 of 3), 2/3 targets\n"},
		},
		{
			name:    "no decision, no change, no after, no dependents",
			change:  func(*client.DeploymentDetail) {},
			notWant: []string{"Governance", "Change ", "After", "Waited on by", "Rollout", "Made from"},
		},
		{
			name:   "a promotion",
			change: func(d *client.DeploymentDetail) { d.PromotedFrom = "hello-staging-b2d1de04" },
			want:   []string{"Made from   hello-staging-b2d1de04\n"},
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
		{
			name: "cancelled at a step boundary",
			change: func(d *client.DeploymentDetail) {
				d.State, d.CancelledBy = client.DeploymentStateCancelled, "token:ops"
				d.Error = "cancelled by token:ops after step deploy, before post-test"
			},
			want: []string{"Cancelled by  token:ops\n", "Error         cancelled by token:ops after step deploy, before post-test\n"},
		},
		{name: "not cancelled", change: func(*client.DeploymentDetail) {}, notWant: []string{"Cancelled by", "Starts at"}},
		{
			name: "delayed",
			change: func(d *client.DeploymentDetail) {
				d.State, d.StartAt = client.DeploymentStateDelayed, t0.Add(time.Hour)
			},
			want: []string{"Starts at   2025-01-02T04:04:05Z (schedule.at)\n"},
		},
		{
			name: "rolled back",
			change: func(d *client.DeploymentDetail) {
				*d = *rolledBack(client.RollbackStateCompleted)
			},
			want: []string{
				"Rollback    completed, 1 compensation\n",
				"checkpoint:deploy  checkpoint  SUCCESS  1         2025-01-02T03:04:06Z  300ms     -\n",
				"post-test          run         ERROR    1         2025-01-02T03:04:07Z  1.0s      health: 404 Not Found\n",
				"COMPENSATION     STATE    ATTEMPTS  STARTED               DURATION  ERROR\n",
				"rollback:deploy  SUCCESS  1         2025-01-02T03:04:08Z  500ms     -\n",
			},
		},
		{
			name: "rollback failed",
			change: func(d *client.DeploymentDetail) {
				*d = *rolledBack(client.RollbackStateFailed)
				d.Rollback.Steps[0].State, d.Rollback.Steps[0].Error = client.StepStateError, "remove releases/1.1.0: permission denied"
			},
			want: []string{
				"Rollback    failed at rollback:deploy\n",
				"rollback:deploy  ERROR  1         2025-01-02T03:04:08Z  500ms     remove releases/1.1.0: permission denied\n",
			},
		},
		{
			name: "rollback disabled",
			change: func(d *client.DeploymentDetail) {
				d.State, d.Error = client.DeploymentStateError, "step post-test failed"
				d.Rollback = &client.RollbackDetail{State: client.RollbackStateDisabled}
			},
			want:    []string{"Rollback    disabled\n"},
			notWant: []string{"COMPENSATION"},
		},
		{
			name: "a success needs no rollback: nothing said",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateSuccess
				d.Rollback = &client.RollbackDetail{State: client.RollbackStateNotNeeded}
			},
			notWant: []string{"Rollback", "COMPENSATION"},
		},
		{
			name: "a failure in a step the policy does not cover",
			change: func(d *client.DeploymentDetail) {
				d.State = client.DeploymentStateError
				d.Rollback = &client.RollbackDetail{State: client.RollbackStateNotNeeded}
			},
			want: []string{"Rollback    not_needed\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment("hello-1", client.DeploymentStatePending)
			d.Environment = "prod"
			tt.change(&d)
			var buf bytes.Buffer
			if err := statusTable(&buf, &d, t0); err != nil {
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

// rolledBack is a deploy whose post-test failed and whose deploy step was
// compensated, with the status JSON the server would give.
func rolledBack(state client.RollbackState) *client.DeploymentDetail {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	op := func(name string, kind client.StepKind, pos int, st client.StepState, from, to float64, errMsg string) client.StepDetail {
		return client.StepDetail{Name: name, Kind: kind, Position: pos, Type: "standard", State: st, Attempts: 1,
			StartedAt: at(from), FinishedAt: at(to), DurationMs: int(math.Round((to - from) * 1000)), Error: errMsg}
	}
	d := deployment("hello-2", client.DeploymentStateError,
		op("config", client.StepKindRun, 0, client.StepStateSuccess, 0.5, 0.7, ""),
		op("checkpoint:deploy", client.StepKindCheckpoint, 1, client.StepStateSuccess, 1, 1.3, ""),
		op("deploy", client.StepKindRun, 1, client.StepStateSuccess, 1.3, 2, ""),
		op("post-test", client.StepKindRun, 2, client.StepStateError, 2, 3, "health: 404 Not Found"),
		client.StepDetail{Name: "activation", Kind: client.StepKindRun, Position: 3, Type: "standard", State: client.StepStateSkipped},
	)
	d.Error = "step post-test failed"
	d.Rollback = &client.RollbackDetail{State: state, Steps: []client.StepDetail{
		op("rollback:deploy", client.StepKindRollback, 500, client.StepStateSuccess, 3, 3.5, ""),
	}}
	d.Status = json.RawMessage(`{"id":"hello-2","state":"ERROR","steps":[` +
		`{"name":"config","type":"standard","kind":"run","state":"SUCCESS","attempts":1,"started_at":"2025-01-02T03:04:05.5Z","finished_at":"2025-01-02T03:04:05.7Z","output":{"revision":"abc"},"error":null},` +
		`{"name":"checkpoint:deploy","type":"standard","kind":"checkpoint","state":"SUCCESS","attempts":1,"started_at":"2025-01-02T03:04:06Z","finished_at":"2025-01-02T03:04:06.3Z","output":{},"error":null},` +
		`{"name":"deploy","type":"standard","kind":"run","state":"SUCCESS","attempts":1,"started_at":"2025-01-02T03:04:06.3Z","finished_at":"2025-01-02T03:04:07Z","output":{"release":"1.1.0"},"error":null},` +
		`{"name":"post-test","type":"standard","kind":"run","state":"ERROR","attempts":1,"started_at":"2025-01-02T03:04:07Z","finished_at":"2025-01-02T03:04:08Z","output":{},"error":"health: 404 Not Found"},` +
		`{"name":"activation","type":"standard","kind":"run","state":"SKIPPED","attempts":0,"started_at":null,"finished_at":null,"output":{},"error":null}],` +
		`"rollback":{"state":"` + strings.ToLower(string(state)) + `","steps":[` +
		`{"name":"rollback:deploy","state":"SUCCESS","started_at":"2025-01-02T03:04:08Z","finished_at":"2025-01-02T03:04:08.5Z","error":null}]},` +
		`"error":"step post-test failed"}`)
	return &d
}
