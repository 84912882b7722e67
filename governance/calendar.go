package governance

import (
	"context"
	"slices"
	"time"

	"manent.dev/manent/deploy"
)

// MaxCalendarWindows bounds the answer of Calendar: a calendar is read by
// people, and a cron of every minute would otherwise list thousands.
const MaxCalendarWindows = 200

// maxCalendarParts bounds the windows Calendar reads, merged or not, so
// that a dense schedule over a long range costs a bounded time.
const maxCalendarParts = 100_000

// Calendar lists the windows of every matching freeze rule that intersect
// [from, to), each rule's windows merged when they overlap or touch (as
// Frozen reports one freeze for them), sorted by start then by rule order;
// at most MaxCalendarWindows. A window in force at from keeps its real
// start, and one that goes on after to is followed to its real end (as far
// as Frozen follows it).
func (r *Rules) Calendar(_ context.Context, in deploy.GovernanceInput, from, to time.Time) ([]deploy.FreezeWindow, error) {
	type ranked struct {
		deploy.FreezeWindow
		rule int
	}
	var all []ranked
	for i, cal := range r.freezes {
		if !freezeMatches(cal.rule.Match, in) {
			continue
		}
		for _, w := range cal.windows(from, to) {
			all = append(all, ranked{w, i})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return a.rule - b.rule
	})
	out := make([]deploy.FreezeWindow, 0, min(len(all), MaxCalendarWindows))
	for _, w := range all[:min(len(all), MaxCalendarWindows)] {
		out = append(out, w.FreezeWindow)
	}
	return out, nil
}

// part is one window of one source (an absolute range, or a tick of a
// recurring window and its duration).
type part struct {
	start, end time.Time
	// source is -1 for an absolute range, the index of the recurring window otherwise.
	source int
}

// windows merges the parts of one rule that intersect [from, to), in order.
func (c freezeCalendar) windows(from, to time.Time) []deploy.FreezeWindow {
	if !to.After(from) {
		return nil
	}
	next := c.parts(from)
	var (
		out     []deploy.FreezeWindow
		cur     *deploy.FreezeWindow
		sources []int
		chained int
	)
	flush := func() {
		if cur == nil {
			return
		}
		w := *cur
		w.Start, w.End = w.Start.UTC(), w.End.UTC()
		if s := sources[0]; s >= 0 && !slices.ContainsFunc(sources, func(o int) bool { return o != s }) {
			w.Recurring, w.Cron, w.TimeZone = true, c.recurring[s].cron, c.recurring[s].timezone
		}
		out = append(out, w)
		cur, sources = nil, nil
	}
	for range maxCalendarParts {
		p, ok := next()
		if !ok {
			break
		}
		if cur != nil && !p.start.After(cur.End) {
			// Overlaps or touches: one freeze. Past to, only as far as
			// Frozen chains windows.
			if !p.start.Before(to) {
				if chained++; chained > maxChained {
					break
				}
			}
			if p.end.After(cur.End) {
				cur.End = p.end
			}
			sources = append(sources, p.source)
			continue
		}
		flush()
		if !p.start.Before(to) || len(out) >= MaxCalendarWindows {
			break
		}
		cur, sources = &deploy.FreezeWindow{Rule: c.rule.Name, Start: p.start, End: p.end}, []int{p.source}
	}
	flush()
	return out
}

// parts returns an iterator over the parts of the rule that end after
// from, by start: the absolute ranges and the ticks of every recurring
// window, merged as sorted streams.
func (c freezeCalendar) parts(from time.Time) func() (part, bool) {
	abs := slices.Clone(c.absolute)
	abs = slices.DeleteFunc(abs, func(w [2]time.Time) bool { return !w[1].After(from) })
	slices.SortFunc(abs, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	// heads[i] is the next tick of recurring window i (zero: none left).
	heads := make([]time.Time, len(c.recurring))
	for i, w := range c.recurring {
		// Next is strictly after its argument: the first window that ends
		// after from, [tick, tick+d).
		heads[i] = w.schedule.Next(from.Add(-w.duration))
	}
	return func() (part, bool) {
		best := -2
		var start time.Time
		if len(abs) > 0 {
			best, start = -1, abs[0][0]
		}
		for i, h := range heads {
			if !h.IsZero() && (best == -2 || h.Before(start)) {
				best, start = i, h
			}
		}
		switch best {
		case -2:
			return part{}, false
		case -1:
			p := part{start: abs[0][0], end: abs[0][1], source: -1}
			abs = abs[1:]
			return p, true
		default:
			w := c.recurring[best]
			p := part{start: start, end: start.Add(w.duration), source: best}
			heads[best] = w.schedule.Next(start)
			return p, true
		}
	}
}
