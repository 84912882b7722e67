package client_test

import (
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
	"manent.dev/manent/deploy"
)

func TestSchedules(t *testing.T) {
	srv := clienttest.New(t)
	next := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	srv.Handle("ListSchedules", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"schedules": []map[string]any{
			{"name": "hello-nightly", "tenant": "demo", "application": "hello", "environment": "staging",
				"cron": "0 3 * * *", "timezone": "UTC", "requester": "token:ci", "state": "SCHEDULED",
				"createdAt": next.Add(-48 * time.Hour), "updatedAt": next.Add(-48 * time.Hour),
				"lastTick": nil, "nextTick": next, "lastDeployment": nil},
		}}, nil
	})
	srv.Handle("DeleteSchedule", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["name"] != "hello-nightly" {
			return nil, &clienttest.Error{Message: "schedule not found", Code: "NOT_FOUND"}
		}
		return map[string]any{"deleteSchedule": true}, nil
	})
	c := client.New(srv.URL, "")
	ctx := testContext(t)

	list, err := c.Schedules(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("schedules = %+v, %v", list, err)
	}
	s := list[0]
	if s.Name != "hello-nightly" || s.Cron != "0 3 * * *" || s.State != client.ScheduleStateScheduled ||
		s.LastTick != nil || s.NextTick == nil || !s.NextTick.Equal(next) || s.LastDeployment != "" {
		t.Fatalf("schedule = %+v", s)
	}
	tests := []struct {
		name string
		code deploy.Code
	}{
		{name: "hello-nightly"},
		{name: "nope", code: deploy.ENOTFOUND},
	}
	for _, tt := range tests {
		if err := c.DeleteSchedule(ctx, tt.name); client.Code(err) != tt.code {
			t.Errorf("delete %s: %v, want %q", tt.name, err, tt.code)
		}
	}
}
