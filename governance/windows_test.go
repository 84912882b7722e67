package governance_test

import (
	"context"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// TestRecurringWindows checks the edges of recurring windows through Frozen.
func TestRecurringWindows(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		window config.RecurringWindow
		at     time.Time
		until  time.Time // zero: not frozen
	}{
		{"at the tick", config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
			time.Date(2026, 5, 17, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)},
		{"one second before the tick", config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
			time.Date(2026, 5, 16, 23, 59, 59, 0, time.UTC), time.Time{}},
		{"at the end", config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
			time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC), time.Time{}},
		{"Sunday in another zone is not Sunday UTC", config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "Pacific/Auckland"},
			time.Date(2026, 5, 17, 13, 0, 0, 0, time.UTC), time.Time{}},
		{"Sunday in Auckland", config.RecurringWindow{Cron: "0 0 * * SUN", Duration: 24 * time.Hour, Timezone: "Pacific/Auckland"},
			time.Date(2026, 5, 16, 13, 0, 0, 0, time.UTC), time.Date(2026, 5, 17, 12, 0, 0, 0, time.UTC)},
		// 8 March 2026: New York moves from EST (UTC-5) to EDT (UTC-4); 09:00 follows the wall clock.
		{"09:00 local after the DST change", config.RecurringWindow{Cron: "0 9 * * *", Duration: time.Hour, Timezone: "America/New_York"},
			time.Date(2026, 3, 8, 9, 30, 0, 0, ny), time.Date(2026, 3, 8, 10, 0, 0, 0, ny)},
		{"09:00 EST would be 10:00 EDT: outside", config.RecurringWindow{Cron: "0 9 * * *", Duration: time.Hour, Timezone: "America/New_York"},
			time.Date(2026, 3, 8, 14, 30, 0, 0, time.UTC), time.Time{}},
		{"the day before, still EST", config.RecurringWindow{Cron: "0 9 * * *", Duration: time.Hour, Timezone: "America/New_York"},
			time.Date(2026, 3, 7, 14, 30, 0, 0, time.UTC), time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC)},
		{"a window longer than its period chains", config.RecurringWindow{Cron: "0 * * * *", Duration: 90 * time.Minute, Timezone: "UTC"},
			time.Date(2026, 5, 13, 10, 10, 0, 0, time.UTC), time.Date(2026, 5, 13, 10, 0, 0, 0, time.UTC).Add(maxChain())},
		{"weekend: Saturday and Sunday touch", config.RecurringWindow{Cron: "0 0 * * SAT,SUN", Duration: 24 * time.Hour, Timezone: "UTC"},
			time.Date(2026, 5, 16, 12, 0, 0, 0, time.UTC), time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Governance{Freezes: []config.FreezeRule{{Name: "w", Recurring: []config.RecurringWindow{tt.window}}}}
			for kind, g := range map[string]deploy.Governor{"yaml": mustRules(t, cfg), "rego": mustRego(t, tt.window)} {
				f, err := g.Frozen(context.Background(), deploy.GovernanceInput{Environment: "prod", Time: tt.at})
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case tt.until.IsZero() && f != nil:
					t.Errorf("%s: frozen until %v, want not frozen", kind, f.Until)
				case !tt.until.IsZero() && (f == nil || !f.Until.Equal(tt.until) || f.Until.Location() != time.UTC):
					t.Errorf("%s: Frozen = %+v, want until %v (UTC)", kind, f, tt.until.UTC())
				}
			}
		})
	}
}

// maxChain is how far the walk over chained hourly windows goes: 1000
// more ticks after the first, each extending the freeze by an hour.
func maxChain() time.Duration { return 1000*time.Hour + 90*time.Minute }

func mustRules(t *testing.T, cfg config.Governance) *governance.Rules {
	t.Helper()
	g, err := governance.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustRego(t *testing.T, w config.RecurringWindow) *governance.Rego {
	t.Helper()
	g, err := governance.NewRego(`package manent.governance
decision := {"freeze": {"window": "w", "until": w.until}} if {
	w := manent.recurring_window("`+w.Cron+`", "`+w.Duration.String()+`", "`+w.Timezone+`", input.time_ns)
} else := {}
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", -time.Second: "0s", 999 * time.Millisecond: "0s", 45 * time.Second: "45s", 10 * time.Minute: "10m",
		time.Hour: "1h", 90 * time.Minute: "1h30m", 26*time.Hour + 5*time.Second: "26h5s",
	} {
		if got := deploy.FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
