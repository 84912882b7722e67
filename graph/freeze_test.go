package graph

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func TestFreezeCalendarQuery(t *testing.T) {
	sunday := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
	sundays := []deploy.FreezeWindow{
		{Rule: "sunday", Start: sunday, End: sunday.Add(24 * time.Hour), Recurring: true, Cron: "0 0 * * SUN", TimeZone: "UTC"},
		{Rule: "year-end", Start: sunday.Add(-time.Hour), End: sunday.Add(2 * time.Hour)},
		{Rule: "sunday", Start: sunday.AddDate(0, 0, 7), End: sunday.AddDate(0, 0, 8), Recurring: true, Cron: "0 0 * * SUN", TimeZone: "UTC"},
	}
	const fields = `{ frozenNow { rule start end } next { rule start recurring cron timeZone } windows { rule start end recurring cron timeZone } from to }`
	tests := []struct {
		name    string
		query   string
		vars    map[string]any
		windows []deploy.FreezeWindow
		err     error
		// wantFrom, wantTo: zero means "now", and now + 30 days.
		wantRes          deploy.Resource
		wantFrom, wantTo time.Time
		want             string
		code             string
	}{
		{name: "frozen now, with the next window", vars: map[string]any{"from": "2026-05-17T10:00:00Z"},
			query:   `query($from: Time) { freezeCalendar(application: "hello", environment: "prod", from: $from) ` + fields + ` }`,
			windows: sundays, wantRes: deploy.Resource{Application: "hello", Environment: "prod"},
			wantFrom: sunday.Add(10 * time.Hour), wantTo: sunday.Add(10*time.Hour).AddDate(0, 0, 30),
			want: `{"frozenNow":{"rule":"sunday","start":"2026-05-17T00:00:00Z","end":"2026-05-18T00:00:00Z"},` +
				`"next":{"rule":"sunday","start":"2026-05-24T00:00:00Z","recurring":true,"cron":"0 0 * * SUN","timeZone":"UTC"},` +
				`"windows":[{"rule":"sunday","start":"2026-05-17T00:00:00Z","end":"2026-05-18T00:00:00Z","recurring":true,"cron":"0 0 * * SUN","timeZone":"UTC"},` +
				`{"rule":"year-end","start":"2026-05-16T23:00:00Z","end":"2026-05-17T02:00:00Z","recurring":false,"cron":null,"timeZone":null},` +
				`{"rule":"sunday","start":"2026-05-24T00:00:00Z","end":"2026-05-25T00:00:00Z","recurring":true,"cron":"0 0 * * SUN","timeZone":"UTC"}],` +
				`"from":"2026-05-17T10:00:00Z","to":"2026-06-16T10:00:00Z"}`},
		{name: "not frozen, next", vars: map[string]any{"from": "2026-05-13T00:00:00Z", "to": "2027-05-13T00:00:00Z"},
			query:   `query($from: Time, $to: Time) { freezeCalendar(tenant: "demo", application: "hello", environment: "prod", from: $from, to: $to) { frozenNow { rule } next { rule start } from to } }`,
			windows: sundays[:1], wantRes: deploy.Resource{Tenant: "demo", Application: "hello", Environment: "prod"},
			// A year is cut to 90 days, here already.
			wantFrom: time.Date(2026, 5, 13, 0, 0, 0, 0, time.UTC), wantTo: time.Date(2026, 8, 11, 0, 0, 0, 0, time.UTC),
			want: `{"frozenNow":null,"next":{"rule":"sunday","start":"2026-05-17T00:00:00Z"},"from":"2026-05-13T00:00:00Z","to":"2026-08-11T00:00:00Z"}`},
		{name: "defaults: from now for 30 days", query: `{ freezeCalendar(application: "hello", environment: "prod") { frozenNow { rule } next { rule } windows { rule } } }`,
			windows: []deploy.FreezeWindow{}, wantRes: deploy.Resource{Application: "hello", Environment: "prod"},
			want: `{"frozenNow":null,"next":null,"windows":[]}`},
		{name: "a Rego policy", query: `{ freezeCalendar(application: "hello", environment: "prod") { windows { rule } } }`,
			err:     deploy.Errorf(deploy.EUNPROCESSABLE, "the freeze calendar is not available with a Rego policy"),
			wantRes: deploy.Resource{Application: "hello", Environment: "prod"}, code: "UNPROCESSABLE"},
		{name: "not readable", query: `{ freezeCalendar(application: "hello", environment: "prod") { windows { rule } } }`,
			err:     deploy.Errorf(deploy.ENOTFOUND, "environment demo/hello/prod not found"),
			wantRes: deploy.Resource{Application: "hello", Environment: "prod"}, code: "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := time.Now().Add(-time.Second)
			svc := &fakeService{freezes: func(_ context.Context, res deploy.Resource, from, to time.Time) ([]deploy.FreezeWindow, error) {
				if res != tt.wantRes {
					t.Errorf("resource = %+v, want %+v", res, tt.wantRes)
				}
				wantFrom, wantTo := tt.wantFrom, tt.wantTo
				if wantFrom.IsZero() {
					if from.Before(before) || from.After(time.Now()) {
						t.Errorf("from = %v, want now", from)
					}
					wantFrom, wantTo = from, from.Add(30*24*time.Hour)
				}
				if !from.Equal(wantFrom) || !to.Equal(wantTo) {
					t.Errorf("range = %v..%v, want %v..%v", from, to, wantFrom, wantTo)
				}
				return tt.windows, tt.err
			}}
			resp := newTestServer(t, svc, newFakeEvents()).query(t, "viewer", tt.query, tt.vars)
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors = %+v, want %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if got := string(resp.Data["freezeCalendar"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
