package graph

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// hubBoard is a SharedReader over deploys in memory: each deploy's version
// (UpdatedAt in seconds) counts its changes, and a subject reads the
// tenant of its name ("reader@tenant"), as the Casbin policy of a service
// would.
type hubBoard struct {
	mu      sync.Mutex
	deploys map[string]*deploy.Deployment
	reads   atomic.Int64
	views   atomic.Int64
}

func newHubBoard(ids map[string]string) *hubBoard {
	b := &hubBoard{deploys: map[string]*deploy.Deployment{}}
	for id, tenant := range ids {
		b.deploys[id] = &deploy.Deployment{ID: id, Tenant: tenant, Application: "app", Environment: "env", State: deploy.StatePending}
	}
	return b
}

// change makes a new version of a deploy and returns it.
func (b *hubBoard) change(id string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.deploys[id]
	d.UpdatedAt = time.Unix(d.UpdatedAt.Unix()+1, 0)
	return d.UpdatedAt.Unix()
}

func (b *hubBoard) ReadShared(_ context.Context, id string) (*deploy.Deployment, error) {
	b.reads.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.deploys[id]
	if !ok {
		return nil, deploy.DeploymentNotFound(id)
	}
	c := *d
	return &c, nil
}

func (b *hubBoard) LogsShared(context.Context, string, int64, int) ([]deploy.LogLine, error) {
	return nil, nil
}

func (b *hubBoard) View(ctx context.Context, d *deploy.Deployment) (*deploy.Deployment, error) {
	b.views.Add(1)
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	switch id.Subject {
	case "reader@" + d.Tenant:
		return d, nil // sees all of it
	case "partial@" + d.Tenant:
		c := *d // a view of its own, as when a dependent is hidden
		c.Dependents = nil
		return &c, nil
	}
	return nil, deploy.DeploymentNotFound(d.ID)
}

func as(ctx context.Context, subject string) context.Context {
	return deploy.WithIdentity(ctx, deploy.Identity{Subject: subject})
}

func version(u Update) int64 { return u.Deployment.UpdatedAt.Unix() }

// TestHubSharesOneReadPerChangeAcrossTenants: subscribers of two tenants
// on the activity feed each get every change of their tenant's deploys, in
// order, and none of the other tenant's, while each change is read once for
// all of them.
func TestHubSharesOneReadPerChangeAcrossTenants(t *testing.T) {
	const perTenant, changes = 40, 10
	board := newHubBoard(map[string]string{"a-1": "ta", "b-1": "tb"})
	events := newFakeEvents()
	hub := NewHub(board, events, nil)
	defer hub.Close()
	live := Live{Service: &fakeService{}, Events: events, Hub: hub}
	type sub struct {
		tenant string
		ch     <-chan Update
	}
	var subs []sub
	for _, tenant := range []string{"ta", "tb"} {
		for range perTenant {
			subs = append(subs, sub{tenant, live.Activity(as(t.Context(), "reader@"+tenant))})
		}
	}
	for i := range changes {
		id := []string{"a-1", "b-1"}[i%2]
		want := board.change(id)
		events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: id})
		for _, s := range subs {
			if id != map[string]string{"ta": "a-1", "tb": "b-1"}[s.tenant] {
				continue
			}
			u, ok := recv(t, s.ch)
			if !ok {
				t.Fatal("the feed ended")
			}
			if u.Deployment.ID != id || version(u) != want || u.Kind != KindState {
				t.Fatalf("subscriber of %s got %s %s v%d, want %s v%d", s.tenant, u.Kind, u.Deployment.ID, version(u), id, want)
			}
		}
	}
	if n := board.reads.Load(); n != changes {
		t.Errorf("%d reads for %d changes, want one per change", n, changes)
	}
	// The other tenant's subscribers are authorized at each change too,
	// and refused: nothing reaches them to wait on, so wait for the count.
	want := int64(changes * 2 * perTenant)
	for deadline := time.Now().Add(30 * time.Second); board.views.Load() < want && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := board.views.Load(); n != want {
		t.Errorf("%d views, want %d: every subscriber authorized at every change", n, want)
	}
	// Nothing else is pending for anyone: a change read by one tenant's
	// subscribers never reached the other's.
	for _, s := range subs {
		select {
		case u := <-s.ch:
			t.Fatalf("subscriber of %s got %s v%d more", s.tenant, u.Deployment.ID, version(u))
		default:
		}
	}
}

// TestHubRefusedSubscriberGetsNothing: a subscriber whose view is refused
// (another tenant, or no identity at all) gets no update of the deploy,
// while a readable one after it still comes.
func TestHubRefusedSubscriberGetsNothing(t *testing.T) {
	board := newHubBoard(map[string]string{"hidden": "tb", "marker": "ta"})
	events := newFakeEvents()
	hub := NewHub(board, events, nil)
	defer hub.Close()
	live := Live{Service: &fakeService{}, Events: events, Hub: hub}
	refused := live.Activity(as(t.Context(), "reader@ta"))
	anonymous := live.Activity(t.Context())
	board.change("hidden")
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hidden"})
	board.change("marker")
	events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "marker"})
	if u, _ := recv(t, refused); u.Deployment.ID != "marker" {
		t.Fatalf("the reader of ta got %s", u.Deployment.ID)
	}
	// The anonymous feed reads nothing: its channel ends with the test.
	select {
	case u := <-anonymous:
		t.Fatalf("an anonymous subscriber got %s", u.Deployment.ID)
	case <-time.After(100 * time.Millisecond):
	}
	if n := board.reads.Load(); n != 2 {
		t.Errorf("%d reads, want 2", n)
	}
}

