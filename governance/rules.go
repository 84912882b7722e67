package governance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/robfig/cron/v3"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Rules implements deploy.Governor with the YAML rules of manent.yml. It is
// safe for concurrent use.
//
// Dry-runs are not subject to governance: the engine does not call it for
// them. The caller must check deployment.freeze-override itself and clear
// GovernanceInput.FreezeOverride when the requester lacks it: Rules takes a
// non-empty FreezeOverride as an accepted override.
type Rules struct {
	cfg     config.Governance
	lookup  Lookup
	freezes []freezeCalendar
}

var (
	_ deploy.Governor       = (*Rules)(nil)
	_ deploy.FreezeCalendar = (*Rules)(nil)
	_ deploy.TargetFreezes  = (*Rules)(nil)
	_ deploy.PromotionOrder = (*Rules)(nil)
)

type freezeCalendar struct {
	rule      config.FreezeRule
	absolute  [][2]time.Time
	recurring []recurring
}

type recurring struct {
	schedule *cron.SpecSchedule
	duration time.Duration
	// cron and timezone as written, for the calendar.
	cron, timezone string
}

// New compiles the YAML rules; cfg is expected to be validated by config
// (New still refuses what it cannot evaluate). lookup may be nil when there
// is no promotion rule.
func New(cfg config.Governance, lookup Lookup) (*Rules, error) {
	if cfg.Rego != "" {
		return nil, fmt.Errorf("governance: governance.rego is set: use NewRego")
	}
	if len(cfg.Promotion) > 0 && lookup == nil {
		return nil, fmt.Errorf("governance: promotion rules need a lookup")
	}
	r := &Rules{cfg: cfg, lookup: lookup}
	for i, f := range cfg.Freezes {
		cal := freezeCalendar{rule: f}
		for j, w := range f.Absolute {
			from, to, err := w.Range()
			if err != nil {
				return nil, fmt.Errorf("governance: freezes[%d].absolute[%d]: %w", i, j, err)
			}
			cal.absolute = append(cal.absolute, [2]time.Time{from, to})
		}
		for j, w := range f.Recurring {
			s, err := w.Schedule()
			if err != nil {
				return nil, fmt.Errorf("governance: freezes[%d].recurring[%d]: %w", i, j, err)
			}
			if w.Duration <= 0 || w.Duration > config.MaxFreezeDuration {
				return nil, fmt.Errorf("governance: freezes[%d].recurring[%d]: duration out of range", i, j)
			}
			cal.recurring = append(cal.recurring, recurring{schedule: s, duration: w.Duration, cron: w.Cron, timezone: cmp.Or(w.Timezone, "UTC")})
		}
		r.freezes = append(r.freezes, cal)
	}
	return r, nil
}

// Decide applies, in order: freezes (refused unless overridden), every
// matching promotion rule (refused with what is missing), the first
// matching approval rule and the first matching change rule.
func (r *Rules) Decide(ctx context.Context, in deploy.GovernanceInput) (deploy.Decision, error) {
	o := &outcome{freeze: r.frozen(in)}
	for _, p := range r.cfg.Promotion {
		if !matches(p.Match, in) {
			continue
		}
		o.rules = append(o.rules, p.Name)
		check, problem, err := r.promotion(ctx, p, in)
		if err != nil {
			return deploy.Decision{}, err
		}
		if problem != "" {
			o.refusals = append(o.refusals, deploy.FieldError{Path: PathPromotion, Message: problem})
		} else if o.promotion == nil {
			o.promotion = check
		}
	}
	for _, a := range r.cfg.Approvals {
		if matches(a.Match, in) {
			o.rules = append(o.rules, a.Name)
			o.approvals = &deploy.ApprovalRequirement{Count: a.Count, Groups: slices.Clone(a.Groups), Roles: slices.Clone(a.Roles), Expiry: a.Expiry}
			break
		}
	}
	for _, c := range r.cfg.Change {
		if matches(c.Match, in) {
			o.rules = append(o.rules, c.Name)
			o.change = &deploy.ChangeRequirement{Connector: c.Connector}
			break
		}
	}
	return o.decision(in)
}

// Frozen returns the first matching freeze window in force at in.Time, with
// Overridden set when in.FreezeOverride is: the config step refuses to run
// only when the result is non-nil and not overridden.
func (r *Rules) Frozen(_ context.Context, in deploy.GovernanceInput) (*deploy.Freeze, error) {
	o := outcome{freeze: r.frozen(in)}
	return o.frozen(in), nil
}

// frozen returns the first matching calendar with a window in force, and
// the latest end among its windows in force. A calendar narrowed to
// targets never freezes the environment as a whole (FrozenTargets).
func (r *Rules) frozen(in deploy.GovernanceInput) *deploy.Freeze {
	for _, cal := range r.freezes {
		if cal.rule.Targets != nil || !freezeMatches(cal.rule.Match, in) {
			continue
		}
		if f := cal.inForce(in.Time); f != nil {
			return f
		}
	}
	return nil
}

