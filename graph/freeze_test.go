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

func TestFreezeCalendarsQuery(t *testing.T) {
	sunday := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
	from := sunday.Add(-72 * time.Hour)
	const query = `query($envs: [EnvironmentRef!]!, $from: Time) {
	  freezeCalendars(environments: $envs, from: $from) { tenant application environment calendar { next { rule start } windows { rule } from to } }
	}`
	envs := []map[string]any{
		{"application": "hello", "environment": "prod"},
		{"tenant": "demo", "application": "hello", "environment": "staging"},
		{"tenant": "other", "application": "hello", "environment": "prod"},
	}
	tests := []struct {
		name string
		envs []map[string]any
		cals []deploy.EnvironmentFreezes
		err  error
		want string
		code string
	}{
		{name: "one entry per environment, in order, none for one not readable", envs: envs,
			cals: []deploy.EnvironmentFreezes{
				{Resource: deploy.Resource{Tenant: "demo", Application: "hello", Environment: "prod"}, Readable: true,
					Windows: []deploy.FreezeWindow{{Rule: "sunday", Start: sunday, End: sunday.Add(24 * time.Hour)}}},
				{Resource: deploy.Resource{Tenant: "demo", Application: "hello", Environment: "staging"}, Readable: true, Windows: []deploy.FreezeWindow{}},
				{Resource: deploy.Resource{Tenant: "other", Application: "hello", Environment: "prod"}},
			},
			want: `[{"tenant":"demo","application":"hello","environment":"prod","calendar":{"next":{"rule":"sunday","start":"2026-05-17T00:00:00Z"},` +
				`"windows":[{"rule":"sunday"}],"from":"2026-05-14T00:00:00Z","to":"2026-06-13T00:00:00Z"}},` +
				`{"tenant":"demo","application":"hello","environment":"staging","calendar":{"next":null,"windows":[],"from":"2026-05-14T00:00:00Z","to":"2026-06-13T00:00:00Z"}},` +
				`{"tenant":"other","application":"hello","environment":"prod","calendar":null}]`},
		{name: "none asked", envs: []map[string]any{}, cals: []deploy.EnvironmentFreezes{}, want: `[]`},
		{name: "too many, or a Rego policy", envs: envs,
			err: deploy.Errorf(deploy.EUNPROCESSABLE, "the freeze calendar is not available with a Rego policy"), code: "UNPROCESSABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []deploy.Resource
			svc := &fakeService{calendars: func(_ context.Context, res []deploy.Resource, f, to time.Time) ([]deploy.EnvironmentFreezes, error) {
				asked = res
				if !f.Equal(from) || !to.Equal(from.AddDate(0, 0, 30)) {
					t.Errorf("range = %v..%v", f, to)
				}
				return tt.cals, tt.err
			}}
			resp := newTestServer(t, svc, newFakeEvents()).query(t, "viewer", query, map[string]any{"envs": tt.envs, "from": from.Format(time.RFC3339)})
			if tt.code != "" {
				if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != tt.code {
					t.Fatalf("errors = %+v, want %s", resp.Errors, tt.code)
				}
				return
			}
			if len(resp.Errors) > 0 {
				t.Fatalf("errors: %+v", resp.Errors)
			}
			if len(asked) != len(tt.envs) {
				t.Fatalf("asked %+v", asked)
			}
			if len(asked) == 3 && (asked[0] != deploy.Resource{Application: "hello", Environment: "prod"} ||
				asked[2] != deploy.Resource{Tenant: "other", Application: "hello", Environment: "prod"}) {
				t.Errorf("asked %+v", asked)
			}
			if got := string(resp.Data["freezeCalendars"]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
