package deploy

import (
	"reflect"
	"testing"
)

func TestNewStatusCallbacks(t *testing.T) {
	cbs := []Callback{{URL: "https://u:p@hooks.example.com/a?token=x"}, {URL: "https://b.example.com/", Events: []NoticeType{NoticeFinished}}}
	dl := func(cb int, s DeliveryState) Delivery {
		return Delivery{ID: string(s), Callback: cb, State: s, EventType: NoticeStep}
	}
	tests := []struct {
		name       string
		callbacks  []Callback
		deliveries []Delivery
		want       []DeliveryState
	}{
		{name: "no callbacks", deliveries: []Delivery{}},
		{name: "deliveries not read", callbacks: cbs},
		{name: "nothing delivered yet", callbacks: cbs, deliveries: []Delivery{}, want: []DeliveryState{DeliveryPending, DeliveryPending}},
		{name: "the worst shows", callbacks: cbs, deliveries: []Delivery{
			dl(0, DeliveryDelivered), dl(0, DeliveryDead), dl(0, DeliveryRetrying), dl(1, DeliveryDelivered),
		}, want: []DeliveryState{DeliveryDead, DeliveryDelivered}},
		{name: "disabled over retrying", callbacks: cbs, deliveries: []Delivery{
			dl(0, DeliveryRetrying), dl(0, DeliveryDisabled), dl(1, DeliveryPending), dl(1, DeliveryDelivered),
		}, want: []DeliveryState{DeliveryDisabled, DeliveryPending}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Deployment{Descriptor: Descriptor{Callbacks: tt.callbacks}, Deliveries: tt.deliveries}
			got := NewStatusCallbacks(d)
			var states []DeliveryState
			for _, c := range got {
				states = append(states, c.State)
			}
			if !reflect.DeepEqual(states, tt.want) {
				t.Fatalf("states %v, want %v", states, tt.want)
			}
			if len(got) == 2 {
				if got[0].URL != "https://hooks.example.com/a" || !reflect.DeepEqual(got[0].Events, CallbackNotices) ||
					!reflect.DeepEqual(got[1].Events, []NoticeType{NoticeFinished}) {
					t.Errorf("callbacks %+v", got)
				}
			}
		})
	}
}
