package graph

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// scheduleFakes are the recurring schedule methods of fakeService.
type scheduleFakes struct {
	schedules      func(ctx context.Context) ([]deploy.RecurringSchedule, error)
	deleteSchedule func(ctx context.Context, name string) error
}

func (f *scheduleFakes) Schedules(ctx context.Context) ([]deploy.RecurringSchedule, error) {
	if f.schedules == nil {
		return nil, errNotFaked
	}
	return f.schedules(ctx)
}

func (f *scheduleFakes) DeleteSchedule(ctx context.Context, name string) error {
	if f.deleteSchedule == nil {
		return errNotFaked
	}
	return f.deleteSchedule(ctx, name)
}

var scheduleT0 = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// nightly is a schedule that has ticked once.
func nightly() deploy.RecurringSchedule {
	last, next := scheduleT0, scheduleT0.Add(24*time.Hour)
	return deploy.RecurringSchedule{
		Name: "hello-nightly", Tenant: "demo", Application: "hello", Environment: "staging",
		Cron: "0 3 * * *", TimeZone: "UTC", Requester: "token:ci", State: deploy.ScheduleScheduled, Generation: 2,
		Template: []byte(`{"secret":"never shown"}`), CreatedAt: scheduleT0.Add(-48 * time.Hour),
		UpdatedAt: scheduleT0.Add(-time.Hour), LastTick: &last, NextTick: &next,
		LastDeployment: "hello-nightly@20261130-030000",
	}
}

const scheduleFields = `name tenant application environment cron timezone requester state createdAt updatedAt lastTick nextTick lastDeployment lastError`

func TestSchedulesQuery(t *testing.T) {
	fresh := nightly()
	fresh.Name, fresh.LastTick, fresh.NextTick, fresh.LastDeployment = "hello-weekly", nil, nil, ""
	// Its last tick started nothing: the deploy of the one before stays the last.
	failed := nightly()
	lastTick, nextTick := scheduleT0.Add(24*time.Hour), scheduleT0.Add(48*time.Hour)
	failed.LastTick, failed.NextTick, failed.LastError = &lastTick, &nextTick, `deploy ID "hello-nightly@20261201-030000" is taken`
	tests := []struct {
		name string
		list []deploy.RecurringSchedule
		err  error
		want string
		code string
	}{
		{name: "ticked", list: []deploy.RecurringSchedule{nightly()},
			want: `[{"name":"hello-nightly","tenant":"demo","application":"hello","environment":"staging","cron":"0 3 * * *",` +
				`"timezone":"UTC","requester":"token:ci","state":"SCHEDULED","createdAt":"2026-11-28T03:00:00Z",` +
				`"updatedAt":"2026-11-30T02:00:00Z","lastTick":"2026-11-30T03:00:00Z","nextTick":"2026-12-01T03:00:00Z",` +
				`"lastDeployment":"hello-nightly@20261130-030000","lastError":null}]`},
		{name: "failed tick", list: []deploy.RecurringSchedule{failed},
			want: `[{"name":"hello-nightly","tenant":"demo","application":"hello","environment":"staging","cron":"0 3 * * *",` +
				`"timezone":"UTC","requester":"token:ci","state":"SCHEDULED","createdAt":"2026-11-28T03:00:00Z",` +
				`"updatedAt":"2026-11-30T02:00:00Z","lastTick":"2026-12-01T03:00:00Z","nextTick":"2026-12-02T03:00:00Z",` +
				`"lastDeployment":"hello-nightly@20261130-030000","lastError":"deploy ID \"hello-nightly@20261201-030000\" is taken"}]`},
		{name: "not ticked yet", list: []deploy.RecurringSchedule{fresh},
			want: `[{"name":"hello-weekly","tenant":"demo","application":"hello","environment":"staging","cron":"0 3 * * *",` +
				`"timezone":"UTC","requester":"token:ci","state":"SCHEDULED","createdAt":"2026-11-28T03:00:00Z",` +
				`"updatedAt":"2026-11-30T02:00:00Z","lastTick":null,"nextTick":null,"lastDeployment":null,"lastError":null}]`},
		{name: "none", list: []deploy.RecurringSchedule{}, want: `[]`},
		{name: "anonymous", err: deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required"), code: "UNAUTHENTICATED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{}
			svc.schedules = func(context.Context) ([]deploy.RecurringSchedule, error) { return tt.list, tt.err }
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `{ schedules { `+scheduleFields+` } }`, nil)
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors = %+v, want %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if got := string(resp.Data["schedules"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDeleteSchedule(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
		code string
	}{
		{name: "deleted", want: "true"},
		{name: "unknown", err: deploy.Errorf(deploy.ENOTFOUND, `schedule "nope" not found`), code: "NOT_FOUND"},
		{name: "read only", err: deploy.Errorf(deploy.EFORBIDDEN, "deployment.submit required"), code: "FORBIDDEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			svc := &fakeService{}
			svc.deleteSchedule = func(_ context.Context, name string) error {
				got = name
				return tt.err
			}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `mutation($n: String!) { deleteSchedule(name: $n) }`, map[string]any{"n": "hello-nightly"})
			if got != "hello-nightly" {
				t.Errorf("service got %q", got)
			}
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors = %+v, want %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 || string(resp.Data["deleteSchedule"]) != tt.want {
				t.Fatalf("got %s %+v", resp.Data["deleteSchedule"], resp.Errors)
			}
		})
	}
}

func TestSubmitResultSchedule(t *testing.T) {
	sc := nightly()
	sc.LastTick, sc.LastDeployment = nil, ""
	tests := []struct {
		name string
		sub  deploy.Submission
		want string
	}{
		{name: "cron descriptor", sub: deploy.Submission{Created: true, Schedule: &sc, Deployment: deploy.Deployment{
			ID: "hello-nightly", Tenant: "demo", Application: "hello", Environment: "staging", State: deploy.StateScheduled,
			Requester: "token:ci", CreatedAt: scheduleT0}},
			want: `{"created":true,"deployment":{"id":"hello-nightly","state":"SCHEDULED"},` +
				`"schedule":{"name":"hello-nightly","cron":"0 3 * * *","timezone":"UTC","state":"SCHEDULED","nextTick":"2026-12-01T03:00:00Z","lastDeployment":null}}`},
		{name: "plain deploy", sub: deploy.Submission{Created: true, Deployment: deploy.Deployment{
			ID: "hello-1", Tenant: "demo", Application: "hello", Environment: "staging", State: deploy.StateEnqueued,
			Requester: "token:ci", CreatedAt: scheduleT0}},
			want: `{"created":true,"deployment":{"id":"hello-1","state":"ENQUEUED"},"schedule":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{submit: func(context.Context, []byte, deploy.SubmitOptions) (*deploy.Submission, error) {
				return &tt.sub, nil
			}}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `mutation { submitDeployment(descriptor: "x") {
			  created deployment { id state } schedule { name cron timezone state nextTick lastDeployment } } }`, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			got := string(resp.Data["submitDeployment"])
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "never shown") {
				t.Error("the template leaked")
			}
		})
	}
	// No field of Schedule exposes the template.
	raw, _ := json.Marshal(toModelSchedule(&sc))
	if strings.Contains(string(raw), "never shown") {
		t.Errorf("model carries the template: %s", raw)
	}
}
