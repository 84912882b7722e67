package dora

import (
	"errors"
	"slices"
	"sort"
	"time"
)

// DefaultFailureWindow is how long after a deploy a rollback or a
// remediation deploy still marks it as failed.
const DefaultFailureWindow = 24 * time.Hour

// DefaultMinSamples is the fewest samples a figure needs to be shown with a
// band; below it the figure says "not enough data".
const DefaultMinSamples = 5

// Options are the range and the rules of a computation.
type Options struct {
	// From and To bound the range [From, To), widened to the whole ISO
	// weeks (UTC) it meets: a week is never shown in part, and the total is
	// the sum of the weeks.
	From, To time.Time
	// FailureWindow: 0 means DefaultFailureWindow.
	FailureWindow time.Duration
	// MinSamples: 0 means DefaultMinSamples.
	MinSamples int
}

// ErrRange is returned when the range is empty or reversed.
var ErrRange = errors.New("the range must end after it starts")

// Report is the five metrics over a range, week by week and in total.
type Report struct {
	From, To time.Time
	Weeks    []Week
	Total    Figures
	// Range is the figures of the range exactly as asked, not widened to
	// whole weeks: a rolling period (the last 28 days, and the 28 before,
	// of the wall's strip), deploys per week over its own length.
	Range Figures
}

// Week is one ISO week (Monday 00:00 UTC to the next Monday).
type Week struct {
	Year, Week int
	Start      time.Time
	Figures
}

// Figures are the five metrics of a bucket. A deploy belongs to the bucket
// in which it finished.
type Figures struct {
	DeploymentFrequency Frequency
	LeadTime            Median
	ChangeFailRate      Rate
	RecoveryTime        Recovery
	ReworkRate          Rate
}

// Frequency is the deployments of a bucket.
type Frequency struct {
	Deploys int
	// PerWeek is Deploys divided by the weeks of the bucket.
	PerWeek   float64
	Band      Band
	DeployIDs []string
}

// Median is a median duration over the deploys behind it.
type Median struct {
	Median    time.Duration
	Samples   int
	Enough    bool
	Band      Band
	DeployIDs []string
}

// Rate is Count of Of deployments; DeployIDs are the Count ones.
type Rate struct {
	Count, Of int
	Rate      float64
	Enough    bool
	Band      Band
	DeployIDs []string
}

// Recovery is the failed deployment recovery time: the median over the
// recovered failures, each listed, and the failures never recovered.
type Recovery struct {
	Median
	Recoveries  []Recovered
	Unrecovered []string
}

// Recovered is one failure and the success that ended it.
type Recovered struct {
	Failed, RecoveredBy string
	After               time.Duration
}

// Compute returns the metrics of outcomes over the range of opts. Outcomes
// outside the range still count as the rollbacks, remediations and
// recoveries of the deploys inside it.
func Compute(outcomes []Outcome, opts Options) (Report, error) {
	if !opts.To.After(opts.From) {
		return Report{}, ErrRange
	}
	if opts.FailureWindow <= 0 {
		opts.FailureWindow = DefaultFailureWindow
	}
	if opts.MinSamples <= 0 {
		opts.MinSamples = DefaultMinSamples
	}
	h := newHistory(outcomes, opts.FailureWindow)
	from, to := weekStart(opts.From), weekStart(opts.To.Add(-time.Nanosecond)).AddDate(0, 0, 7)
	rep := Report{From: from, To: to}
	var inRange []Outcome
	for _, o := range h.shipped {
		if inside(*o.FinishedAt, from, to) {
			inRange = append(inRange, o)
		}
	}
	for start := weekStart(from); start.Before(to); start = start.AddDate(0, 0, 7) {
		end := start.AddDate(0, 0, 7)
		var bucket []Outcome
		for _, o := range inRange {
			if inside(*o.FinishedAt, start, end) {
				bucket = append(bucket, o)
			}
		}
		y, w := start.ISOWeek()
		rep.Weeks = append(rep.Weeks, Week{Year: y, Week: w, Start: start, Figures: h.figures(bucket, 1, opts.MinSamples)})
	}
	rep.Total = h.figures(inRange, float64(len(rep.Weeks)), opts.MinSamples)
	var exact []Outcome
	for _, o := range inRange {
		if inside(*o.FinishedAt, opts.From, opts.To) {
			exact = append(exact, o)
		}
	}
	rep.Range = h.figures(exact, float64(opts.To.Sub(opts.From))/float64(week), opts.MinSamples)
	return rep, nil
}

func inside(t, from, to time.Time) bool { return !t.Before(from) && t.Before(to) }

// weekStart is the Monday 00:00 UTC of t's ISO week.
func weekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	back := (int(day.Weekday()) + 6) % 7 // Monday is 0
	return day.AddDate(0, 0, -back)
}

// history is every shipped deploy, by environment in finishing order, with
// the failures and recoveries the whole list shows.
type history struct {
	shipped   []Outcome
	failed    map[string]bool
	recovered map[string]Recovered
}

