package engine_test

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

func TestFreezeCalendar(t *testing.T) {
	rules, err := governance.New(config.Governance{Freezes: []config.FreezeRule{{
		Name: "sunday", Match: config.FreezeMatch{Tenant: "demo", Environment: "prod"},
		Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"}},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, envOptions{governor: rules})
	// Wednesday 13 May 2026.
	wed := time.Date(2026, 5, 13, 10, 0, 0, 0, time.UTC)
	sunday := func(d int) time.Time { return time.Date(2026, 5, 17+7*d, 0, 0, 0, 0, time.UTC) }
	prod := deploy.Resource{Application: "app", Environment: "prod"}
	tests := []struct {
		name     string
		who      string
		res      deploy.Resource
		from, to time.Time
		code     deploy.Code
		starts   []time.Time
	}{
		{name: "the default tenant", who: "token:ci", res: prod, from: wed, to: wed.AddDate(0, 0, 14), starts: []time.Time{sunday(0), sunday(1)}},
		{name: "a viewer reads it", who: "token:viewer", res: deploy.Resource{Tenant: "demo", Application: "app", Environment: "prod"},
			from: wed, to: wed.AddDate(0, 0, 7), starts: []time.Time{sunday(0)}},
		{name: "no freeze in staging", who: "token:ci", res: deploy.Resource{Application: "app", Environment: "staging"}, from: wed, to: wed.AddDate(0, 0, 30)},
		{name: "cut to 90 days", who: "token:ci", res: prod, from: wed, to: wed.AddDate(1, 0, 0),
			starts: func() (s []time.Time) {
				for d := 0; sunday(d).Before(wed.Add(deploy.MaxFreezeCalendarRange)); d++ {
					s = append(s, sunday(d))
				}
				return s
			}()},
		{name: "not readable is not found", who: "token:stranger", res: prod, from: wed, to: wed.AddDate(0, 0, 7), code: deploy.ENOTFOUND},
		{name: "another tenant is not found", who: "token:ci", res: deploy.Resource{Tenant: "other", Application: "app", Environment: "prod"},
			from: wed, to: wed.AddDate(0, 0, 7), code: deploy.ENOTFOUND},
		{name: "not a name", who: "token:ci", res: deploy.Resource{Application: "App/..", Environment: "prod"}, from: wed, to: wed.AddDate(0, 0, 7), code: deploy.ENOTFOUND},
		{name: "the end before the start", who: "token:ci", res: prod, from: wed, to: wed.Add(-time.Hour), code: deploy.EUNPROCESSABLE},
		{name: "anonymous", res: prod, from: wed, to: wed.AddDate(0, 0, 7), code: deploy.EUNAUTHENTICATED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: tt.who})
			ws, err := e.eng.FreezeCalendar(ctx, tt.res, tt.from, tt.to)
			if tt.code != "" {
				if deploy.ErrorCode(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ws == nil || len(ws) != len(tt.starts) {
				t.Fatalf("got %d windows %+v, want starts %v", len(ws), ws, tt.starts)
			}
			for i, w := range ws {
				if !w.Start.Equal(tt.starts[i]) || !w.End.Equal(tt.starts[i].Add(24*time.Hour)) || w.Rule != "sunday" || !w.Recurring || w.Cron != "0 0 * * SUN" {
					t.Errorf("window %d = %+v, want start %v", i, w, tt.starts[i])
				}
			}
		})
	}
}

// TestFreezeCalendarWithoutIt: no governance is an empty calendar; a
// governor that cannot list its windows refuses rather than say "never".
func TestFreezeCalendarWithoutIt(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name string
		gov  deploy.Governor
		code deploy.Code
	}{
		{name: "no governance"},
		{name: "a governor without a calendar", gov: &fakeGovernor{}, code: deploy.EUNPROCESSABLE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnvWith(t, envOptions{governor: tc.gov})
			ws, err := e.eng.FreezeCalendar(e.ctx, deploy.Resource{Application: "app", Environment: "prod"}, now, now.Add(time.Hour))
			if deploy.ErrorCode(err) != tc.code && (tc.code != "" || err != nil) {
				t.Fatalf("err = %v, want %q", err, tc.code)
			}
			if tc.code == "" && (ws == nil || len(ws) != 0) {
				t.Errorf("windows = %#v, want an empty list", ws)
			}
		})
	}
}

// TestFreezeCalendars: the calendars of a matrix in one call, each as
// FreezeCalendar gives it; an environment the caller may not read is an
// entry without windows, not a refusal of the whole view.
func TestFreezeCalendars(t *testing.T) {
	rules, err := governance.New(config.Governance{Freezes: []config.FreezeRule{{
		Name: "sunday", Match: config.FreezeMatch{Tenant: "demo", Environment: "prod"},
		Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"}},
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, envOptions{governor: rules})
	wed := time.Date(2026, 5, 13, 10, 0, 0, 0, time.UTC)
	sunday := time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC)
	envs := []deploy.Resource{
		{Application: "app", Environment: "prod"},
		{Tenant: "demo", Application: "app", Environment: "staging"},
		{Tenant: "other", Application: "app", Environment: "prod"},
		{Application: "App/..", Environment: "prod"},
	}
	ctx := deploy.WithIdentity(e.ctx, deploy.Identity{Subject: "token:viewer"})
	got, err := e.eng.FreezeCalendars(ctx, envs, wed, wed.AddDate(0, 0, 7))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(envs) {
		t.Fatalf("%d entries for %d environments", len(got), len(envs))
	}
	want := []struct {
		res      deploy.Resource
		readable bool
		starts   []time.Time
	}{
		{deploy.Resource{Tenant: "demo", Application: "app", Environment: "prod"}, true, []time.Time{sunday}},
		{deploy.Resource{Tenant: "demo", Application: "app", Environment: "staging"}, true, nil},
		{deploy.Resource{Tenant: "other", Application: "app", Environment: "prod"}, false, nil},
		{deploy.Resource{Tenant: "demo", Application: "App/..", Environment: "prod"}, false, nil},
	}
	for i, w := range want {
		g := got[i]
		if g.Resource != w.res || g.Readable != w.readable || len(g.Windows) != len(w.starts) {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
			continue
		}
		if w.readable && g.Windows == nil {
			t.Errorf("entry %d: a readable environment without freezes has an empty list, not none", i)
		}
		for j, s := range w.starts {
			if !g.Windows[j].Start.Equal(s) || g.Windows[j].Rule != "sunday" {
				t.Errorf("entry %d window %d = %+v", i, j, g.Windows[j])
			}
		}
	}

	tooMany := make([]deploy.Resource, deploy.MaxFreezeCalendars+1)
	for i := range tooMany {
		tooMany[i] = deploy.Resource{Application: "app", Environment: "prod"}
	}
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		envs     []deploy.Resource
		from, to time.Time
		code     deploy.Code
	}{
		{"more than the limit", ctx, tooMany, wed, wed.AddDate(0, 0, 7), deploy.EUNPROCESSABLE},
		{"the end before the start", ctx, envs, wed, wed.Add(-time.Hour), deploy.EUNPROCESSABLE},
		{"anonymous", deploy.WithIdentity(e.ctx, deploy.Identity{}), envs, wed, wed.AddDate(0, 0, 7), deploy.EUNAUTHENTICATED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.eng.FreezeCalendars(tc.ctx, tc.envs, tc.from, tc.to); deploy.ErrorCode(err) != tc.code {
				t.Fatalf("err = %v, want %s", err, tc.code)
			}
		})
	}
}
