package graph

import (
	"context"
	"fmt"
	"slices"
	"sync"
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

// TestActivityStopsWhenReadAccessIsLost: the feed reads every event with the
// caller's permissions, so a deploy it may no longer read stops appearing at
// its next event, while one it still reads goes on. (No permission can be
// taken away from a running server yet; this is the check a policy reload
// will rely on.)
func TestActivityStopsWhenReadAccessIsLost(t *testing.T) {
	var mu sync.Mutex
	readable := map[string]bool{"hello-1": true, "marker": true}
	svc := &fakeService{get: func(_ context.Context, id string) (*deploy.Deployment, error) {
		mu.Lock()
		defer mu.Unlock()
		if !readable[id] {
			return nil, deploy.DeploymentNotFound(id)
		}
		return &deploy.Deployment{ID: id, State: deploy.StatePending}, nil
	}}
	events := newFakeEvents()
	ch := Live{Service: svc, Events: events}.Activity(t.Context())
	// Activity has no snapshot to tell when it is subscribed: publish until
	// the first update arrives.
	for got := false; !got; {
		events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
		select {
		case <-ch:
			got = true
		case <-time.After(50 * time.Millisecond):
		}
	}
	// upTo reads until the marker's update: the events published before it
	// have been read by then (a burst is read in the order of the IDs,
	// hello-1 before marker).
	upTo := func() []string {
		var ids []string
		for {
			u, ok := recv(t, ch)
			if !ok {
				t.Fatal("the feed ended")
			}
			if u.Deployment.ID == "marker" {
				return ids
			}
			ids = append(ids, u.Deployment.ID)
		}
	}
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "marker"})
	upTo()

	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-1"})
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "marker"})
	if ids := upTo(); !slices.Contains(ids, "hello-1") {
		t.Fatalf("before the loss: %v, want hello-1", ids)
	}
	mu.Lock()
	readable["hello-1"] = false
	mu.Unlock()
	events.Publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-1"})
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "marker"})
	if ids := upTo(); len(ids) > 0 {
		t.Fatalf("after the loss of read access the feed sent %v", ids)
	}
}
