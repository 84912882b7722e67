package engine_test

import (
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestWaveApprovalAfterExpiryNeverCounts: the approval of a wave
// expires at expires_at, measured from its recorded start. An answer given
// after that (while the worker was down, or before the workflow woke)
// must not let the wave start: the store takes it as long as the record is
// RUNNING, and the workflow counts the answers before it looks at the
// clock.
func TestWaveApprovalAfterExpiryNeverCounts(t *testing.T) {
	const expiry = 3 * time.Second
	gov := &fakeGovernor{decide: func(in deploy.GovernanceInput) (deploy.Decision, error) {
		return deploy.Decision{Rule: "fleet-approval", Requires: []string{"approvals"},
			Approvals: &deploy.ApprovalRequirement{Count: 1, Expiry: expiry}}, nil
	}}
	first := &fleetEnv{env: newEnvWith(t, envOptions{governor: gov, executorID: "wexp"}), targets: map[string]string{}}
	writeRelease(t, first.dir, "1.0.0")
	first.addFleet("govexp", []string{"a", "b"}, approvalRollout)
	first.submitTo("wx", "govexp", "1.0.0")
	first.waitState("wx", deploy.StateAwaitingApproval)
	if _, err := first.eng.Approve(as(first.env, "token:ops1"), "wx", ""); err != nil {
		t.Fatal(err)
	}
	d := first.waitAwaiting("wx")
	expires := *d.RolloutStatus().Waves[1].Approval.ExpiresAt
	_ = first.eng.Shutdown(5 * time.Second)

	time.Sleep(time.Until(expires) + time.Second)
	late := deploy.Approval{DeploymentID: "wx", Pass: 2, Identity: "token:ops2", Approved: true, Comment: "late", Time: time.Now().UTC()}
	if err := first.store.AddApproval(first.ctx, late, nil); err != nil {
		if deploy.ErrorCode(err) != deploy.ECONFLICT {
			t.Fatalf("an approval after the expiry: %v, want CONFLICT", err)
		}
	}

	second := newEnvWith(t, envOptions{url: first.url, dir: first.dir, executorID: "wexp", plugin: first.plugin, governor: gov})
	d = second.wait("wx", func(d *deploy.Deployment) bool { return d.State.Terminal() })
	if d.State != deploy.StateError || !strings.Contains(d.Error, "expired") {
		t.Fatalf("deploy %s (%q), wave two's approval %s: an approval given %s after expires_at let the wave start",
			d.State, d.Error, d.RolloutStatus().Waves[1].Approval.Status, time.Second)
	}
}

// TestAbortedApprovalIsNotExpired: an abort of a rollout whose wave
// awaits approval ends the approval "cancelled" (docs/rollouts.md), whatever
// the abort's free-text reason says; the status tells "expired" from the
// word in the record's error, so a reason with "expired" in it is told as
// an expiry that never happened.
func TestAbortedApprovalIsNotExpired(t *testing.T) {
	f := approvalFleet(t, 1, time.Hour)
	f.addFleet("wabort", []string{"a", "b"}, approvalRollout)
	f.submitTo("wab", "wabort", "1.0.0")
	f.waitAwaiting("wab")
	if _, err := f.eng.AbortRollout(f.ctx, "wab", "the change ticket expired"); err != nil {
		t.Fatal(err)
	}
	d := f.waitState("wab", deploy.StateError)
	if got := d.RolloutStatus().Waves[1].Approval.Status; got != "cancelled" {
		t.Fatalf("wave two's approval %q after an abort (%q), want cancelled", got, d.Error)
	}
}
