package engine_test

import (
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// Regression tests of the review of issue 9 (they fail on r9 as reviewed).

// A deploy cancelled before it ran (waiting for approval, for its
// dependencies, or queued) ends CANCELLED at once, but no deployment.finish
// audit entry is written for it, while docs/concepts.md (Cancel),
// docs/api.md and docs/security.md say the cancel's deployment.cancel and
// deployment.finish entries are written under the canceller.
func TestReviewImmediateCancelWritesDeploymentFinish(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(1, time.Hour)})
	e.submit("r9-cancel-waiting", "app", "prod")
	d, err := e.eng.Cancel(as(e, "token:admin"), "r9-cancel-waiting")
	if err != nil || d.State != deploy.StateCancelled {
		t.Fatalf("cancel = %+v, %v", d, err)
	}
	// Give a workflow that would write it later the time to do so.
	time.Sleep(2 * time.Second)
	if by := e.auditActors("deployment.finish", "r9-cancel-waiting"); len(by) != 1 || by[0] != "token:admin" {
		t.Fatalf("deployment.finish of an immediately cancelled deploy by %q, want once by token:admin", by)
	}
}

// A cancel requested while the last step before cleanup runs cannot stop
// anything: the deploy ends SUCCESS. It then still shows "Cancelled by"
// (cancelled_by, GraphQL cancelledBy) next to State SUCCESS, and its
// deployment.finish entry is written under the canceller: the views say a
// deploy that succeeded was cancelled.
func TestReviewSucceededDeployIsNotShownCancelled(t *testing.T) {
	e := newEnvWith(t, envOptions{steps: []string{
		"{name: artifacts, mode: mandatory}",
		"{name: deploy, mode: mandatory}",
	}})
	gates := blockDeploys(e, "r9-late-cancel")
	e.submit("r9-late-cancel", "app", "staging")
	<-gates["r9-late-cancel:started"]
	if _, err := e.eng.Cancel(as(e, "token:admin"), "r9-late-cancel"); err != nil {
		t.Fatal(err)
	}
	close(gates["r9-late-cancel"])
	d := e.wait("r9-late-cancel", func(d *deploy.Deployment) bool { return d.State.Terminal() })
	if d.State == deploy.StateSuccess {
		if st := deploy.NewStatus(d); st.CancelledBy != nil {
			t.Errorf("a deploy that ended SUCCESS shows cancelled_by %q", *st.CancelledBy)
		}
		if by := e.auditActors("deployment.finish", "r9-late-cancel"); len(by) == 1 && by[0] == "token:admin" {
			t.Errorf("deployment.finish of a SUCCESS written under the canceller %q, not the requester", by[0])
		}
	}
}
