package crontick

import (
	"testing"
	"time"
)

func TestPlan(t *testing.T) {
	sched, err := Parse("0 3 * * *", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, base, now, want string
	}{
		{"next tick in the future", "2026-11-30T10:00:00Z", "2026-11-30T10:00:01Z", "2026-12-01T02:00:00Z"},
		{"one missed tick runs", "2026-11-29T10:00:00Z", "2026-11-30T10:00:00Z", "2026-11-30T02:00:00Z"},
		{"several missed ticks run once, the latest", "2026-11-20T10:00:00Z", "2026-11-30T10:00:00Z", "2026-11-30T02:00:00Z"},
		{"summer time", "2026-07-01T10:00:00Z", "2026-07-01T10:00:01Z", "2026-07-02T01:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sched.Plan(at(tt.base), at(tt.now)); !got.Equal(at(tt.want)) {
				t.Fatalf("Plan = %s, want %s", got, tt.want)
			}
		})
	}
	if got := sched.Next(at("2026-11-30T02:00:00Z")); !got.Equal(at("2026-12-01T02:00:00Z")) {
		t.Fatalf("Next = %s", got)
	}
}

func TestParseRefusesBadInput(t *testing.T) {
	for _, c := range [][2]string{{"61 * * * *", "UTC"}, {"* * * * *", "Mars/Base"}} {
		if _, err := Parse(c[0], c[1]); err == nil {
			t.Errorf("Parse(%q, %q) accepted", c[0], c[1])
		}
	}
}
