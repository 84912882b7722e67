package governance_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

func utc(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

// showWindows writes windows one a line: rule start end, with cron@zone when recurring.
func showWindows(ws []deploy.FreezeWindow) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "%s %s %s", w.Rule, w.Start.Format(time.RFC3339), w.End.Format(time.RFC3339))
		if w.Recurring {
			fmt.Fprintf(&b, " %s@%s", w.Cron, w.TimeZone)
		}
		if w.Start.Location() != time.UTC || w.End.Location() != time.UTC {
			b.WriteString(" (not UTC)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCalendar(t *testing.T) {
	sundays := config.FreezeRule{Name: "sunday", Match: config.FreezeMatch{Tenant: "demo", Environment: "prod"},
		Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"}}}
	yearEnd := config.FreezeRule{Name: "year-end", Match: config.FreezeMatch{Region: "us"},
		Absolute: []config.AbsoluteWindow{
			{From: "2027-01-01T00:00:00+01:00", To: "2027-01-03T00:00:00Z"}, // touches the next one: one freeze
			{From: "2026-12-24T00:00:00Z", To: "2026-12-31T23:00:00Z"},
			{From: "2026-11-01T00:00:00Z", To: "2026-11-02T00:00:00Z"}, // before the range
		}}
	tests := []struct {
		name     string
		rules    []config.FreezeRule
		in       func(*deploy.GovernanceInput)
		from, to time.Time
		want     string
	}{
		{name: "Sundays UTC from a Wednesday", rules: []config.FreezeRule{sundays},
			from: weekday, to: utc(2026, 5, 31, 0, 0),
			want: "sunday 2026-05-17T00:00:00Z 2026-05-18T00:00:00Z 0 0 * * SUN@UTC\n" +
				"sunday 2026-05-24T00:00:00Z 2026-05-25T00:00:00Z 0 0 * * SUN@UTC\n"},
		{name: "in a window: its real start", rules: []config.FreezeRule{sundays},
			from: sunday, to: sunday.Add(time.Hour),
			want: "sunday 2026-05-17T00:00:00Z 2026-05-18T00:00:00Z 0 0 * * SUN@UTC\n"},
		{name: "a window that just ended is not listed", rules: []config.FreezeRule{sundays},
			from: monday, to: monday.Add(24 * time.Hour)},
		{name: "another environment", rules: []config.FreezeRule{sundays},
			in: func(in *deploy.GovernanceInput) { in.Environment = "staging" }, from: weekday, to: weekday.AddDate(0, 1, 0)},
		{name: "an empty range", rules: []config.FreezeRule{sundays}, from: sunday, to: sunday},
		{name: "Sundays in Auckland", rules: []config.FreezeRule{{Name: "nz",
			Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "Pacific/Auckland"}}}},
			from: weekday, to: utc(2026, 5, 20, 0, 0),
			want: "nz 2026-05-16T12:00:00Z 2026-05-17T12:00:00Z 0 0 * * SUN@Pacific/Auckland\n"},
		// 8 March 2026: New York moves from EST (UTC-5) to EDT (UTC-4); 09:00 follows the wall clock.
		{name: "09:00 New York across the DST change", rules: []config.FreezeRule{{Name: "standup",
			Recurring: []config.RecurringWindow{{Cron: "0 9 * * *", Duration: time.Hour, Timezone: "America/New_York"}}}},
			from: utc(2026, 3, 7, 0, 0), to: utc(2026, 3, 10, 0, 0),
			want: "standup 2026-03-07T14:00:00Z 2026-03-07T15:00:00Z 0 9 * * *@America/New_York\n" +
				"standup 2026-03-08T13:00:00Z 2026-03-08T14:00:00Z 0 9 * * *@America/New_York\n" +
				"standup 2026-03-09T13:00:00Z 2026-03-09T14:00:00Z 0 9 * * *@America/New_York\n"},
		{name: "absolute windows, touching ones merged", rules: []config.FreezeRule{yearEnd},
			in:   func(in *deploy.GovernanceInput) { in.Labels = map[string]string{"region": "us"} },
			from: utc(2026, 12, 1, 0, 0), to: utc(2027, 2, 1, 0, 0),
			want: "year-end 2026-12-24T00:00:00Z 2027-01-03T00:00:00Z\n"},
		{name: "absolute windows need the region", rules: []config.FreezeRule{yearEnd},
			from: utc(2026, 12, 1, 0, 0), to: utc(2027, 2, 1, 0, 0)},
		{name: "a window going on after the range keeps its end", rules: []config.FreezeRule{yearEnd},
			in:   func(in *deploy.GovernanceInput) { in.Labels = map[string]string{"region": "us"} },
			from: utc(2026, 12, 20, 0, 0), to: utc(2026, 12, 25, 0, 0),
			want: "year-end 2026-12-24T00:00:00Z 2027-01-03T00:00:00Z\n"},
		{name: "absolute windows apart stay apart", rules: []config.FreezeRule{{Name: "two",
			Absolute: []config.AbsoluteWindow{{From: "2026-06-02T00:00:00Z", To: "2026-06-03T00:00:00Z"}, {From: "2026-06-01T00:00:00Z", To: "2026-06-01T12:00:00Z"}}}},
			from: weekday, to: utc(2026, 7, 1, 0, 0),
			want: "two 2026-06-01T00:00:00Z 2026-06-01T12:00:00Z\n" +
				"two 2026-06-02T00:00:00Z 2026-06-03T00:00:00Z\n"},
		{name: "Saturday and Sunday touch: one weekend", rules: []config.FreezeRule{{Name: "weekend",
			Recurring: []config.RecurringWindow{{Cron: "0 0 * * SAT,SUN", Duration: 24 * time.Hour}}}},
			from: weekday, to: utc(2026, 5, 16, 1, 0),
			want: "weekend 2026-05-16T00:00:00Z 2026-05-18T00:00:00Z 0 0 * * SAT,SUN@UTC\n"},
		{name: "a recurring window and an absolute one that overlap are one freeze, not recurring",
			rules: []config.FreezeRule{{Name: "mixed",
				Absolute:  []config.AbsoluteWindow{{From: "2026-05-16T18:00:00Z", To: "2026-05-17T06:00:00Z"}},
				Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: 24 * time.Hour}}}},
			from: weekday, to: utc(2026, 5, 25, 0, 0),
			want: "mixed 2026-05-16T18:00:00Z 2026-05-18T00:00:00Z\n" +
				"mixed 2026-05-24T00:00:00Z 2026-05-25T00:00:00Z 0 0 * * SUN@UTC\n"},
		{name: "two rules, sorted by start then by rule order", rules: []config.FreezeRule{sundays, {Name: "saturday",
			Match:     config.FreezeMatch{Environment: "prod"},
			Recurring: []config.RecurringWindow{{Cron: "0 12 * * SAT", Duration: 12 * time.Hour}}}, {Name: "also-sunday",
			Recurring: []config.RecurringWindow{{Cron: "0 0 * * SUN", Duration: time.Hour}}}},
			from: weekday, to: utc(2026, 5, 18, 0, 0),
			want: "saturday 2026-05-16T12:00:00Z 2026-05-17T00:00:00Z 0 12 * * SAT@UTC\n" +
				"sunday 2026-05-17T00:00:00Z 2026-05-18T00:00:00Z 0 0 * * SUN@UTC\n" +
				"also-sunday 2026-05-17T00:00:00Z 2026-05-17T01:00:00Z 0 0 * * SUN@UTC\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustRules(t, config.Governance{Freezes: tt.rules})
			got, err := g.Calendar(context.Background(), input(tt.in), tt.from, tt.to)
			if err != nil {
				t.Fatal(err)
			}
			if s := showWindows(got); s != tt.want {
				t.Errorf("Calendar =\n%swant\n%s", s, tt.want)
			}
		})
	}
}

