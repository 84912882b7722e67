package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"manent.dev/manent/deploy"
)

// maxFields bounds the problems of one plan: a fleet of 500 rejected
// targets is reported by its first ones.
const maxFields = 100

// AllPass is the name of the single pass of a rollout without waves or
// percentages, and of a deploy without rollout.
const AllPass = "all"

// Plan places targets in the passes and batches of spec. Every target gets
// exactly one outcome, in the order written: excluded when it matches
// spec.Exclude (whatever the rule), else rejected when it does not match
// spec.Rule, else targeted in the first wave that selects it (a wave's
// count caps it; the others fall through to later waves). A nil spec is the
// single pass over every target of a deploy without rollout: pass and
// batch 0, as its steps are keyed.
//
// The plan is returned with an EUNPROCESSABLE *deploy.Error, one field per
// problem, when targets share a name (targets[i], which idempotency keys
// could not tell apart), a target is rejected or in no wave (targets[i]),
// or every target is excluded (rollout.exclude): the deploy then fails
// before any target is touched.
func Plan(targets []deploy.Target, spec *deploy.RolloutSpec) (deploy.RolloutPlan, error) {
	p := planner{targets: targets, spec: spec}
	return p.plan()
}

type planner struct {
	targets []deploy.Target
	spec    *deploy.RolloutSpec
	out     deploy.RolloutPlan
	fields  []deploy.FieldError
	more    int
}

