package postgres_test

import (
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// waiting creates a deploy in one of the lifecycle's initial states.
func (f *fixture) waiting(id string, state deploy.State) {
	f.t.Helper()
	d := deployment(id, "staging")
	d.State = state
	f.create(d)
}

func TestTransition(t *testing.T) {
	f := newFixture(t)
	f.waiting("dep", deploy.StateWaitingDependency)
	f.waiting("later", deploy.StateDelayed)
	f.create(deployment("queued", "staging"))
	f.ended(deployment("done", "staging"), deploy.Outcome{State: deploy.StateSuccess})
	expires := time.Date(2026, 7, 1, 12, 0, 0, 123456789, time.UTC)
	tests := []struct {
		name, id string
		to       deploy.State
		expires  *time.Time
		want     bool
		state    deploy.State
	}{
		{"the dependencies are done, the time is not", "dep", deploy.StateDelayed, nil, true, deploy.StateDelayed},
		// The step that moves it may run again after a crash.
		{"again", "dep", deploy.StateDelayed, nil, true, deploy.StateDelayed},
		{"time reached, approvals next", "later", deploy.StateAwaitingApproval, &expires, true, deploy.StateAwaitingApproval},
		{"not from a queued deploy", "queued", deploy.StateDelayed, nil, false, deploy.StateEnqueued},
		{"not back to waiting", "later", deploy.StateWaitingDependency, nil, false, deploy.StateAwaitingApproval},
		{"not from a final state", "done", deploy.StateAwaitingApproval, nil, false, deploy.StateSuccess},
		{"unknown", "nope", deploy.StateDelayed, nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.store.Transition(f.ctx, tt.id, tt.to, tt.expires)
			if err != nil || got != tt.want {
				t.Fatalf("Transition(%s, %s) = %v, %v; want %v", tt.id, tt.to, got, err, tt.want)
			}
			if tt.state == "" {
				return
			}
			if d := f.get(tt.id); d.State != tt.state {
				t.Errorf("state %s, want %s", d.State, tt.state)
			}
		})
	}
	if d := f.get("later"); d.ApprovalExpiresAt == nil || !d.ApprovalExpiresAt.Equal(expires.Truncate(time.Microsecond)) {
		t.Errorf("approval expiry %v, want %v", d.ApprovalExpiresAt, expires)
	}
}

func TestEnqueueWaiting(t *testing.T) {
	f := newFixture(t)
	for id, state := range map[string]deploy.State{
		"approved": deploy.StateAwaitingApproval, "refused": deploy.StateDelayed, "deps": deploy.StateWaitingDependency,
		"cancelled": deploy.StateAwaitingApproval,
	} {
		f.waiting(id, state)
	}
	f.create(deployment("queued", "staging"))
	if _, err := f.store.RequestCancel(f.ctx, "cancelled", "token:ops"); err != nil {
		t.Fatal(err)
	}
	if err := f.exec("CREATE TABLE queue (id text)"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id string
		fail     bool
		want     bool
		enqueued int
		state    deploy.State
	}{
		{"approved", "approved", false, true, 1, deploy.StateEnqueued},
		{"dependencies done", "deps", false, true, 1, deploy.StateEnqueued},
		{"the enqueue fails: nothing moves", "refused", true, false, 0, deploy.StateDelayed},
		{"cancelled meanwhile", "cancelled", false, false, 0, deploy.StateCancelled},
		{"already queued", "queued", false, false, 0, deploy.StateEnqueued},
		{"unknown", "nope", false, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			moved, err := f.store.EnqueueWaiting(f.ctx, tt.id, func(tx any, j deploy.Job) error {
				// The job the wait lets go is the one submitted, read
				// back from the row in the same transaction.
				if want := deployment(tt.id, "staging"); !reflect.DeepEqual(j, want.Job()) {
					t.Errorf("job = %+v\nwant %+v", j, want.Job())
				}
				if _, err := tx.(*sql.Tx).ExecContext(f.ctx, "INSERT INTO queue VALUES ($1)", tt.id); err != nil {
					return err
				}
				if tt.fail {
					return errors.New("queue refused")
				}
				return nil
			})
			if (err != nil) != tt.fail || moved != tt.want {
				t.Fatalf("EnqueueWaiting = %v, %v; want %v (fails %v)", moved, err, tt.want, tt.fail)
			}
			if n := f.count("SELECT count(*) FROM queue WHERE id = ?", tt.id); n != tt.enqueued {
				t.Errorf("enqueued %d times, want %d", n, tt.enqueued)
			}
			if tt.state != "" {
				if d := f.get(tt.id); d.State != tt.state {
					t.Errorf("state %s, want %s", d.State, tt.state)
				}
			}
		})
	}
}

