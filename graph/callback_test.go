package graph

import (
	"testing"

	"manent.dev/manent/deploy"
)

// Every state of a delivery has its value in the schema's enum.
func TestCallbackStatesAreTheSchemas(t *testing.T) {
	for _, s := range []deploy.DeliveryState{deploy.DeliveryPending, deploy.DeliveryRetrying, deploy.DeliveryDelivered,
		deploy.DeliveryDisabled, deploy.DeliveryDead} {
		if m := toModelCallbackState(s); !m.IsValid() {
			t.Errorf("%s converts to %q, not a CallbackState of the schema", s, m)
		}
	}
	d := &deploy.Deployment{Descriptor: deploy.Descriptor{Callbacks: []deploy.Callback{{URL: "https://h.example.com/x?token=s"}}},
		Deliveries: []deploy.Delivery{{ID: "d1", Callback: 0, State: deploy.DeliveryDead, EventType: deploy.NoticeFinished,
			EventID: "e1", Attempts: 3, LastStatus: 503, LastError: "the receiver answered 503"}}}
	got := toModelDeployment(d).Callbacks
	if len(got) != 1 || got[0].URL != "https://h.example.com/x" || got[0].State != "DEAD" || len(got[0].Deliveries) != 1 ||
		*got[0].Deliveries[0].LastStatus != 503 || got[0].Deliveries[0].EventID != "e1" {
		t.Errorf("callbacks %+v", got)
	}
}
