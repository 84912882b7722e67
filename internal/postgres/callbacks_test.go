package postgres_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"manent.dev/manent/deploy"
)

func stepDelivery(deploymentID, step, body string) deploy.Delivery {
	return deploy.Delivery{ID: deploymentID + ":event:step:" + step + ":callback:0", DeploymentID: deploymentID,
		EventID: deploymentID + ":event:step:" + step, EventType: deploy.NoticeStep, Step: step, URL: "https://h.example.com/", Body: body}
}

// A delivery recorded again (a snapshot taken again after a crash, with a
// body computed anew) keeps and returns the body recorded first: the first
// send and every replay send the same bytes under one webhook-id.
func TestPutDeliveryReturnsTheBodyRecordedFirst(t *testing.T) {
	f := newFixture(t)
	f.pending("cb-put", "staging")
	for _, body := range []string{`{"n":1}`, `{"n":2}`} {
		put, err := f.store.PutDelivery(f.ctx, stepDelivery("cb-put", "deploy", body), 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if put.Body != `{"n":1}` || !put.Send || put.Noted {
			t.Errorf("put with body %s: %+v, want the first body, sent", body, put)
		}
	}
}

// A callback gets at most maxSteps step events of a deploy, counted one
// snapshot at a time: the first one beyond is recorded dead with the note
// (and stays a note when recorded again), the later ones not at all.
func TestPutDeliveryBoundsStepEvents(t *testing.T) {
	f := newFixture(t)
	f.pending("cb-cap", "staging")
	const limit = 3
	var wg sync.WaitGroup
	puts := make([]deploy.DeliveryPut, 8)
	for i := range puts {
		wg.Go(func() {
			put, err := f.store.PutDelivery(f.ctx, stepDelivery("cb-cap", fmt.Sprintf("s%d", i), "{}"), limit, "dropped")
			if err != nil {
				t.Error(err)
			}
			puts[i] = put
		})
	}
	wg.Wait()
	sent, noted := 0, 0
	for _, p := range puts {
		if p.Send {
			sent++
		}
		if p.Noted {
			noted++
		}
	}
	if sent != limit || noted != 1 {
		t.Errorf("%d sent, %d notes, want %d and 1: %+v", sent, noted, limit, puts)
	}
	dls, err := f.store.Deliveries(f.ctx, "cb-cap")
	if err != nil {
		t.Fatal(err)
	}
	if len(dls) != limit+1 {
		t.Fatalf("%d rows, want %d", len(dls), limit+1)
	}
	for _, dl := range dls {
		if dl.State == deploy.DeliveryDead {
			if dl.LastError != "dropped" {
				t.Errorf("note %+v", dl)
			}
			again, err := f.store.PutDelivery(f.ctx, stepDelivery("cb-cap", dl.Step, "{}"), limit, "dropped")
			if err != nil || again.Send {
				t.Errorf("the note recorded again: %+v, %v", again, err)
			}
		}
	}
	// Started and finished are never bounded.
	fin := deploy.Delivery{ID: "cb-cap:event:finished:callback:0", DeploymentID: "cb-cap", EventID: "cb-cap:event:finished",
		EventType: deploy.NoticeFinished, URL: "https://h.example.com/", Body: "{}"}
	if put, err := f.store.PutDelivery(f.ctx, fin, limit, "dropped"); err != nil || !put.Send {
		t.Errorf("finished: %+v, %v", put, err)
	}
}

// A 410 disables the URL for every deploy of the tenant, not for another
// tenant's; a replay with disabled set enables it again.
func TestDisabledURLPerTenant(t *testing.T) {
	f := newFixture(t)
	f.pending("gone-1", "staging")
	f.pending("gone-2", "prod")
	other := deployment("gone-acme", "staging")
	other.Tenant, other.Effective.Tenant = "acme", "acme"
	f.run(other)
	dl := stepDelivery("gone-1", "deploy", "{}")
	if _, err := f.store.PutDelivery(f.ctx, dl, 0, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.store.RecordDelivery(f.ctx, dl.ID, deploy.DeliveryAttempt{State: deploy.DeliveryDisabled, Attempts: 1,
		LastStatus: http.StatusGone, LastError: "the receiver answered 410 Gone"}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"gone-1": true, "gone-2": true, "gone-acme": false} {
		if got, err := f.store.URLDisabled(f.ctx, id, dl.URL); err != nil || got != want {
			t.Errorf("URLDisabled(%s) = %v, %v; want %v", id, got, err, want)
		}
	}
	if _, err := f.store.StartReplay(f.ctx, "gone-1", "", true, func(any, []deploy.Replay) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, err := f.store.URLDisabled(f.ctx, "gone-2", dl.URL); err != nil || got {
		t.Errorf("after a replay with disabled set, URLDisabled = %v, %v", got, err)
	}
}
