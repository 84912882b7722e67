package dora_test

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/dora"
)

// monday is the start of ISO week 2026-W02 (UTC).
var monday = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

func at(h float64) time.Time { return monday.Add(time.Duration(h * float64(time.Hour))) }

func ptr(t time.Time) *time.Time { return &t }

// dep is a deploy of shop/prod submitted at hour sub and finished at hour
// fin after monday, changed by the options.
func dep(id string, sub, fin float64, state string, opts ...func(*dora.Outcome)) dora.Outcome {
	o := dora.Outcome{ID: id, Tenant: "acme", Application: "shop", Environment: "prod",
		SubmittedAt: at(sub), StartedAt: ptr(at(sub)), FinishedAt: ptr(at(fin)), State: state, TouchedTarget: true}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func untouched(o *dora.Outcome)   { o.TouchedTarget = false }
func remediation(o *dora.Outcome) { o.Remediation = true }
func rolledBack(o *dora.Outcome)  { o.Rollback = "completed" }
func running(o *dora.Outcome)     { o.FinishedAt = nil }
func notNeeded(o *dora.Outcome)   { o.Rollback = "not_needed" }
func rollbackOf(id string) func(*dora.Outcome) {
	return func(o *dora.Outcome) { o.RollbackOf = id }
}
func changedAt(h float64) func(*dora.Outcome) {
	return func(o *dora.Outcome) { o.ChangeAt = ptr(at(h)) }
}
func inEnv(e string) func(*dora.Outcome) {
	return func(o *dora.Outcome) { o.Environment = e }
}

// figures is what a golden history states of one bucket.
type figures struct {
	Deploys     []string
	LeadTime    time.Duration
	LeadIDs     []string
	Failed      []string
	CFR         float64
	Recovery    time.Duration
	Recovered   []string
	Unrecovered []string
	Rework      []string
	Bands       [4]dora.Band // frequency, lead time, change fail rate, recovery
}

func summarize(f dora.Figures) figures {
	return figures{
		Deploys:     f.DeploymentFrequency.DeployIDs,
		LeadTime:    f.LeadTime.Median,
		LeadIDs:     f.LeadTime.DeployIDs,
		Failed:      f.ChangeFailRate.DeployIDs,
		CFR:         f.ChangeFailRate.Rate,
		Recovery:    f.RecoveryTime.Median.Median,
		Recovered:   f.RecoveryTime.DeployIDs,
		Unrecovered: f.RecoveryTime.Unrecovered,
		Rework:      f.ReworkRate.DeployIDs,
		Bands: [4]dora.Band{f.DeploymentFrequency.Band, f.LeadTime.Band,
			f.ChangeFailRate.Band, f.RecoveryTime.Band},
	}
}

func TestComputeGoldenHistories(t *testing.T) {
	hour := time.Hour
	tests := []struct {
		name     string
		history  []dora.Outcome
		weeks    int // from monday
		window   time.Duration
		minimum  int
		expected []figures
	}{
		{
			name: "no deploys", weeks: 2, minimum: 1,
			expected: []figures{{Bands: [4]dora.Band{dora.Low}}, {Bands: [4]dora.Band{dora.Low}}},
		},
		{
			name: "only failures, never recovered", weeks: 1, minimum: 1,
			history: []dora.Outcome{
				dep("a", 1, 2, dora.StateError),
				dep("b", 3, 4, dora.StateError, rolledBack),
				dep("c", 5, 6, dora.StateError),
			},
			expected: []figures{{
				Deploys: []string{"a", "b", "c"}, Failed: []string{"a", "b", "c"}, CFR: 1,
				Unrecovered: []string{"a", "b", "c"},
				Bands:       [4]dora.Band{dora.High, "", dora.Low, ""},
			}},
		},
		{
			name: "a failure recovered and one never recovered", weeks: 1, minimum: 1,
			history: []dora.Outcome{
				dep("a", 0, 1, dora.StateSuccess, notNeeded),
				dep("b", 10, 11, dora.StateError),
				dep("c", 12, 13.5, dora.StateSuccess),
				dep("d", 20, 21, dora.StateError),
				// another environment's success does not recover prod
				dep("e", 22, 23, dora.StateSuccess, inEnv("staging")),
			},
			expected: []figures{{
				Deploys: []string{"a", "b", "c", "d", "e"}, LeadTime: hour, LeadIDs: []string{"a", "c", "e"},
				Failed: []string{"b", "d"}, CFR: 0.4, Recovery: 150 * time.Minute, Recovered: []string{"b"},
				Unrecovered: []string{"d"},
				Bands:       [4]dora.Band{dora.High, dora.Elite, dora.Low, dora.High},
			}},
		},
		{
			name: "deploys across a bucket boundary", weeks: 2, minimum: 1,
			history: []dora.Outcome{
				// submitted on Sunday, finished on Monday: the second week's
				dep("a", 167, 168.5, dora.StateSuccess),
				// failed on Sunday night, recovered on Monday: the first week's
				dep("b", 160, 166, dora.StateError),
			},
			expected: []figures{
				{Deploys: []string{"b"}, Failed: []string{"b"}, CFR: 1, Recovery: 2*hour + 30*time.Minute,
					Recovered: []string{"b"}, Bands: [4]dora.Band{dora.High, "", dora.Low, dora.High}},
				{Deploys: []string{"a"}, LeadTime: 90 * time.Minute, LeadIDs: []string{"a"},
					Bands: [4]dora.Band{dora.High, dora.Elite, dora.Elite, ""}},
			},
		},
		{
			name: "a rollback deploy within the window fails the deploy it undoes, one after it does not", weeks: 2, minimum: 1,
			history: []dora.Outcome{
				dep("a", 0, 1, dora.StateSuccess),
				dep("a.rollback", 5, 6, dora.StateSuccess, rollbackOf("a")),
				dep("b", 30, 31, dora.StateSuccess),
				dep("b.rollback", 56, 57, dora.StateSuccess, rollbackOf("b")), // 25 h after b
			},
			expected: []figures{{
				Deploys: []string{"a", "a.rollback", "b", "b.rollback"}, LeadTime: hour,
				LeadIDs: []string{"a", "a.rollback", "b", "b.rollback"}, Failed: []string{"a"}, CFR: 0.25,
				Recovery: 5 * hour, Recovered: []string{"a"}, Rework: []string{"a.rollback", "b.rollback"},
				Bands: [4]dora.Band{dora.High, dora.Elite, dora.Low, dora.High},
			}, {Bands: [4]dora.Band{dora.Low}}},
		},
		{
			name: "a remediation within the window fails the deploy before it", weeks: 1, minimum: 1,
			history: []dora.Outcome{
				dep("a", 0, 1, dora.StateSuccess),
				dep("b", 2, 3, dora.StateSuccess),
				dep("fix", 4, 4.5, dora.StateSuccess, remediation),
				dep("late", 60, 61, dora.StateSuccess),
				dep("latefix", 90, 91, dora.StateSuccess, remediation), // 29 h after late
			},
			window: 24 * hour,
			expected: []figures{{
				Deploys: []string{"a", "b", "fix", "late", "latefix"}, LeadTime: hour,
				LeadIDs: []string{"a", "b", "fix", "late", "latefix"}, Failed: []string{"b"}, CFR: 0.2,
				Recovery: 90 * time.Minute, Recovered: []string{"b"}, Rework: []string{"fix", "latefix"},
				Bands: [4]dora.Band{dora.High, dora.Elite, dora.Medium, dora.High},
			}},
		},
		{
			name: "a shorter window", weeks: 1, minimum: 1, window: hour,
			history: []dora.Outcome{
				dep("a", 0, 1, dora.StateSuccess),
				dep("fix", 3, 4, dora.StateSuccess, remediation),
			},
			expected: []figures{{
				Deploys: []string{"a", "fix"}, LeadTime: hour, LeadIDs: []string{"a", "fix"},
				Rework: []string{"fix"}, Bands: [4]dora.Band{dora.High, dora.Elite, dora.Elite, ""},
			}},
		},
		{
			name: "deploys that changed nothing or still run are not deployments", weeks: 1, minimum: 1,
			history: []dora.Outcome{
				dep("refused", 0, 1, "REJECTED", untouched),
				dep("early", 0, 1, dora.StateError, untouched),
				dep("cancelled", 0, 1, "CANCELLED", untouched),
				dep("running", 0, 1, "PENDING", running),
				dep("ok", 2, 3, dora.StateSuccess, changedAt(-46)),
				// a change time after the submission is not believed
				dep("skewed", 2, 5, dora.StateSuccess, changedAt(4)),
				dep("plain", 2, 4, dora.StateSuccess),
			},
			expected: []figures{{
				Deploys: []string{"ok", "plain", "skewed"}, LeadTime: 3 * hour, LeadIDs: []string{"ok", "plain", "skewed"},
				Bands: [4]dora.Band{dora.High, dora.Elite, dora.Elite, ""},
			}},
		},
		{
			name: "not enough data below the threshold", weeks: 1,
			history: []dora.Outcome{
				dep("a", 0, 1, dora.StateSuccess),
				dep("b", 2, 3, dora.StateError),
				dep("c", 4, 5, dora.StateSuccess),
			},
			expected: []figures{{
				Deploys: []string{"a", "b", "c"}, LeadTime: hour, LeadIDs: []string{"a", "c"},
				Failed: []string{"b"}, CFR: 1.0 / 3, Recovery: 2 * hour, Recovered: []string{"b"},
				Bands: [4]dora.Band{dora.High, "", "", ""},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := dora.Compute(tt.history, dora.Options{
				From: monday, To: monday.AddDate(0, 0, 7*tt.weeks), FailureWindow: tt.window, MinSamples: tt.minimum})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Weeks) != len(tt.expected) {
				t.Fatalf("%d weeks, expected %d", len(rep.Weeks), len(tt.expected))
			}
			for i, w := range rep.Weeks {
				if y, n := w.Start.ISOWeek(); y != w.Year || n != w.Week || !w.Start.Equal(monday.AddDate(0, 0, 7*i)) {
					t.Errorf("week %d is %d-W%02d from %s", i, w.Year, w.Week, w.Start)
				}
				if got := summarize(w.Figures); !reflect.DeepEqual(got, tt.expected[i]) {
					t.Errorf("week %d:\n got      %+v\n expected %+v", i, got, tt.expected[i])
				}
			}
		})
	}
}

func TestComputeRefusesAnEmptyRange(t *testing.T) {
	for _, to := range []time.Time{monday, monday.Add(-time.Hour)} {
		if _, err := dora.Compute(nil, dora.Options{From: monday, To: to}); !errors.Is(err, dora.ErrRange) {
			t.Errorf("to %s: %v, expected ErrRange", to, err)
		}
	}
}

func TestComputeTotalsTheRange(t *testing.T) {
	var history []dora.Outcome
	// two successes a day for two weeks, and a failure
	for i := range 28 {
		h := float64(i * 12)
		history = append(history, dep(string(rune('a'+i%26))+string(rune('0'+i/26)), h, h+0.5, dora.StateSuccess))
	}
	history = append(history, dep("bad", 200, 200.75, dora.StateError))
	// a deploy of the week before counts nowhere
	history = append(history, dep("before", -48, -47, dora.StateSuccess))
	// the range is widened to the whole weeks it meets: a0 counts
	rep, err := dora.Compute(history, dora.Options{From: monday.Add(time.Hour), To: monday.AddDate(0, 0, 13)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.From.Equal(monday) || !rep.To.Equal(monday.AddDate(0, 0, 14)) || len(rep.Weeks) != 2 {
		t.Errorf("range %s to %s in %d weeks, expected two whole weeks", rep.From, rep.To, len(rep.Weeks))
	}
	tot := rep.Total
	if tot.DeploymentFrequency.Deploys != 29 || tot.DeploymentFrequency.PerWeek != 14.5 || tot.DeploymentFrequency.Band != dora.Elite {
		t.Errorf("frequency %+v", tot.DeploymentFrequency)
	}
	if tot.LeadTime.Median != 30*time.Minute || tot.LeadTime.Samples != 28 || tot.LeadTime.Band != dora.Elite {
		t.Errorf("lead time %+v", tot.LeadTime.Median)
	}
	if r := tot.ChangeFailRate; r.Count != 1 || r.Of != 29 || !r.Enough || r.Band != dora.Elite {
		t.Errorf("change fail rate %+v", r)
	}
	if r := tot.RecoveryTime; r.Samples != 1 || r.Enough || r.Band != "" || len(r.Recoveries) != 1 ||
		r.Recoveries[0] != (dora.Recovered{Failed: "bad", RecoveredBy: "r0", After: 3*time.Hour + 45*time.Minute}) {
		t.Errorf("recovery %+v", r)
	}
}

// Range is the figures of the range as asked, not widened: the rolling
// periods of the wall's strip. The weeks and the total stay whole weeks.
func TestComputeRangeIsExact(t *testing.T) {
	var history []dora.Outcome
	// a success every 12 hours for two weeks, finished half an hour later
	for i := range 28 {
		h := float64(i * 12)
		history = append(history, dep(string(rune('a'+i%26))+string(rune('0'+i/26)), h, h+0.5, dora.StateSuccess))
	}
	history = append(history, dep("bad", 200, 200.75, dora.StateError))
	tests := []struct {
		name            string
		from, to        time.Time
		deploys         int
		perWeek         float64
		failed          []string
		recovered       int
		enoughLeadTimes bool
	}{
		// a0 (finished at 0.5 h) and a2 and c2 (312.5 h, 324.5 h) are outside
		{"inside two weeks", at(1), at(312), 26, 26 / (311.0 / 168), []string{"bad"}, 1, true},
		// bad is recovered after the period ends: still recovered
		{"a period ending before the recovery", at(190), at(201), 2, 2 / (11.0 / 168), []string{"bad"}, 1, false},
		{"a period of nothing", at(-100), at(-1), 0, 0, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := dora.Compute(history, dora.Options{From: tt.from, To: tt.to})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Range
			if f := r.DeploymentFrequency; f.Deploys != tt.deploys || math.Abs(f.PerWeek-tt.perWeek) > 1e-9 {
				t.Errorf("frequency %d, %v per week; expected %d, %v", f.Deploys, f.PerWeek, tt.deploys, tt.perWeek)
			}
			if got := r.ChangeFailRate.DeployIDs; !reflect.DeepEqual(got, tt.failed) {
				t.Errorf("failed %v, expected %v", got, tt.failed)
			}
			if got := len(r.RecoveryTime.Recoveries); got != tt.recovered {
				t.Errorf("%d recoveries, expected %d", got, tt.recovered)
			}
			if r.LeadTime.Enough != tt.enoughLeadTimes {
				t.Errorf("lead time enough %v, expected %v", r.LeadTime.Enough, tt.enoughLeadTimes)
			}
			var whole int
			for _, w := range rep.Weeks {
				whole += w.DeploymentFrequency.Deploys
			}
			if whole != rep.Total.DeploymentFrequency.Deploys || rep.Total.DeploymentFrequency.Deploys < r.DeploymentFrequency.Deploys {
				t.Errorf("total %d, weeks %d, range %d: the total is the whole weeks", rep.Total.DeploymentFrequency.Deploys, whole,
					r.DeploymentFrequency.Deploys)
			}
		})
	}
}