// TestHubSlowSubscriberDoesNotBlockTheOthers: a subscriber that reads
// nothing holds neither the hub nor the other subscribers; when it reads
// again it gets the change it was holding and then the latest state, the
// changes in between coalesced.
func TestHubSlowSubscriberDoesNotBlockTheOthers(t *testing.T) {
	const changes = 50
	board := newHubBoard(map[string]string{"a-1": "ta"})
	events := newFakeEvents()
	hub := NewHub(board, events, nil)
	defer hub.Close()
	live := Live{Service: &fakeService{}, Events: events, Hub: hub}
	slow := live.Activity(as(t.Context(), "reader@ta"))
	fast := live.Activity(as(t.Context(), "reader@ta"))
	var last int64
	for range changes {
		last = board.change("a-1")
		events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "a-1"})
		if u, _ := recv(t, fast); version(u) != last {
			t.Fatalf("the fast subscriber got v%d, want v%d", version(u), last)
		}
	}
	var got []int64
	for len(got) == 0 || got[len(got)-1] != last {
		u, ok := recv(t, slow)
		if !ok {
			t.Fatal("the slow feed ended")
		}
		got = append(got, version(u))
	}
	if len(got) > 2 {
		t.Errorf("the slow subscriber got %v: want the change it held and the latest one", got)
	}
}

// TestHubFollowersShareTheirReads: followers of one deploy (the deploy
// page open on many screens) share the read of each change and of the log
// lines after it, and each still gets its own snapshot first.
func TestHubFollowersShareTheirReads(t *testing.T) {
	const followers = 20
	board := newHubBoard(map[string]string{"a-1": "ta"})
	var logReads atomic.Int64
	reader := &hubLogBoard{hubBoard: board, reads: &logReads}
	events := newFakeEvents()
	hub := NewHub(reader, events, nil)
	defer hub.Close()
	svc := &fakeService{get: func(ctx context.Context, id string) (*deploy.Deployment, error) {
		d, err := board.ReadShared(ctx, id)
		if err != nil {
			return nil, err
		}
		return board.View(ctx, d)
	}}
	live := Live{Service: svc, Events: events, Hub: hub}
	var chs []<-chan Update
	for range followers {
		ch, err := live.Follow(as(t.Context(), "reader@ta"), "a-1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if u, _ := recv(t, ch); u.Kind != KindSnapshot {
			t.Fatalf("got %s first", u.Kind)
		}
		chs = append(chs, ch)
	}
	board.reads.Store(0)
	events.Publish(deploy.Event{Kind: deploy.EventLog, DeploymentID: "a-1"})
	for _, ch := range chs {
		u, _ := recv(t, ch)
		if u.Kind != KindLog || len(u.Logs) != 1 || u.Logs[0].Message != "line 1" {
			t.Fatalf("got %s with %v", u.Kind, u.Logs)
		}
	}
	if r, l := board.reads.Load(), logReads.Load(); r != 1 || l != 1 {
		t.Errorf("%d reads of the deploy and %d of its log for %d followers, want 1 and 1", r, l, followers)
	}
}

// hubLogBoard adds one log line to a hubBoard.
type hubLogBoard struct {
	*hubBoard
	reads *atomic.Int64
}

func (b *hubLogBoard) LogsShared(_ context.Context, _ string, after int64, _ int) ([]deploy.LogLine, error) {
	b.reads.Add(1)
	if after >= 1 {
		return nil, nil
	}
	return []deploy.LogLine{{Seq: 1, Message: "line 1"}}, nil
}

// TestHubEndsItsSubscriptionsWithTheEvents: when the events stop (the
// server closes), every feed of the hub ends instead of hanging.
func TestHubEndsItsSubscriptionsWithTheEvents(t *testing.T) {
	board := newHubBoard(map[string]string{"a-1": "ta"})
	hub := NewHub(board, newFakeEvents(), nil)
	live := Live{Service: &fakeService{}, Events: newFakeEvents(), Hub: hub}
	ch := live.Activity(as(t.Context(), "reader@ta"))
	hub.Close()
	if _, ok := recv(t, ch); ok {
		t.Fatal("an update after the hub closed")
	}
	if _, ok := recv(t, live.Activity(as(t.Context(), "reader@ta"))); ok {
		t.Fatal("an update from a closed hub")
	}
}

// TestHubConvertsOnceForWholeViews: subscribers that see all of a deploy
// share one GraphQL model of each change; one whose view is cut gets a
// model of its own.
func TestHubConvertsOnceForWholeViews(t *testing.T) {
	board := newHubBoard(map[string]string{"a-1": "ta"})
	events := newFakeEvents()
	hub := NewHub(board, events, nil)
	defer hub.Close()
	live := Live{Service: &fakeService{}, Events: events, Hub: hub}
	whole := []<-chan *model.DeploymentEvent{
		toModelEvents(t.Context(), live.Activity(as(t.Context(), "reader@ta"))),
		toModelEvents(t.Context(), live.Activity(as(t.Context(), "reader@ta"))),
	}
	partial := toModelEvents(t.Context(), live.Activity(as(t.Context(), "partial@ta")))
	for i := range 2 {
		want := board.change("a-1")
		events.Publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "a-1"})
		var got []*model.Deployment
		for _, ch := range append(whole, partial) {
			select {
			case ev := <-ch:
				if ev.Deployment.UpdatedAt.Unix() != want {
					t.Fatalf("change %d: got v%d, want v%d", i, ev.Deployment.UpdatedAt.Unix(), want)
				}
				got = append(got, ev.Deployment)
			case <-time.After(wait):
				t.Fatal("no event in time")
			}
		}
		if got[0] != got[1] {
			t.Errorf("change %d: two whole views converted twice", i)
		}
		if got[2] == got[0] {
			t.Errorf("change %d: a cut view got the shared model", i)
		}
	}
}
