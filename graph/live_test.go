package graph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func recv(t *testing.T, ch <-chan Update) (Update, bool) {
	t.Helper()
	select {
	case u, ok := <-ch:
		return u, ok
	case <-time.After(wait):
		t.Fatal("no update in time")
		return Update{}, false
	}
}

func TestFollowSendsTheWholeBacklogOfAFinishedDeploy(t *testing.T) {
	board := newDeployBoard()
	board.d.State = deploy.StateError
	for i := range logPage + 5 {
		board.log(fmt.Sprintf("line %d", i+1))
	}
	live := Live{Service: board.service(), Events: newFakeEvents()}
	ch, err := live.Follow(t.Context(), "hello-1", 2)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := recv(t, ch)
	if u.Kind != KindSnapshot || len(u.Logs) != logPage || u.Logs[0].Seq != 3 {
		t.Fatalf("snapshot: kind %s, %d lines", u.Kind, len(u.Logs))
	}
	u, _ = recv(t, ch)
	if u.Kind != KindLog || len(u.Logs) != 3 || u.Logs[2].Seq != logPage+5 {
		t.Fatalf("rest: kind %s, %d lines", u.Kind, len(u.Logs))
	}
	if _, ok := recv(t, ch); ok {
		t.Fatal("stream goes on after the final state")
	}
}

func TestFollowStopsWithItsContext(t *testing.T) {
	board := newDeployBoard()
	ctx, cancel := context.WithCancel(t.Context())
	live := Live{Service: board.service(), Events: newFakeEvents()}
	ch, err := live.Follow(ctx, "hello-1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := recv(t, ch); u.Kind != KindSnapshot {
		t.Fatalf("got %s", u.Kind)
	}
	cancel()
	if _, ok := recv(t, ch); ok {
		t.Fatal("stream goes on after its context ended")
	}
}

func TestActivitySkipsWhatTheCallerCannotRead(t *testing.T) {
	board := newDeployBoard()
	events := newFakeEvents()
	live := Live{Service: board.service(), Events: events}
	ch := live.Activity(t.Context())
	// Activity has no snapshot to tell when it is subscribed: publish until
	// the first update arrives.
	var first Update
	for deadline := time.Now().Add(wait); first.Deployment == nil; {
		if time.Now().After(deadline) {
			t.Fatal("no update in time")
		}
		events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hidden"})
		events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-1"})
		select {
		case first = <-ch:
		case <-time.After(50 * time.Millisecond):
		}
	}
	if first.Deployment.ID != "hello-1" || first.Kind != KindStep {
		t.Fatalf("got %s %s, want the step of hello-1", first.Kind, first.Deployment.ID)
	}
	// Log events are not part of the feed, state changes are: after a log
	// event and a state event, the next update that is not a leftover step
	// of the loop above is the state.
	events.Publish(deploy.Event{Kind: deploy.EventLog, DeploymentID: "hello-1"})
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
	for {
		u, _ := recv(t, ch)
		if u.Deployment.ID != "hello-1" || u.Kind == KindLog {
			t.Fatalf("got %s of %s", u.Kind, u.Deployment.ID)
		}
		if u.Kind == KindState {
			return
		}
	}
}