func (p *planner) fail(path, format string, args ...any) {
	if len(p.fields) == maxFields {
		p.more++
		return
	}
	p.fields = append(p.fields, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (p *planner) plan() (deploy.RolloutPlan, error) {
	p.out.Targets = make([]deploy.PlannedTarget, len(p.targets))
	seen := make(map[string]int, len(p.targets))
	for i, t := range p.targets {
		name := t.Name()
		p.out.Targets[i] = deploy.PlannedTarget{Name: name, Labels: maps.Clone(t.Labels)}
		if j, dup := seen[name]; dup {
			p.fail(targetPath(i), "%s is also targets[%d]: each target is deployed once", name, j)
			continue
		}
		seen[name] = i
	}
	eligible := p.sort()
	switch {
	case p.spec == nil:
		p.out.Passes = []deploy.RolloutPass{p.pass(0, AllPass, eligible, deploy.Amount{}, deploy.Amount{})}
	case len(p.spec.Waves) > 0:
		p.waves(eligible)
	case len(p.spec.Percentages) > 0:
		p.percentages(eligible)
	default:
		pass := p.pass(1, AllPass, eligible, deploy.Amount{}, p.spec.MaxFailures)
		pass.Bake = p.spec.Bake
		p.out.Passes = []deploy.RolloutPass{pass}
	}
	if p.spec != nil && len(eligible) == 0 && len(p.targets) > 0 && !p.anyRejected() {
		p.fail("rollout.exclude", "every target is excluded: there is nothing to deploy")
	}
	return p.out, p.err()
}

func (p *planner) err() error {
	if len(p.fields) == 0 {
		return nil
	}
	fields := p.fields
	if p.more > 0 {
		fields = append(fields, deploy.FieldError{Message: fmt.Sprintf("and %d more problems", p.more)})
	}
	return &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "the targets do not fit the rollout", Fields: fields}
}

func targetPath(i int) string { return "targets[" + strconv.Itoa(i) + "]" }

// sort decides the excluded and rejected targets and returns the indexes
// of the others, in order.
func (p *planner) sort() []int {
	var eligible []int
	for i, t := range p.targets {
		pt := &p.out.Targets[i]
		switch {
		case p.spec != nil && p.spec.Exclude != nil && p.spec.Exclude.Matches(t):
			pt.Outcome, pt.Reason = deploy.OutcomeExcluded, "matches rollout.exclude ("+labels(p.spec.Exclude.Labels)+")"
		case p.spec != nil && p.spec.Rule != nil && !p.spec.Rule.Matches(t):
			p.reject(i, "does not match rollout.rule: "+mismatch(*p.spec.Rule, t))
		default:
			pt.Outcome = deploy.OutcomeTargeted
			eligible = append(eligible, i)
		}
	}
	return eligible
}

func (p *planner) reject(i int, reason string) {
	pt := &p.out.Targets[i]
	pt.Outcome, pt.Reason = deploy.OutcomeRejected, reason
	p.fail(targetPath(i), "%s: rejected: %s", pt.Name, reason)
}

func (p *planner) anyRejected() bool {
	return slices.ContainsFunc(p.out.Targets, func(t deploy.PlannedTarget) bool { return t.Outcome == deploy.OutcomeRejected })
}

// waves takes the eligible targets into the waves, in order.
func (p *planner) waves(eligible []int) {
	taken := make([]bool, len(p.targets))
	for wi, w := range p.spec.Waves {
		var selected []int
		for _, i := range eligible {
			if !taken[i] && (w.Select == nil || w.Select.Matches(p.targets[i])) {
				selected = append(selected, i)
			}
		}
		if !w.Count.IsZero() {
			selected = selected[:w.Count.Of(len(selected))]
		}
		for _, i := range selected {
			taken[i] = true
		}
		pass := p.pass(wi+1, w.Name, selected, w.Batch, p.spec.MaxFailures)
		pass.Bake, pass.Approval = p.spec.WaveBake(wi), w.Approval
		p.out.Passes = append(p.out.Passes, pass)
	}
	for _, i := range eligible {
		if !taken[i] {
			p.reject(i, "no wave of rollout.waves takes it: add a last wave without select, or exclude it")
		}
	}
}

// percentages cuts the eligible targets at cumulative shares: each pass
// takes up to its share rounded up, at least one target while the fleet
// leaves one for every later pass, and the last pass takes the rest.
func (p *planner) percentages(eligible []int) {
	n, k := len(eligible), len(p.spec.Percentages)
	prev := 0
	for i, pct := range p.spec.Percentages {
		c := (pct*n + 99) / 100
		if lo, hi := prev+1, n-(k-1-i); lo <= hi {
			c = min(max(c, lo), hi)
		} else {
			c = min(max(c, prev), n)
		}
		if i == k-1 {
			c = n
		}
		pass := p.pass(i+1, strconv.Itoa(pct)+"%", eligible[prev:c], deploy.Amount{}, p.spec.MaxFailures)
		pass.Bake = p.spec.Bake
		p.out.Passes = append(p.out.Passes, pass)
		prev = c
	}
}

// pass builds pass index of the targets members, in batches of batch (the
// whole pass when unset; a percentage of the pass rounds up; the last
// batch takes the rest). Index 0 is the pass of a deploy without rollout,
// whose one batch is 0 too.
func (p *planner) pass(index int, name string, members []int, batch, maxFailures deploy.Amount) deploy.RolloutPass {
	pass := deploy.RolloutPass{Index: index, Name: name, Batches: []deploy.RolloutBatch{}, MaxFailures: tolerated(maxFailures, len(members))}
	size := len(members)
	if !batch.IsZero() {
		size = max(batch.Of(len(members)), 1)
	}
	for start := 0; start < len(members); start += size {
		b := deploy.RolloutBatch{Targets: []string{}}
		if index > 0 {
			b.Index = len(pass.Batches) + 1
		}
		for _, i := range members[start:min(start+size, len(members))] {
			pt := &p.out.Targets[i]
			pt.Pass, pt.Batch = index, b.Index
			b.Targets = append(b.Targets, pt.Name)
		}
		pass.Batches = append(pass.Batches, b)
	}
	return pass
}

// tolerated is max_failures for a wave of n targets: a percentage rounds
// down, so "10%" of 5 targets tolerates none. It is at most n-1: a wave
// whose every target failed has shown nothing but failure, so it never
// passes, whatever max_failures says ("100%", or 1 for a canary of one).
func tolerated(a deploy.Amount, n int) int {
	t := min(a.N, n)
	if a.Percent {
		t = a.N * n / 100
	}
	return max(min(t, n-1), 0)
}

func labels(m map[string]string) string {
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ", ")
}

// mismatch says which labels of the rule t lacks or has otherwise.
func mismatch(rule deploy.Selector, t deploy.Target) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(rule.Labels)) {
		got, ok := t.Labels[k]
		switch {
		case !ok:
			parts = append(parts, "no label "+k+" (wants "+rule.Labels[k]+")")
		case got != rule.Labels[k]:
			parts = append(parts, k+" is "+got+", not "+rule.Labels[k])
		}
	}
	return strings.Join(parts, "; ")
}
