package graph

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestReleaseEventsFollowTheMembersOfACancelledRelease holds what the web's
// "Cancel release" promises ("the page follows the result live"):
// CancelRelease records the release CANCELLED first (FinishRelease, which
// notifies), and only then cancels the deploys that had not finished; a
// running one stops at the start of its next step, later still. The
// subscription must go on sending the release while its deploys end, or
// the release page (which shows the subscription's last answer over the
// query's) keeps those deploys PENDING for good.
func TestReleaseEventsFollowTheMembersOfACancelledRelease(t *testing.T) {
	var mu sync.Mutex
	rel := &deploy.Release{
		ID: "held-rel", Requester: "token:ci", OnFailure: "stop", State: deploy.ReleasePending, CreatedAt: releaseT0,
		Deploys: []deploy.ReleaseDeploy{
			{Name: "first", DeploymentID: "held-rel.first", State: deploy.StatePending, Application: "hello", Environment: "held"},
		},
	}
	set := func(f func(r *deploy.Release)) {
		mu.Lock()
		defer mu.Unlock()
		f(rel)
	}
	svc := &fakeService{}
	svc.getRelease = func(context.Context, string) (*deploy.Release, error) {
		mu.Lock()
		defer mu.Unlock()
		c := *rel
		c.Deploys = append([]deploy.ReleaseDeploy(nil), rel.Deploys...)
		return &c, nil
	}
	events := newFakeEvents()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	ch := followRelease(ctx, svc, events, slog.New(slog.NewTextHandler(io.Discard, nil)), "held-rel")

	next := func(what string) *deploy.ReleaseDeploy {
		t.Helper()
		select {
		case r, open := <-ch:
			if !open {
				t.Fatalf("%s: the subscription ended before it came", what)
			}
			st := deploy.State(*r.Deploys[0].State)
			return &deploy.ReleaseDeploy{State: st}
		case <-time.After(3 * time.Second):
			t.Fatalf("%s: nothing sent in 3s", what)
		}
		return nil
	}
	if m := next("the release now"); m.State != deploy.StatePending {
		t.Fatalf("first answer: member %s", m.State)
	}
	// CancelRelease: FinishRelease(CANCELLED) notifies the release first...
	set(func(r *deploy.Release) { r.State = deploy.ReleaseCancelled })
	events.Publish(deploy.Event{Kind: deploy.EventRelease, DeploymentID: "held-rel"})
	if m := next("the release cancelled"); m.State != deploy.StatePending {
		t.Fatalf("member after the release's cancel: %s", m.State)
	}
	// ...then its running deploy stops at its next step and ends CANCELLED.
	set(func(r *deploy.Release) { r.Deploys[0].State = deploy.StateCancelled })
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "held-rel.first"})
	if m := next("the member's end after the release's"); m.State != deploy.StateCancelled {
		t.Errorf("member shown %s, want CANCELLED", m.State)
	}
}
