package crontick

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
)

// maxMissedScan bounds the search of the latest missed tick.
const maxMissedScan = 200_000

// Schedule is a parsed cron expression in its time zone.
type Schedule struct {
	sched cron.Schedule
	loc   *time.Location
}

// Parse reads a 5-field cron expression evaluated in the time zone tz.
func Parse(expr, tz string) (Schedule, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return Schedule{}, fmt.Errorf("time zone %q: %w", tz, err)
	}
	s, err := cron.ParseStandard(expr)
	if err != nil {
		return Schedule{}, fmt.Errorf("cron %q: %w", expr, err)
	}
	return Schedule{sched: s, loc: loc}, nil
}

// Next is the first tick after t, in UTC.
func (s Schedule) Next(t time.Time) time.Time { return s.sched.Next(t.In(s.loc)).UTC() }

// Plan returns the tick to run after base: the next one or, when several
// were missed before now (the workers were down), only the latest of them.
func (s Schedule) Plan(base, now time.Time) time.Time {
	tick := s.sched.Next(base.In(s.loc))
	for range maxMissedScan {
		next := s.sched.Next(tick)
		if next.After(now) || next.IsZero() {
			break
		}
		tick = next
	}
	return tick.UTC()
}
