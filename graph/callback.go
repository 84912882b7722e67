package graph

import (
	"strings"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// The converters of the callbacks (schema/callback.graphqls), from the
// status JSON's section, which redacts the URLs.

func toModelCallbacks(cbs []deploy.StatusCallback) []model.Callback {
	out := make([]model.Callback, len(cbs))
	for i, c := range cbs {
		events := make([]string, len(c.Events))
		for j, ev := range c.Events {
			events[j] = string(ev)
		}
		out[i] = model.Callback{URL: c.URL, Events: events, State: toModelCallbackState(c.State),
			Deliveries: make([]model.CallbackDelivery, len(c.Deliveries))}
		for j, dl := range c.Deliveries {
			out[i].Deliveries[j] = toModelStatusDelivery(dl)
		}
	}
	return out
}

func toModelStatusDelivery(dl deploy.StatusDelivery) model.CallbackDelivery {
	return model.CallbackDelivery{ID: dl.ID, Event: string(dl.Event), EventID: dl.EventID, Step: optional(dl.Step),
		State: toModelCallbackState(dl.State), Attempts: dl.Attempts, LastStatus: dl.LastStatus, LastError: dl.LastError,
		NextAttemptAt: dl.NextAttemptAt, DeliveredAt: dl.DeliveredAt}
}

func toModelDelivery(dl deploy.Delivery) model.CallbackDelivery {
	m := model.CallbackDelivery{ID: dl.ID, Event: string(dl.EventType), EventID: dl.EventID, Step: optional(dl.Step),
		State: toModelCallbackState(dl.State), Attempts: dl.Attempts, LastError: optional(dl.LastError),
		NextAttemptAt: dl.NextAttemptAt, DeliveredAt: dl.DeliveredAt}
	if dl.LastStatus != 0 {
		m.LastStatus = &dl.LastStatus
	}
	return m
}

func toModelCallbackState(s deploy.DeliveryState) model.CallbackState {
	return model.CallbackState(strings.ToUpper(string(s)))
}
