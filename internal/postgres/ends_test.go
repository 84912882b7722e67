package postgres_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// auditEntry is an audit entry as the tests below read it back.
type auditEntry struct {
	Actor   string
	Details map[string]any
}

// audits returns the entries of action on target, oldest first.
func (f *fixture) audits(action, target string) []auditEntry {
	f.t.Helper()
	var rows []struct {
		Actor   string `bun:"actor"`
		Details string `bun:"details"`
	}
	if err := f.db.Bun().NewRaw(`SELECT actor, details::text AS details FROM manent.audit WHERE action = ? AND target = ? ORDER BY id`,
		action, target).Scan(f.ctx, &rows); err != nil {
		f.t.Fatal(err)
	}
	out := make([]auditEntry, len(rows))
	for i, r := range rows {
		out[i].Actor = r.Actor
		if err := json.Unmarshal([]byte(r.Details), &out[i].Details); err != nil {
			f.t.Fatal(err)
		}
	}
	return out
}

// A cancel records who asked for it and, for a deploy that had not started,
// where it stood and its end (deployment.finish); a cancel that ends a wait
// for dependencies ends that wait in the audit log too (after.finish), in
// the same transaction.
func TestCancelRecordsWhoAndWhere(t *testing.T) {
	f := newFixture(t)
	waiting := deployment("waits", "a")
	waiting.State = deploy.StateWaitingDependency
	waiting.Descriptor.After = []string{"db-1", "db-2"}
	f.create(waiting)
	approval := deployment("approval", "b")
	approval.State = deploy.StateAwaitingApproval
	f.create(approval)
	f.pending("running", "c")
	tests := []struct {
		name, id    string
		actors      []string
		state       deploy.State
		err         string
		afterFinish []auditEntry
	}{
		{name: "waiting for dependencies", id: "waits", actors: []string{"token:ops"}, state: deploy.StateCancelled,
			err: "cancelled by token:ops while WAITING_DEPENDENCY",
			afterFinish: []auditEntry{{Actor: "token:ops", Details: map[string]any{"state": "CANCELLED",
				"reason": "cancelled by token:ops while WAITING_DEPENDENCY", "after": []any{"db-1", "db-2"}}}}},
		{name: "awaiting approval", id: "approval", actors: []string{"token:ops"}, state: deploy.StateCancelled,
			err: "cancelled by token:ops while AWAITING_APPROVAL"},
		// The run stops at its next step, which names the first to ask.
		{name: "running, asked twice", id: "running", actors: []string{"token:ops", "token:other"}, state: deploy.StatePending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, actor := range tt.actors {
				if _, err := f.store.RequestCancel(f.ctx, tt.id, actor); err != nil {
					t.Fatal(err)
				}
			}
			d := f.get(tt.id)
			if d.State != tt.state || d.CancelledBy != tt.actors[0] || d.Error != tt.err {
				t.Errorf("state %s, cancelled by %q, error %q; want %s, %q, %q", d.State, d.CancelledBy, d.Error,
					tt.state, tt.actors[0], tt.err)
			}
			// The status names the canceller once the deploy is CANCELLED,
			// not while a run finishes its step.
			want := ""
			if tt.state == deploy.StateCancelled {
				want = tt.actors[0]
			}
			if got := deploy.NewStatus(d).CancelledBy; (got == nil) != (want == "") || (got != nil && *got != want) {
				t.Errorf("status cancelled_by = %v, want %q", got, want)
			}
			// A cancel at once is the deploy's end: deployment.finish under
			// the canceller, in the cancel's transaction.
			if finish := f.audits("deployment.finish", tt.id); tt.state == deploy.StateCancelled &&
				(len(finish) != 1 || finish[0].Actor != tt.actors[0] || finish[0].Details["state"] != "CANCELLED") {
				t.Errorf("deployment.finish entries %+v, want one CANCELLED by %s", finish, tt.actors[0])
			} else if tt.state != deploy.StateCancelled && len(finish) != 0 {
				t.Errorf("deployment.finish entries %+v for a deploy still running", finish)
			}
			if got := f.audits("after.finish", tt.id); !reflect.DeepEqual(got, tt.afterFinish) && (len(got) > 0 || len(tt.afterFinish) > 0) {
				t.Errorf("after.finish entries = %+v, want %+v", got, tt.afterFinish)
			}
		})
	}
}