// FrozenTargets implements deploy.TargetFreezes: of the matching
// calendars narrowed to targets that select one of targets and have a
// window in force at in.Time, the one ending last (its name and end: the
// wave waits for every one of them), with every target they select, in
// the order of targets; Overridden as Frozen sets it.
func (r *Rules) FrozenTargets(_ context.Context, in deploy.GovernanceInput, targets []deploy.Target) (*deploy.Freeze, error) {
	var latest *deploy.Freeze
	frozen := map[string]bool{}
	for _, cal := range r.freezes {
		if cal.rule.Targets == nil || !freezeMatches(cal.rule.Match, in) {
			continue
		}
		f := cal.inForce(in.Time)
		if f == nil {
			continue
		}
		selects := false
		for _, t := range targets {
			if cal.rule.Targets.Selects(t.Labels) {
				selects, frozen[t.Name()] = true, true
			}
		}
		if selects && (latest == nil || f.Until.After(latest.Until)) {
			latest = f
		}
	}
	if latest == nil {
		return nil, nil
	}
	for _, t := range targets {
		if frozen[t.Name()] {
			latest.Targets = append(latest.Targets, t.Name())
			frozen[t.Name()] = false
		}
	}
	latest.Overridden = in.FreezeOverride != ""
	if latest.Overridden {
		latest.Reason = in.FreezeOverride
	}
	return latest, nil
}

// inForce is the freeze of the calendar at t, nil when none of its windows
// is in force then; until is the latest end among those in force.
func (cal freezeCalendar) inForce(t time.Time) *deploy.Freeze {
	var until time.Time
	for _, w := range cal.absolute {
		if !t.Before(w[0]) && t.Before(w[1]) && w[1].After(until) {
			until = w[1]
		}
	}
	for _, w := range cal.recurring {
		if _, end, ok := recurringWindow(w.schedule, w.duration, t); ok && end.After(until) {
			until = end
		}
	}
	if until.IsZero() {
		return nil
	}
	return &deploy.Freeze{Window: cal.rule.Name, Until: until.UTC()}
}

// promotion checks one rule: what is missing, or the deploy that satisfies it.
func (r *Rules) promotion(ctx context.Context, p config.PromotionRule, in deploy.GovernanceInput) (*deploy.PromotionCheck, string, error) {
	a := in.Artifact
	what := a.Name + " " + a.Version
	done, err := r.lookup.SucceededDeploys(ctx, in.Tenant, in.Application, p.From, a.Name, a.Version)
	if err != nil {
		return nil, "", fmt.Errorf("governance: promotion from %s: %w", p.From, err)
	}
	if len(done) == 0 {
		return nil, fmt.Sprintf("%s has not succeeded in %s", what, p.From), nil
	}
	if p.InService && !inService(in, p.From) {
		return nil, fmt.Sprintf("%s is no longer in service in %s", what, p.From), nil
	}
	var best *Success
	oldest := done[0].FinishedAt
	for i, s := range done {
		if s.FinishedAt.Before(oldest) {
			oldest = s.FinishedAt
		}
		if in.Time.Sub(s.FinishedAt) < p.Soak {
			continue
		}
		if best == nil || s.FinishedAt.After(best.FinishedAt) || (s.FinishedAt.Equal(best.FinishedAt) && s.DeploymentID > best.DeploymentID) {
			best = &done[i]
		}
	}
	if best == nil {
		return nil, fmt.Sprintf("%s succeeded in %s %s ago, soak is %s", what, p.From, deploy.FormatDuration(in.Time.Sub(oldest)), deploy.FormatDuration(p.Soak)), nil
	}
	return &deploy.PromotionCheck{From: p.From, SatisfiedBy: best.DeploymentID}, "", nil
}

// NextEnvironments implements deploy.PromotionOrder: the environments
// named by the match of a promotion rule whose from is in.Environment and
// which matches in otherwise. A rule whose match names no environment
// applies to every environment: it tells no order and adds none.
func (r *Rules) NextEnvironments(in deploy.GovernanceInput) []string {
	var out []string
	for _, p := range r.cfg.Promotion {
		next := in
		next.Environment = p.Match.Environment
		if p.From != in.Environment || next.Environment == "" || next.Environment == in.Environment || !matches(p.Match, next) {
			continue
		}
		if !slices.Contains(out, next.Environment) {
			out = append(out, next.Environment)
		}
	}
	slices.Sort(out)
	return out
}

func inService(in deploy.GovernanceInput, env string) bool {
	for _, e := range in.Inventory {
		if e.Tenant == in.Tenant && e.Application == in.Application && e.Environment == env &&
			e.Artifact.Name == in.Artifact.Name && e.Artifact.Version == in.Artifact.Version {
			return true
		}
	}
	return false
}

func matches(m config.Match, in deploy.GovernanceInput) bool {
	if !field(m.Tenant, in.Tenant) || !field(m.Application, in.Application) || !field(m.Environment, in.Environment) {
		return false
	}
	for k, v := range m.Labels {
		if got, ok := in.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func freezeMatches(m config.FreezeMatch, in deploy.GovernanceInput) bool {
	return field(m.Tenant, in.Tenant) && field(m.Application, in.Application) &&
		field(m.Environment, in.Environment) && field(m.Region, in.Labels["region"])
}

func field(want, got string) bool { return want == "" || want == got }
