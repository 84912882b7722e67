package graph

import (
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// DefaultFreezeCalendarRange is the range of a calendar asked without an end.
const DefaultFreezeCalendarRange = 30 * 24 * time.Hour

// calendarRange applies the defaults of freezeCalendar: from now, for 30
// days, and never more than the Service lists, so that the range the
// answer reports is the one its windows cover.
func calendarRange(now time.Time, from, to *time.Time) (time.Time, time.Time) {
	start := now.UTC().Truncate(time.Second)
	if from != nil {
		start = from.UTC()
	}
	end := start.Add(DefaultFreezeCalendarRange)
	if to != nil {
		end = to.UTC()
	}
	if end.Sub(start) > deploy.MaxFreezeCalendarRange {
		end = start.Add(deploy.MaxFreezeCalendarRange)
	}
	return start, end
}

// toModelFreezeCalendar picks the window in force at from (the one that
// ends last: the freeze lasts until then at least) and the next to open.
func toModelFreezeCalendar(ws []deploy.FreezeWindow, from, to time.Time) *model.FreezeCalendar {
	out := &model.FreezeCalendar{Windows: make([]model.FreezeWindow, len(ws)), From: from, To: to}
	for i, w := range ws {
		out.Windows[i] = model.FreezeWindow{Rule: w.Rule, Start: w.Start.UTC(), End: w.End.UTC(), Recurring: w.Recurring}
		if w.Recurring {
			out.Windows[i].Cron, out.Windows[i].TimeZone = &w.Cron, &w.TimeZone
		}
	}
	for i, w := range ws {
		switch {
		case !w.Start.After(from) && w.End.After(from):
			if out.FrozenNow == nil || w.End.After(out.FrozenNow.End) {
				out.FrozenNow = &out.Windows[i]
			}
		case w.Start.After(from) && out.Next == nil:
			// Sorted by start: the first is the next.
			out.Next = &out.Windows[i]
		}
	}
	return out
}

// toModelEnvironmentFreezeCalendars gives each environment its calendar,
// or none where the viewer may not read it.
func toModelEnvironmentFreezeCalendars(cals []deploy.EnvironmentFreezes, from, to time.Time) []model.EnvironmentFreezeCalendar {
	out := make([]model.EnvironmentFreezeCalendar, len(cals))
	for i, c := range cals {
		out[i] = model.EnvironmentFreezeCalendar{Tenant: c.Resource.Tenant, Application: c.Resource.Application, Environment: c.Resource.Environment}
		if c.Readable {
			out[i].Calendar = toModelFreezeCalendar(c.Windows, from, to)
		}
	}
	return out
}
