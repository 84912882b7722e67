package governance

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Lookup is what governance needs from the store: only mandatory promotion
// uses it, so a configuration without promotion rules may pass nil.
type Lookup interface {
	// SucceededDeploys returns the deploys of tenant/application that
	// released artifactName at version in environment and ended SUCCESS
	// (dry-runs excluded), in any order; none is an empty slice, not an error.
	SucceededDeploys(ctx context.Context, tenant, application, environment, artifactName, version string) ([]Success, error)
}

// Success is one deploy that succeeded, as promotion needs it.
type Success struct {
	DeploymentID string
	FinishedAt   time.Time
}

// Field paths of the refusals.
const (
	PathFreeze    = "governance.freeze"
	PathPromotion = "governance.promotion"
	PathPolicy    = "governance.policy"
)

// Requirements a decision lists in Decision.Requires.
const (
	RequireApprovals = "approvals"
	RequireChange    = "change"
)

// FromConfig returns the governor manent.yml describes: the Rego policy
// when governance.rego is set (read now), the YAML rules otherwise.
func FromConfig(cfg config.Governance, lookup Lookup) (deploy.Governor, error) {
	if cfg.Rego == "" {
		return New(cfg, lookup)
	}
	module, err := os.ReadFile(cfg.Rego)
	if err != nil {
		return nil, fmt.Errorf("governance: read rego policy: %w", err)
	}
	return NewRego(string(module), lookup)
}

// outcome is what the YAML rules or the policy found, before the freeze
// override is applied and the decision is put into its final form: both
// implementations share that last step so that their decisions cannot drift.
type outcome struct {
	rules     []string
	refusals  []deploy.FieldError
	freeze    *deploy.Freeze
	approvals *deploy.ApprovalRequirement
	change    *deploy.ChangeRequirement
	promotion *deploy.PromotionCheck
}

// decision applies the freeze override and returns the decision, or a
// refusal (*deploy.Error, EUNPROCESSABLE) with every reason, sorted.
func (o *outcome) decision(in deploy.GovernanceInput) (deploy.Decision, error) {
	refusals := slices.Clone(o.refusals)
	var d deploy.Decision
	rules := slices.Clone(o.rules)
	if f := o.freeze; f != nil {
		if in.FreezeOverride == "" {
			refusals = append(refusals, deploy.FieldError{Path: PathFreeze, Message: freezeMessage(in, f)})
		} else {
			d.Freeze = &deploy.Freeze{Window: f.Window, Until: f.Until.UTC(), Overridden: true, Reason: in.FreezeOverride}
			rules = append(rules, f.Window)
		}
	}
	if len(refusals) > 0 {
		slices.SortFunc(refusals, func(a, b deploy.FieldError) int {
			return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
		})
		refusals = slices.Compact(refusals)
		return deploy.Decision{}, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "refused by governance", Fields: refusals, Permanent: true}
	}
	d.Approvals, d.Change, d.Promotion = o.approvals, o.change, o.promotion
	if d.Approvals != nil {
		d.Requires = append(d.Requires, RequireApprovals)
	}
	if d.Change != nil {
		d.Requires = append(d.Requires, RequireChange)
	}
	rules = slices.DeleteFunc(rules, func(s string) bool { return s == "" })
	slices.Sort(rules)
	d.Rule = strings.Join(slices.Compact(rules), ", ")
	d.Reason = reason(d)
	return d, nil
}

// frozen returns the freeze window of the outcome as Frozen answers it.
func (o *outcome) frozen(in deploy.GovernanceInput) *deploy.Freeze {
	if o.freeze == nil {
		return nil
	}
	f := &deploy.Freeze{Window: o.freeze.Window, Until: o.freeze.Until.UTC()}
	if in.FreezeOverride != "" {
		f.Overridden, f.Reason = true, in.FreezeOverride
	}
	return f
}

func freezeMessage(in deploy.GovernanceInput, f *deploy.Freeze) string {
	return fmt.Sprintf("%s is frozen by window %q until %s (a freezeOverride with a reason and deployment.freeze-override allow a deploy in it)",
		in.Environment, f.Window, f.Until.UTC().Format(time.RFC3339))
}

// reason explains the decision in one sentence for status and validate.
func reason(d deploy.Decision) string {
	var parts []string
	if f := d.Freeze; f != nil {
		parts = append(parts, fmt.Sprintf("freeze %q (until %s) overridden: %s", f.Window, f.Until.Format(time.RFC3339), f.Reason))
	}
	if p := d.Promotion; p != nil {
		parts = append(parts, fmt.Sprintf("promoted from %s (deploy %s)", p.From, p.SatisfiedBy))
	}
	if a := d.Approvals; a != nil {
		s := fmt.Sprintf("waits for %d approval(s) by other identities within %s", a.Count, deploy.FormatDuration(a.Expiry))
		switch {
		case len(a.Groups) > 0 && len(a.Roles) > 0:
			s += " from groups " + strings.Join(a.Groups, ", ") + " or roles " + strings.Join(a.Roles, ", ")
		case len(a.Groups) > 0:
			s += " from " + strings.Join(a.Groups, ", ")
		case len(a.Roles) > 0:
			s += " from roles " + strings.Join(a.Roles, ", ")
		}
		parts = append(parts, s)
	}
	if c := d.Change; c != nil {
		parts = append(parts, "waits for a change ticket approved through "+c.Connector)
	}
	return strings.Join(parts, "; ")
}

// maxChained bounds the walk over windows that overlap or touch.
const maxChained = 1000

// recurringWindow reports whether t falls in a window of s that lasts d:
// the window opened at the latest tick at or before t, found by walking the
// ticks of the last d (ticks are computed in the schedule's time zone, so
// daylight saving changes move them as the wall clock does). until is when
// the freeze really ends: windows that overlap or touch make one.
func recurringWindow(s *cron.SpecSchedule, d time.Duration, t time.Time) (start, until time.Time, ok bool) {
	// Next is strictly after its argument, so a window that ended exactly at
	// t is not found: [start, start+d).
	for tick := s.Next(t.Add(-d)); !tick.IsZero() && !tick.After(t); tick = s.Next(tick) {
		start = tick
	}
	if start.IsZero() {
		return start, until, false
	}
	until = start.Add(d)
	last := start
	for range maxChained {
		next := s.Next(last)
		if next.IsZero() || next.After(until) {
			break
		}
		last, until = next, next.Add(d)
	}
	return start.UTC(), until.UTC(), true
}
