package rollout_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/rollout"
)

// fleet builds targets named by path from "name:key=value,key=value".
func fleet(specs ...string) []deploy.Target {
	out := make([]deploy.Target, len(specs))
	for i, s := range specs {
		name, ls, _ := strings.Cut(s, ":")
		t := deploy.Target{Path: name}
		if ls != "" {
			t.Labels = map[string]string{}
			for _, kv := range strings.Split(ls, ",") {
				k, v, _ := strings.Cut(kv, "=")
				t.Labels[k] = v
			}
		}
		out[i] = t
	}
	return out
}

func sel(kv ...string) *deploy.Selector {
	s := &deploy.Selector{Labels: map[string]string{}}
	for i := 0; i < len(kv); i += 2 {
		s.Labels[kv[i]] = kv[i+1]
	}
	return s
}

func count(n int) deploy.Amount   { return deploy.Amount{N: n} }
func percent(n int) deploy.Amount { return deploy.Amount{N: n, Percent: true} }

// layout shows a plan's passes as name#index[batch][batch], and the
// targets that are not targeted as name=outcome.
func layout(p deploy.RolloutPlan) string {
	var parts []string
	for _, pass := range p.Passes {
		s := fmt.Sprintf("%s#%d", pass.Name, pass.Index)
		for _, b := range pass.Batches {
			s += "[" + strings.Join(b.Targets, ",") + "]"
		}
		parts = append(parts, s)
	}
	for _, t := range p.Targets {
		if t.Outcome != deploy.OutcomeTargeted {
			parts = append(parts, t.Name+"="+string(t.Outcome))
		}
	}
	return strings.Join(parts, " ")
}

func fieldsOf(err error) []string {
	var de *deploy.Error
	if !errors.As(err, &de) {
		return nil
	}
	out := make([]string, len(de.Fields))
	for i, f := range de.Fields {
		out[i] = f.String()
	}
	return out
}