// TestCalendarAgreesWithFrozen checks that a window in force at from ends
// when Frozen says the freeze ends, chained windows included.
func TestCalendarAgreesWithFrozen(t *testing.T) {
	for _, w := range []config.RecurringWindow{
		{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
		{Cron: "0 0 * * SAT,SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
		{Cron: "0 * * * *", Duration: 90 * time.Minute, Timezone: "UTC"},
		{Cron: "30 8 * * 1-5", Duration: 2 * time.Hour, Timezone: "Europe/Paris"},
	} {
		g := mustRules(t, config.Governance{Freezes: []config.FreezeRule{{Name: "w", Recurring: []config.RecurringWindow{w}}}})
		for at := weekday; at.Before(weekday.Add(7 * 24 * time.Hour)); at = at.Add(7 * time.Hour) {
			in := input(func(in *deploy.GovernanceInput) { in.Time = at })
			f, _ := g.Frozen(context.Background(), in)
			ws, err := g.Calendar(context.Background(), in, at, at.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			var inForce *deploy.FreezeWindow
			if len(ws) > 0 && !ws[0].Start.After(at) {
				inForce = &ws[0]
			}
			switch {
			case f == nil && inForce != nil:
				t.Errorf("%s at %s: calendar %+v, Frozen says not frozen", w.Cron, at, inForce)
			case f != nil && (inForce == nil || !inForce.End.Equal(f.Until)):
				t.Errorf("%s at %s: calendar %+v, Frozen until %s", w.Cron, at, inForce, f.Until)
			}
		}
	}
}

func TestCalendarIsBounded(t *testing.T) {
	g := mustRules(t, config.Governance{Freezes: []config.FreezeRule{{Name: "busy",
		Recurring: []config.RecurringWindow{{Cron: "* * * * *", Duration: 30 * time.Second}}}}})
	ws, err := g.Calendar(context.Background(), input(nil), weekday, weekday.Add(90*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != governance.MaxCalendarWindows || !ws[len(ws)-1].Start.Equal(weekday.Add(199*time.Minute)) {
		t.Errorf("%d windows, the last at %v", len(ws), ws[len(ws)-1].Start)
	}
}

func TestRegoHasNoCalendar(t *testing.T) {
	g := mustRego(t, config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"})
	_, err := g.Calendar(context.Background(), input(nil), weekday, weekday.Add(time.Hour))
	if deploy.ErrorCode(err) != deploy.EUNPROCESSABLE || !strings.Contains(err.Error(), "not available with a Rego policy") {
		t.Errorf("Calendar with Rego: %v, want UNPROCESSABLE", err)
	}
}