// FinishDeployment ends the deploys that a wait (or a failed workflow)
// ends, once, guarded by the lifecycle.
func TestFinishDeployment(t *testing.T) {
	f := newFixture(t)
	f.waiting("expired", deploy.StateAwaitingApproval)
	f.waiting("rejected", deploy.StateAwaitingApproval)
	f.waiting("dep-failed", deploy.StateWaitingDependency)
	f.waiting("not-approvals", deploy.StateDelayed)
	f.create(deployment("queued", "staging"))
	end := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name   string
		o      deploy.Outcome
		state  deploy.State
		audits int
		code   deploy.Code
	}{
		{"approvals expired", deploy.Outcome{ID: "expired", State: deploy.StateExpired, Error: "0 of 1 approvals", FinishedAt: end, Actor: "token:ops"},
			deploy.StateExpired, 1, ""},
		// A re-run of the workflow step after a crash changes nothing.
		{"again, with another outcome", deploy.Outcome{ID: "expired", State: deploy.StateError, Error: "late"}, deploy.StateExpired, 1, ""},
		{"again, the same", deploy.Outcome{ID: "expired", State: deploy.StateExpired, Error: "later"}, deploy.StateExpired, 1, ""},
		{"rejected", deploy.Outcome{ID: "rejected", State: deploy.StateRejected, Error: "rejected by bob"}, deploy.StateRejected, 1, ""},
		{"dependency failed", deploy.Outcome{ID: "dep-failed", State: deploy.StateDependencyFailed}, deploy.StateDependencyFailed, 1, ""},
		{"a failure of manent's own", deploy.Outcome{ID: "queued", State: deploy.StateError, Error: "internal"}, deploy.StateError, 1, ""},
		{"not a move of the lifecycle", deploy.Outcome{ID: "not-approvals", State: deploy.StateRejected}, deploy.StateDelayed, 0, ""},
		{"unknown", deploy.Outcome{ID: "nope", State: deploy.StateError}, "", 0, deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, f.store.FinishDeployment(f.ctx, tt.o), tt.code)
			if tt.state == "" {
				return
			}
			d := f.get(tt.o.ID)
			if d.State != tt.state {
				t.Errorf("state %s, want %s", d.State, tt.state)
			}
			if d.State.Terminal() && (d.FinishedAt == nil || d.CurrentStep != "") {
				t.Errorf("final deploy: finished %v, current step %q", d.FinishedAt, d.CurrentStep)
			}
			if n := f.audit("deployment.finish", tt.o.ID); n != tt.audits {
				t.Errorf("%d deployment.finish entries, want %d", n, tt.audits)
			}
		})
	}
	if d := f.get("expired"); !d.FinishedAt.Equal(end) || d.Error != "0 of 1 approvals" {
		t.Errorf("expired: finished %v, error %q", d.FinishedAt, d.Error)
	}
	// The entry names the actor, or the requester when none is given.
	for id, actor := range map[string]string{"expired": "token:ops", "rejected": "token:ci"} {
		if n := f.count("SELECT count(*) FROM manent.audit WHERE action = 'deployment.finish' AND target = ? AND actor = ?", id, actor); n != 1 {
			t.Errorf("%s: no deployment.finish entry by %s", id, actor)
		}
	}
	if err := f.store.FinishDeployment(f.ctx, deploy.Outcome{ID: "not-approvals", State: deploy.StatePending}); err == nil {
		t.Errorf("finish with a state that is not final succeeded")
	}
}