func TestPlan(t *testing.T) {
	regions := fleet("eu1:region=eu", "eu2:region=eu", "eu3:region=eu", "us1:region=us", "us2:region=us", "ap1:region=ap")
	tests := []struct {
		name    string
		targets []deploy.Target
		spec    *deploy.RolloutSpec
		want    string
		errs    []string
	}{
		{
			name:    "nil spec: one pass, one batch, every target, indexes 0",
			targets: fleet("a", "b", "c"),
			want:    "all#0[a,b,c]",
		},
		{
			name:    "one target",
			targets: fleet("a"),
			spec:    &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "only", Batch: count(3)}}},
			want:    "only#1[a]",
		},
		{
			name:    "no waves nor percentages: one pass of every target",
			targets: fleet("a", "b"),
			spec:    &deploy.RolloutSpec{Bake: time.Minute},
			want:    "all#1[a,b]",
		},
		{
			name:    "the issue's waves: a canary capped by count, the rest of eu in batches of 2, then the others",
			targets: regions,
			spec: &deploy.RolloutSpec{Waves: []deploy.WaveSpec{
				{Name: "canary", Select: sel("region", "eu"), Count: count(1)},
				{Name: "eu", Select: sel("region", "eu"), Batch: count(2)},
				{Name: "rest", Batch: percent(50)},
			}},
			want: "canary#1[eu1] eu#2[eu2,eu3] rest#3[us1,us2][ap1]",
		},
		{
			name:    "a target selected by two waves belongs to the first",
			targets: fleet("a:tier=web,zone=1", "b:tier=web,zone=2", "c:tier=db,zone=1"),
			spec: &deploy.RolloutSpec{Waves: []deploy.WaveSpec{
				{Name: "zone1", Select: sel("zone", "1")},
				{Name: "web", Select: sel("tier", "web")},
				{Name: "rest"},
			}},
			want: "zone1#1[a,c] web#2[b] rest#3",
		},
		{
			name:    "empty waves are kept, with no batch",
			targets: fleet("a:region=eu", "b:region=eu"),
			spec: &deploy.RolloutSpec{Waves: []deploy.WaveSpec{
				{Name: "us", Select: sel("region", "us")},
				{Name: "eu", Select: sel("region", "eu")},
				{Name: "rest"},
			}},
			want: "us#1 eu#2[a,b] rest#3",
		},
		{
			name:    "count as a percentage of the selected targets rounds up",
			targets: fleet("a", "b", "c", "d", "e"),
			spec: &deploy.RolloutSpec{Waves: []deploy.WaveSpec{
				{Name: "canary", Count: percent(10)},
				{Name: "rest"},
			}},
			want: "canary#1[a] rest#2[b,c,d,e]",
		},
		{
			name:    "a count larger than the selection takes it all",
			targets: fleet("a", "b"),
			spec:    &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "w", Count: count(5)}}},
			want:    "w#1[a,b]",
		},
		{
			name:    "batch as a percentage rounds up, the last batch takes the rest",
			targets: fleet("a", "b", "c", "d", "e", "f", "g"),
			spec:    &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "w", Batch: percent(30)}}},
			want:    "w#1[a,b,c][d,e,f][g]",
		},
		{
			name:    "batch as a count",
			targets: fleet("a", "b", "c", "d", "e"),
			spec:    &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "w", Batch: count(2)}}},
			want:    "w#1[a,b][c,d][e]",
		},
		{
			name:    "percentages that divide evenly",
			targets: fleet("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"),
			spec:    &deploy.RolloutSpec{Percentages: []int{10, 50, 100}},
			want:    "10%#1[a] 50%#2[b,c,d,e] 100%#3[f,g,h,i,j]",
		},
		{
			name:    "percentages that do not divide evenly round each share up",
			targets: fleet("a", "b", "c", "d", "e", "f", "g"),
			spec:    &deploy.RolloutSpec{Percentages: []int{33, 66, 100}},
			want:    "33%#1[a,b,c] 66%#2[d,e] 100%#3[f,g]",
		},
		{
			name:    "percentages give every pass a target while the fleet allows",
			targets: fleet("a", "b", "c"),
			spec:    &deploy.RolloutSpec{Percentages: []int{90, 95, 100}},
			want:    "90%#1[a] 95%#2[b] 100%#3[c]",
		},
		{
			name:    "a fleet smaller than the passes leaves the middle ones empty",
			targets: fleet("a", "b"),
			spec:    &deploy.RolloutSpec{Percentages: []int{10, 50, 100}},
			want:    "10%#1[a] 50%#2 100%#3[b]",
		},
		{
			name:    "exclude: never touched, whatever the rule",
			targets: fleet("a:os=linux", "b:os=linux,maintenance=true", "c:os=windows,maintenance=true"),
			spec:    &deploy.RolloutSpec{Rule: sel("os", "linux"), Exclude: sel("maintenance", "true"), Waves: []deploy.WaveSpec{{Name: "all"}}},
			want:    "all#1[a] b=excluded c=excluded",
		},
		{
			name:    "percentages count only the targets not excluded",
			targets: fleet("a", "m:maintenance=true", "b", "c", "d"),
			spec:    &deploy.RolloutSpec{Exclude: sel("maintenance", "true"), Percentages: []int{50, 100}},
			want:    "50%#1[a,b] 100%#2[c,d] m=excluded",
		},
		{
			name:    "rule: the targets that do not match are rejected, every one named",
			targets: fleet("a:os=linux", "b:os=windows", "c"),
			spec:    &deploy.RolloutSpec{Rule: sel("os", "linux")},
			want:    "all#1[a] b=rejected c=rejected",
			errs: []string{
				"targets[1]: b: rejected: does not match rollout.rule: os is windows, not linux",
				"targets[2]: c: rejected: does not match rollout.rule: no label os (wants linux)",
			},
		},
		{
			name:    "a target no wave takes is rejected",
			targets: fleet("a:region=eu", "b:region=us"),
			spec:    &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "eu", Select: sel("region", "eu")}}},
			want:    "eu#1[a] b=rejected",
			errs:    []string{"targets[1]: b: rejected: no wave of rollout.waves takes it: add a last wave without select, or exclude it"},
		},
		{
			name:    "every target excluded",
			targets: fleet("a:maintenance=true"),
			spec:    &deploy.RolloutSpec{Exclude: sel("maintenance", "true")},
			want:    "all#1 a=excluded",
			errs:    []string{"rollout.exclude: every target is excluded: there is nothing to deploy"},
		},
		{
			name:    "targets of the same name",
			targets: fleet("a", "b", "a"),
			spec:    &deploy.RolloutSpec{},
			want:    "all#1[a,b,a]",
			errs:    []string{"targets[2]: a is also targets[0]: each target is deployed once"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.Plan(tt.targets, tt.spec)
			if l := layout(got); l != tt.want {
				t.Errorf("plan %s\nwant %s", l, tt.want)
			}
			if errs := fieldsOf(err); strings.Join(errs, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("errors %q\nwant   %q", errs, tt.errs)
			}
			if (err == nil) != (tt.errs == nil) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestPlanTargets(t *testing.T) {
	bake, long := 2*time.Minute, time.Hour
	targets := fleet("eu1:region=eu", "m:maintenance=true", "eu2:region=eu", "us1:region=us")
	spec := &deploy.RolloutSpec{
		Exclude: sel("maintenance", "true"), Bake: 30 * time.Second, MaxFailures: percent(50),
		Waves: []deploy.WaveSpec{
			{Name: "canary", Select: sel("region", "eu"), Count: count(1), Bake: &bake},
			{Name: "eu", Select: sel("region", "eu"), Approval: true, Bake: &long},
			{Name: "rest"},
		},
	}
	got, err := rollout.Plan(targets, spec)
	if err != nil {
		t.Fatal(err)
	}
	wantTargets := []deploy.PlannedTarget{
		{Name: "eu1", Labels: map[string]string{"region": "eu"}, Outcome: deploy.OutcomeTargeted, Pass: 1, Batch: 1},
		{Name: "m", Labels: map[string]string{"maintenance": "true"}, Outcome: deploy.OutcomeExcluded, Reason: "matches rollout.exclude (maintenance=true)"},
		{Name: "eu2", Labels: map[string]string{"region": "eu"}, Outcome: deploy.OutcomeTargeted, Pass: 2, Batch: 1},
		{Name: "us1", Labels: map[string]string{"region": "us"}, Outcome: deploy.OutcomeTargeted, Pass: 3, Batch: 1},
	}
	if fmt.Sprint(got.Targets) != fmt.Sprint(wantTargets) {
		t.Errorf("targets %+v\nwant    %+v", got.Targets, wantTargets)
	}
	type passInfo struct {
		bake        time.Duration
		approval    bool
		maxFailures int
	}
	want := []passInfo{{bake, false, 0}, {long, true, 0}, {30 * time.Second, false, 0}}
	for i, p := range got.Passes {
		if g := (passInfo{p.Bake, p.Approval, p.MaxFailures}); g != want[i] {
			t.Errorf("pass %d: %+v, want %+v", i, g, want[i])
		}
	}
	if b := got.Passes[0].Batches[0].Select(targets); len(b) != 1 || b[0].Path != "eu1" {
		t.Errorf("Select = %+v", b)
	}
	// The labels are the plan's own: changing the targets after does not
	// change it.
	targets[0].Labels["region"] = "us"
	if got.Targets[0].Labels["region"] != "eu" {
		t.Error("the plan shares the targets' labels")
	}
}

// Targets on one host are told apart by their login and port: two SSH
// targets behind one bastion are two machines, each deployed once and
// selected into its own batch; the same login on the same port twice is
// still one target given twice.
func TestPlanTargetsOnOneHost(t *testing.T) {
	tests := []struct {
		name    string
		targets []deploy.Target
		want    string
		errs    []string
	}{
		{
			name:    "two ports",
			targets: []deploy.Target{{Host: "bastion", Port: 2201}, {Host: "bastion", Port: 2202}},
			want:    "all#1[bastion:2201][bastion:2202]",
		},
		{
			name:    "two logins",
			targets: []deploy.Target{{Host: "bastion", User: "app"}, {Host: "bastion", User: "ops"}},
			want:    "all#1[app@bastion][ops@bastion]",
		},
		{
			name:    "a login on a port and the host alone",
			targets: []deploy.Target{{Host: "bastion", User: "app", Port: 2201}, {Host: "bastion"}},
			want:    "all#1[app@bastion:2201][bastion]",
		},
		{
			name:    "the same login and port twice",
			targets: []deploy.Target{{Host: "bastion", User: "app", Port: 2201}, {Host: "bastion", User: "app", Port: 2201}},
			want:    "all#1[app@bastion:2201][app@bastion:2201]",
			errs:    []string{"targets[1]: app@bastion:2201 is also targets[0]: each target is deployed once"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rollout.Plan(tt.targets, &deploy.RolloutSpec{Waves: []deploy.WaveSpec{{Name: "all", Batch: count(1)}}})
			if l := layout(got); l != tt.want {
				t.Errorf("plan %s\nwant %s", l, tt.want)
			}
			if errs := fieldsOf(err); strings.Join(errs, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("errors %q\nwant   %q", errs, tt.errs)
			}
			if err != nil {
				return
			}
			// Each batch gives its plugin step its own target.
			for _, b := range got.Passes[0].Batches {
				sel := b.Select(tt.targets)
				if len(sel) != 1 || sel[0].Name() != b.Targets[0] {
					t.Errorf("batch %d selects %+v, want the target %s alone", b.Index, sel, b.Targets[0])
				}
			}
		})
	}
}

func TestPlanMaxFailures(t *testing.T) {
	targets := fleet("a", "b", "c", "d", "e")
	for _, tt := range []struct {
		amount deploy.Amount
		want   int
	}{
		// A wave never passes with all its targets failed: at most 4 of 5.
		{deploy.Amount{}, 0}, {count(2), 2}, {count(4), 4}, {count(5), 4}, {count(9), 4},
		{percent(10), 0}, {percent(20), 1}, {percent(50), 2}, {percent(80), 4}, {percent(99), 4}, {percent(100), 4},
	} {
		got, err := rollout.Plan(targets, &deploy.RolloutSpec{MaxFailures: tt.amount})
		if err != nil {
			t.Fatal(err)
		}
		if n := got.Passes[0].MaxFailures; n != tt.want {
			t.Errorf("max_failures %s of 5: %d, want %d", tt.amount, n, tt.want)
		}
	}
}

// TestPlanWaveNeverToleratesAllItsTargets: whatever max_failures says, a
// wave of n targets tolerates at most n-1 failures (a canary of one none),
// and an empty wave none.
func TestPlanWaveNeverToleratesAllItsTargets(t *testing.T) {
	targets := fleet("c:role=canary", "a", "b", "d")
	for _, amount := range []deploy.Amount{count(1), count(3), count(100), percent(100), percent(75)} {
		spec := &deploy.RolloutSpec{MaxFailures: amount, Waves: []deploy.WaveSpec{
			{Name: "canary", Select: sel("role", "canary")},
			{Name: "none", Select: sel("role", "none")},
			{Name: "rest"},
		}}
		got, err := rollout.Plan(targets, spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range got.Passes {
			n := 0
			for _, b := range p.Batches {
				n += len(b.Targets)
			}
			if p.MaxFailures > max(n-1, 0) {
				t.Errorf("max_failures %s: wave %s of %d targets tolerates %d", amount, p.Name, n, p.MaxFailures)
			}
		}
		if got.Passes[0].MaxFailures != 0 {
			t.Errorf("max_failures %s: a canary of one tolerates %d failures, want 0", amount, got.Passes[0].MaxFailures)
		}
	}
}

func TestPlanBoundsItsErrors(t *testing.T) {
	targets := make([]deploy.Target, 300)
	for i := range targets {
		targets[i] = deploy.Target{Path: fmt.Sprintf("t%d", i)}
	}
	_, err := rollout.Plan(targets, &deploy.RolloutSpec{Rule: sel("os", "linux")})
	errs := fieldsOf(err)
	if len(errs) != 101 || errs[100] != "and 200 more problems" {
		t.Errorf("%d errors, last %q", len(errs), errs[len(errs)-1])
	}
}
