package engine_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// approvalFleet is an engine whose governance asks, in the environments
// whose name starts with "gov", count approvals within expiry; elsewhere
// none. Its environments are made with addFleet.
func approvalFleet(t *testing.T, count int, expiry time.Duration) *fleetEnv {
	t.Helper()
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		if !strings.HasPrefix(in.Environment, "gov") {
			return deploy.Decision{}, nil
		}
		return deploy.Decision{Rule: "fleet-approval", Requires: []string{"approvals"},
			Approvals: &deploy.ApprovalRequirement{Count: count, Expiry: expiry}}, nil
	}}
	f := &fleetEnv{env: newEnvWith(t, envOptions{governor: gov}), targets: map[string]string{}}
	writeRelease(t, f.dir, "1.0.0")
	return f
}

// waitAwaiting blocks until the rollout of id awaits the approval of a wave.
func (e *env) waitAwaiting(id string) *deploy.Deployment {
	e.t.Helper()
	return e.wait(id, func(d *deploy.Deployment) bool {
		if d.State.Terminal() {
			e.t.Fatalf("deploy %s ended %s (%s) before a wave awaited approval", id, d.State, d.Error)
		}
		st := d.RolloutStatus()
		return st != nil && st.State == deploy.RolloutAwaitingApproval
	})
}

const approvalRollout = `rollback: {enabled: true, on: [deploy, activation]}
rollout:
  waves: [{name: one, count: 1}, {name: two, approval: true}]
`

// TestRolloutWaveApproval: a wave with approval: true waits, once the wave
// before it passed, for an approval by another identity than the
// requester (one when the governance asks none); it then runs. A viewer
// and the requester are refused, and the pending wave is in the approver's
// list of pending approvals.
func TestRolloutWaveApproval(t *testing.T) {
	f := approvalFleet(t, 2, time.Hour)
	dirs := f.addFleet("wapp", []string{"a", "b"}, approvalRollout)
	f.submitTo("wa", "wapp", "1.0.0")
	d := f.waitAwaiting("wa")
	if d.State != deploy.StatePending {
		t.Fatalf("state %s while a wave awaits approval, want PENDING", d.State)
	}
	st := d.RolloutStatus()
	one, two := st.Waves[0], st.Waves[1]
	if one.State != deploy.WavePassed || two.State != deploy.WaveAwaitingApproval || st.CurrentWave == nil || *st.CurrentWave != "two" {
		t.Fatalf("waves %s, %s (current %v): want passed, awaiting_approval", one.State, two.State, st.CurrentWave)
	}
	if a := two.Approval; a == nil || a.Status != "waiting" || a.Required != 1 || a.ExpiresAt == nil ||
		a.ExpiresAt.Sub(*stepKey(d, deploy.StepKey{Step: deploy.StepApproval, Pass: 2, Kind: deploy.KindRun}).StartedAt) != deploy.DefaultWaveApprovalExpiry {
		t.Fatalf("wave two's approval %+v: want one, waiting, for 24h", two.Approval)
	}
	if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
		t.Fatalf("wave two touched before its approval: %v", err)
	}
	if _, err := f.eng.Approve(f.ctx, "wa", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("the requester's approval: %v, want FORBIDDEN", err)
	}
	if _, err := f.eng.Approve(as(f.env, "token:viewer"), "wa", ""); deploy.ErrorCode(err) != deploy.EFORBIDDEN {
		t.Fatalf("a viewer's approval: %v, want FORBIDDEN", err)
	}
	pending, err := f.eng.PendingApprovals(as(f.env, "token:ops1"))
	if err != nil || !slices.ContainsFunc(pending, func(p deploy.Deployment) bool { return p.ID == "wa" }) {
		t.Fatalf("pending approvals of ops1: %v, %v; want wa in them", pending, err)
	}
	if _, err := f.eng.Approve(as(f.env, "token:ops1"), "wa", "canary looks fine"); err != nil {
		t.Fatal(err)
	}
	d = f.waitState("wa", deploy.StateSuccess)
	st = d.RolloutStatus()
	a := st.Waves[1].Approval
	if a == nil || a.Status != "approved" || len(a.Approvals) != 1 || a.Approvals[0].Identity != "token:ops1" {
		t.Fatalf("wave two's approval after: %+v", a)
	}
	if len(d.Approvals) != 0 {
		t.Fatalf("the deploy's own approvals %+v: a wave's answers are kept apart", d.Approvals)
	}
	if got := currentIn(dirs["b"]); got != "1.0.0" {
		t.Fatalf("target b runs %q", got)
	}
	if by := f.auditActors("deployment.rollout.approve", "wa"); !slices.Equal(by, []string{"token:ops1"}) {
		t.Fatalf("audit of the wave's approval: %v", by)
	}
}

// currentIn is the release the target in dir has in service ("" for none).
func currentIn(dir string) string {
	link, err := os.Readlink(dir + "/current")
	if err != nil {
		return ""
	}
	return link[strings.LastIndex(link, "/")+1:]
}

// TestRolloutWaveApprovalEnds: under a governance asking approvals, the
// deploy is approved first, then each wave with approval: true asks the
// same again; a rejection aborts the rollout and rolls the waves done back,
// and so does the expiry.
func TestRolloutWaveApprovalEnds(t *testing.T) {
	const expiry = 3 * time.Second
	f := approvalFleet(t, 1, expiry)
	tests := []struct {
		name    string
		reject  bool
		wantErr string
	}{
		{"rejected", true, "wave two rejected by token:ops2: not today"},
		{"expired", false, "the approval of wave two expired at "},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("gov%d", i)
			id := "wend-" + name
			dirs := f.addFleet(name, []string{"a", "b"}, approvalRollout)
			f.submitTo(id, name, "1.0.0")
			f.waitState(id, deploy.StateAwaitingApproval)
			if _, err := f.eng.Approve(as(f.env, "token:ops1"), id, ""); err != nil {
				t.Fatal(err)
			}
			d := f.waitAwaiting(id)
			if a := d.RolloutStatus().Waves[1].Approval; a == nil || a.Required != 1 || len(a.Approvals) != 0 {
				t.Fatalf("wave two's approval %+v: want one more, apart from the deploy's", a)
			}
			if tt.reject {
				if _, err := f.eng.Reject(as(f.env, "token:ops2"), id, "not today"); err != nil {
					t.Fatal(err)
				}
			}
			d = f.waitState(id, deploy.StateError)
			if !strings.HasPrefix(d.Error, tt.wantErr) || d.Rollback != deploy.RollbackCompleted {
				t.Fatalf("error %q, rollback %q; want %q, completed", d.Error, d.Rollback, tt.wantErr)
			}
			st := d.RolloutStatus()
			if st.Waves[0].State != deploy.WaveRolledBack || st.Waves[1].State != deploy.WaveSkipped {
				t.Fatalf("waves %s, %s: want rolled_back, skipped", st.Waves[0].State, st.Waves[1].State)
			}
			if want := map[bool]string{true: "rejected", false: "expired"}[tt.reject]; st.Waves[1].Approval.Status != want {
				t.Fatalf("wave two's approval %s, want %s", st.Waves[1].Approval.Status, want)
			}
			if currentIn(dirs["a"]) != "" {
				t.Fatalf("target a still runs a release after the rollback")
			}
			if _, err := os.Stat(dirs["b"]); !os.IsNotExist(err) {
				t.Fatalf("wave two touched: %v", err)
			}
		})
	}
}