// The wait for dependencies that fails ends the deploy and writes its
// after.finish entry in one transaction; a step that finishes it again
// after a crash writes nothing more.
func TestDependencyFailedWritesAfterFinishOnce(t *testing.T) {
	f := newFixture(t)
	d := deployment("waits", "a")
	d.State = deploy.StateWaitingDependency
	d.Descriptor.After = []string{"db-1"}
	f.create(d)
	o := deploy.Outcome{ID: "waits", State: deploy.StateDependencyFailed, Error: "dependency did not succeed: db-1 ended ERROR",
		FinishedAt: time.Now(), Actor: "token:ci"}
	for range 2 {
		if err := f.store.FinishDeployment(f.ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	want := []auditEntry{{Actor: "token:ci", Details: map[string]any{"state": "DEPENDENCY_FAILED",
		"reason": "dependency did not succeed: db-1 ended ERROR", "after": []any{"db-1"}}}}
	if got := f.audits("after.finish", "waits"); !reflect.DeepEqual(got, want) {
		t.Errorf("after.finish entries = %+v, want %+v", got, want)
	}
}

// A rejection ends the deploy REJECTED in the transaction that records it,
// so whoever rejects reads the state the rejection produced; an approval
// leaves it waiting for the others, and the requester's own answer (which
// the service refuses) ends nothing.
func TestRejectionEndsTheDeploy(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"rejected", "approved", "own"} {
		d := deployment(id, id)
		d.State = deploy.StateAwaitingApproval
		d.Decision.Approvals = &deploy.ApprovalRequirement{Count: 2}
		f.create(d)
	}
	tests := []struct {
		name, id, who string
		approved      bool
		state         deploy.State
		err           string
		finishedBy    string
	}{
		{"rejected", "rejected", "token:ops", false, deploy.StateRejected, "rejected by token:ops: not today", "token:ops"},
		{"approved", "approved", "token:ops", true, deploy.StateAwaitingApproval, "", ""},
		{"by the requester", "own", "token:ci", false, deploy.StateAwaitingApproval, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.store.AddApproval(f.ctx, deploy.Approval{DeploymentID: tt.id, Identity: tt.who,
				Approved: tt.approved, Comment: "not today", Time: time.Now()}, nil); err != nil {
				t.Fatal(err)
			}
			d := f.get(tt.id)
			if d.State != tt.state || d.Error != tt.err {
				t.Errorf("state %s, error %q; want %s, %q", d.State, d.Error, tt.state, tt.err)
			}
			finish := f.audits("deployment.finish", tt.id)
			switch {
			case tt.finishedBy == "" && len(finish) > 0:
				t.Errorf("deployment.finish written for a deploy still waiting: %+v", finish)
			case tt.finishedBy != "" && (len(finish) != 1 || finish[0].Actor != tt.finishedBy || d.FinishedAt == nil):
				t.Errorf("deployment.finish = %+v, finished_at %v; want one entry by %s", finish, d.FinishedAt, tt.finishedBy)
			}
			if tt.state == deploy.StateRejected {
				if st := deploy.NewStatus(d); st.Approval == nil || st.Approval.Status != "rejected" {
					t.Errorf("approval section %+v, want rejected", st.Approval)
				}
			}
		})
	}
}

// A retry shows in the record of the running operation; the end keeps the
// highest count, and an operation that ended is left alone.
func TestRecordAttempt(t *testing.T) {
	f := newFixture(t)
	f.pending("d", "a")
	key := deploy.StepKey{Step: deploy.StepDeploy, Kind: deploy.KindRun}
	start := deploy.Step{DeploymentID: "d", Name: deploy.StepDeploy, Kind: deploy.KindRun, Position: 2, Type: "standard", State: deploy.StepRunning}
	f.begin(start)
	attempts := func() int { return step(f.get("d"), deploy.StepDeploy).Attempts }
	if n := attempts(); n != 1 {
		t.Fatalf("a step that starts makes attempt %d, want 1", n)
	}
	for _, n := range []int{2, 3, 2} {
		if err := f.store.RecordAttempt(f.ctx, "d", key, n); err != nil {
			t.Fatal(err)
		}
	}
	if n := attempts(); n != 3 {
		t.Fatalf("attempts while it runs = %d, want 3", n)
	}
	end := start
	end.State, end.Attempts = deploy.StepError, 3
	if _, err := f.advance(&end, deploy.StepEffects{}, nil, deploy.BeginOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.RecordAttempt(f.ctx, "d", key, 4); err != nil {
		t.Fatal(err)
	}
	if n := attempts(); n != 3 {
		t.Fatalf("attempts after the end = %d, want 3", n)
	}
}