func newHistory(outcomes []Outcome, window time.Duration) history {
	h := history{failed: map[string]bool{}, recovered: map[string]Recovered{}}
	for _, o := range outcomes {
		if o.shipped() {
			h.shipped = append(h.shipped, o)
		}
	}
	sort.SliceStable(h.shipped, func(i, j int) bool { return h.shipped[i].FinishedAt.Before(*h.shipped[j].FinishedAt) })
	byID := map[string]Outcome{}
	for _, o := range h.shipped {
		byID[o.ID] = o
		// A rollback outcome alone is no failure: a success records
		// not_needed; an automatic rollback ran only for an ERROR.
		if o.State == StateError {
			h.failed[o.ID] = true
		}
	}
	for _, o := range outcomes {
		if o.RollbackOf != "" {
			if d, ok := byID[o.RollbackOf]; ok && within(o.SubmittedAt, *d.FinishedAt, window) {
				h.failed[d.ID] = true
			}
		}
		if o.Remediation {
			if d, ok := h.lastBefore(o.env(), o.SubmittedAt, o.ID); ok && within(o.SubmittedAt, *d.FinishedAt, window) {
				h.failed[d.ID] = true
			}
		}
	}
	for _, f := range h.shipped {
		if !h.failed[f.ID] {
			continue
		}
		if s, ok := h.nextSuccess(f); ok {
			h.recovered[f.ID] = Recovered{Failed: f.ID, RecoveredBy: s.ID, After: s.FinishedAt.Sub(*f.FinishedAt)}
		}
	}
	return h
}

// within reports whether t is in [start, start+window].
func within(t, start time.Time, window time.Duration) bool {
	return !t.Before(start) && !t.After(start.Add(window))
}

// lastBefore is the latest deploy of e finished by t, other than self: the
// one a remediation submitted at t fixes.
func (h history) lastBefore(e env, t time.Time, self string) (Outcome, bool) {
	for i := len(h.shipped) - 1; i >= 0; i-- {
		o := h.shipped[i]
		if o.env() == e && o.ID != self && !o.FinishedAt.After(t) {
			return o, true
		}
	}
	return Outcome{}, false
}

// nextSuccess is the first successful deploy of f's environment finished
// after f: service is restored then, even if that deploy is in turn found
// failed later (its own failure is counted on its own).
func (h history) nextSuccess(f Outcome) (Outcome, bool) {
	for _, o := range h.shipped {
		if o.env() == f.env() && o.ID != f.ID && o.State == StateSuccess && o.FinishedAt.After(*f.FinishedAt) {
			return o, true
		}
	}
	return Outcome{}, false
}

func (h history) figures(bucket []Outcome, weeks float64, minSamples int) Figures {
	var f Figures
	var ids []string
	var lead []time.Duration
	var leadIDs, failIDs, reworkIDs, recIDs []string
	var rec []time.Duration
	for _, o := range bucket {
		ids = append(ids, o.ID)
		if o.State == StateSuccess {
			lead = append(lead, o.FinishedAt.Sub(o.leadStart()))
			leadIDs = append(leadIDs, o.ID)
		}
		if o.rework() {
			reworkIDs = append(reworkIDs, o.ID)
		}
		if !h.failed[o.ID] {
			continue
		}
		failIDs = append(failIDs, o.ID)
		if r, ok := h.recovered[o.ID]; ok {
			f.RecoveryTime.Recoveries = append(f.RecoveryTime.Recoveries, r)
			rec = append(rec, r.After)
			recIDs = append(recIDs, o.ID)
		} else {
			f.RecoveryTime.Unrecovered = append(f.RecoveryTime.Unrecovered, o.ID)
		}
	}
	f.DeploymentFrequency = Frequency{Deploys: len(bucket), PerWeek: float64(len(bucket)) / weeks, DeployIDs: ids}
	f.DeploymentFrequency.Band = frequencyBand(f.DeploymentFrequency.PerWeek)
	f.LeadTime = median(lead, leadIDs, minSamples, leadTimeBand)
	f.RecoveryTime.Median = median(rec, recIDs, minSamples, recoveryBand)
	f.ChangeFailRate = rate(failIDs, len(bucket), minSamples, changeFailBand)
	f.ReworkRate = rate(reworkIDs, len(bucket), minSamples, nil)
	return f
}

func median(ds []time.Duration, ids []string, minSamples int, band func(time.Duration) Band) Median {
	m := Median{Samples: len(ds), DeployIDs: ids, Enough: len(ds) >= minSamples}
	if len(ds) == 0 {
		return m
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		m.Median = s[n/2]
	} else {
		m.Median = (s[n/2-1] + s[n/2]) / 2
	}
	if m.Enough {
		m.Band = band(m.Median)
	}
	return m
}

func rate(ids []string, of, minSamples int, band func(float64) Band) Rate {
	r := Rate{Count: len(ids), Of: of, DeployIDs: ids, Enough: of >= minSamples}
	if of > 0 {
		r.Rate = float64(len(ids)) / float64(of)
	}
	if r.Enough && band != nil {
		r.Band = band(r.Rate)
	}
	return r
}
