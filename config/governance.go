package config

import (
	"fmt"
	"manent.dev/manent/internal/itsm"
	"regexp"
	"strings"
	"time"
	// Freeze calendars name IANA zones: embedded so that a container
	// without /usr/share/zoneinfo reads them the same.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/yamltree"
)

// Governance is the governance section of manent.yml: YAML rules, or the
// path of a Rego policy (then the rule lists must be empty). Dry-runs are
// never subject to governance.
type Governance struct {
	// Approvals: the first rule that matches a deploy applies.
	Approvals []ApprovalRule `yaml:"approvals"`
	// Freezes: a deploy matched by a window in force is refused (unless overridden).
	Freezes []FreezeRule `yaml:"freezes"`
	// Promotion: every rule that matches must be satisfied.
	Promotion []PromotionRule `yaml:"promotion"`
	// Change: the first rule that matches applies.
	Change []ChangeRule `yaml:"change"`
	// Rego is the path of a Rego module (package manent.governance) used
	// instead of the rules above; relative to manent.yml.
	Rego string `yaml:"rego"`
	// Connectors are the ITSM connections change rules name.
	Connectors map[string]itsm.Config `yaml:"connectors"`
	// ChangePollInterval is how often a waiting deploy asks the ITSM whether
	// its change was approved (default 30s).
	ChangePollInterval time.Duration `yaml:"change_poll_interval"`
}

// Empty reports whether no YAML rule is written.
func (g Governance) Empty() bool {
	return len(g.Approvals) == 0 && len(g.Freezes) == 0 && len(g.Promotion) == 0 && len(g.Change) == 0
}

// Match selects deploys by tenant, application, environment and labels of
// the descriptor; an empty field matches anything, values are compared
// exactly, and every label given must be present with that value.
type Match struct {
	Tenant      string            `yaml:"tenant"`
	Application string            `yaml:"application"`
	Environment string            `yaml:"environment"`
	Labels      map[string]string `yaml:"labels"`
}

// FreezeMatch selects the deploys a freeze applies to; Region is the
// descriptor's label region.
type FreezeMatch struct {
	Tenant      string `yaml:"tenant"`
	Application string `yaml:"application"`
	Environment string `yaml:"environment"`
	Region      string `yaml:"region"`
}

// ApprovalRule requires approvals by identities other than the requester.
type ApprovalRule struct {
	Name  string `yaml:"name"`
	Match Match  `yaml:"match"`
	// Count distinct approvals are needed (default 1).
	Count int `yaml:"count"`
	// Groups, when set, restricts approvers to members of one of them.
	Groups []string `yaml:"groups"`
	// Roles, when set, lets holders of one of these RBAC roles approve
	// too (with groups: a member of a group or a holder of a role).
	Roles []string `yaml:"roles"`
	// Expiry is how long the deploy waits before it is EXPIRED (default 24h).
	Expiry time.Duration `yaml:"expiry"`
}

// Approval defaults.
const (
	DefaultApprovalCount  = 1
	DefaultApprovalExpiry = 24 * time.Hour
)

// SetDefaults gives a rule listed in manent.yml the defaults of absent keys.
func (r *ApprovalRule) SetDefaults() {
	r.Count = DefaultApprovalCount
	r.Expiry = DefaultApprovalExpiry
}

// FreezeRule is a freeze calendar: absolute ranges and recurring windows.
type FreezeRule struct {
	Name  string      `yaml:"name"`
	Match FreezeMatch `yaml:"match"`
	// Targets, when set, narrows the freeze to the targets whose labels
	// it selects: it no longer freezes the environment as a whole, it
	// defers the waves of a rollout with such a target until it ends.
	Targets   *FreezeTargets    `yaml:"targets"`
	Absolute  []AbsoluteWindow  `yaml:"absolute"`
	Recurring []RecurringWindow `yaml:"recurring"`
}

// FreezeTargets selects targets by their labels: a target matches when it
// carries every label given, with that value.
type FreezeTargets struct {
	Labels map[string]string `yaml:"labels"`
}

// Selects reports whether labels carry every label of the selector.
func (f FreezeTargets) Selects(labels map[string]string) bool {
	for k, v := range f.Labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// AbsoluteWindow is [From, To) in RFC 3339.
type AbsoluteWindow struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
}

// Range returns the window's bounds.
func (w AbsoluteWindow) Range() (from, to time.Time, err error) {
	if from, err = time.Parse(time.RFC3339, w.From); err != nil {
		return from, to, fmt.Errorf("from: %w", err)
	}
	if to, err = time.Parse(time.RFC3339, w.To); err != nil {
		return from, to, fmt.Errorf("to: %w", err)
	}
	return from, to, nil
}

// RecurringWindow starts at every tick of Cron (5 fields, read in
// Timezone) and lasts Duration of elapsed time.
type RecurringWindow struct {
	Cron     string        `yaml:"cron"`
	Duration time.Duration `yaml:"duration"`
	// Timezone is an IANA name (default UTC): it decides when ticks happen,
	// across daylight saving changes.
	Timezone string `yaml:"timezone"`
}

// SetDefaults gives a window listed in manent.yml the defaults of absent keys.
func (w *RecurringWindow) SetDefaults() { w.Timezone = "UTC" }

// MaxFreezeDuration bounds a recurring window: the check searches back
// that far for the tick that opened it.
const MaxFreezeDuration = 31 * 24 * time.Hour

// Schedule parses the window's cron expression in its time zone.
func (w RecurringWindow) Schedule() (*cron.SpecSchedule, error) {
	if strings.HasPrefix(w.Cron, "@every") || strings.Contains(w.Cron, "TZ=") {
		return nil, fmt.Errorf("@every and TZ= are not supported (use timezone)")
	}
	loc, err := time.LoadLocation(w.Timezone)
	if err != nil {
		return nil, fmt.Errorf("timezone: %w", err)
	}
	s, err := cron.ParseStandard(w.Cron)
	if err != nil {
		return nil, err
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("unsupported schedule")
	}
	spec.Location = loc
	return spec, nil
}

// PromotionRule requires that the same artifact name and version succeeded
// in another environment before it may be deployed where the rule matches.
type PromotionRule struct {
	Name  string `yaml:"name"`
	Match Match  `yaml:"match"`
	// From is the environment where it must have succeeded.
	From string `yaml:"from"`
	// Soak is how long ago at least the success must have finished.
	Soak time.Duration `yaml:"soak"`
	// InService requires it to still be the release in service in From.
	InService bool `yaml:"in_service"`
}

// ChangeRule requires a change ticket through an ITSM connector.
type ChangeRule struct {
	Name      string `yaml:"name"`
	Match     Match  `yaml:"match"`
	Connector string `yaml:"connector"`
}

// ruleNamePattern: rule names are shown in decisions and messages.
var ruleNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

const (
	maxApprovals      = 100
	minApprovalExpiry = time.Second
	maxApprovalExpiry = 30 * 24 * time.Hour
	maxSoak           = 365 * 24 * time.Hour
)

func (c *Config) validateGovernance(errs *yamltree.Errors) {
	g := &c.Governance
	if g.Rego != "" && !g.Empty() {
		errs.Add("governance.rego", "a Rego policy replaces the YAML rules: remove approvals, freezes, promotion and change, or rego")
	}
	names := map[string]bool{}
	checkRuleName := func(path, name string, required bool) {
		switch {
		case name == "" && required:
			errs.Add(path, "is required")
		case name == "":
		case !ruleNamePattern.MatchString(name):
			errs.Add(path, "must be 1 to 63 characters of a-z, 0-9, '.', '_' and -, starting with a letter or digit")
		case names[name]:
			errs.Add(path, "is the name of another governance rule")
		default:
			names[name] = true
		}
	}
	for i, r := range g.Approvals {
		p := yamltree.Index("governance.approvals", i)
		checkRuleName(p+".name", r.Name, true)
		checkMatch(errs, p+".match", r.Match)
		if r.Count < 1 || r.Count > maxApprovals {
			errs.Add(p+".count", "must be between 1 and %d", maxApprovals)
		}
		for j, ro := range r.Roles {
			if !groupPattern.MatchString(ro) && !strings.HasPrefix(ro, "role:") {
				errs.Add(yamltree.Index(p+".roles", j), "must be an RBAC role name")
			}
		}
		for j, gr := range r.Groups {
			if !groupPattern.MatchString(gr) {
				errs.Add(yamltree.Index(p+".groups", j), "must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -")
			}
		}
		if r.Expiry < minApprovalExpiry || r.Expiry > maxApprovalExpiry {
			errs.Add(p+".expiry", "must be between 1s and 720h")
		}
	}
	for i, r := range g.Freezes {
		c.validateFreeze(errs, yamltree.Index("governance.freezes", i), r, checkRuleName)
	}
	for i, r := range g.Promotion {
		p := yamltree.Index("governance.promotion", i)
		checkRuleName(p+".name", r.Name, false)
		checkMatch(errs, p+".match", r.Match)
		if r.Match.Environment == "" && !errs.Bad(p+".match.environment") {
			errs.Add(p+".match.environment", "is required: a promotion rule says which environment it guards")
		}
		switch {
		case r.From == "":
			errs.Add(p+".from", "is required")
		case !descriptor.ValidName(r.From):
			errs.Add(p+".from", "must be an environment name")
		case r.From == r.Match.Environment:
			errs.Add(p+".from", "must be another environment than match.environment")
		}
		if r.Soak < 0 || r.Soak > maxSoak {
			errs.Add(p+".soak", "must be between 0s and 8760h")
		}
	}
	for i, r := range g.Change {
		p := yamltree.Index("governance.change", i)
		checkRuleName(p+".name", r.Name, false)
		checkMatch(errs, p+".match", r.Match)
		switch {
		case r.Connector == "":
			errs.Add(p+".connector", "is required")
		case !ruleNamePattern.MatchString(r.Connector):
			errs.Add(p+".connector", "must be a connector name: 1 to 63 characters of a-z, 0-9, '.', '_' and -")
		case g.Connectors[r.Connector].BaseURL == "":
			errs.Add(p+".connector", "names no connector of governance.connectors")
		}
	}
	for _, name := range sortedKeys(g.Connectors) {
		p := "governance.connectors." + name
		if !ruleNamePattern.MatchString(name) {
			errs.Add(p, "connector names are 1 to 63 characters of a-z, 0-9, '.', '_' and -")
		}
		for _, fe := range g.Connectors[name].Validate() {
			errs.Add(p+"."+fe.Path, "%s", fe.Message)
		}
	}
	if g.ChangePollInterval < 0 {
		errs.Add("governance.change_poll_interval", "must not be negative")
	}
}

func (c *Config) validateFreeze(errs *yamltree.Errors, p string, r FreezeRule, checkRuleName func(path, name string, required bool)) {
	checkRuleName(p+".name", r.Name, true)
	m := r.Match
	for _, f := range []struct{ key, v string }{{"tenant", m.Tenant}, {"application", m.Application}, {"environment", m.Environment}} {
		if f.v != "" && !descriptor.ValidName(f.v) {
			errs.Add(p+".match."+f.key, "must be a name: 1 to 63 characters of a-z, 0-9 and -")
		}
	}
	if t := r.Targets; t != nil {
		if len(t.Labels) == 0 {
			errs.Add(p+".targets.labels", "needs at least one label: a selector without labels would select every target (leave targets out to freeze the whole environment)")
		}
		descriptor.CheckLabels(errs, p+".targets.labels", t.Labels)
	}
	if len(r.Absolute) == 0 && len(r.Recurring) == 0 && !errs.Bad(p+".absolute") && !errs.Bad(p+".recurring") {
		errs.Add(p, "needs absolute or recurring windows")
	}
	for j, w := range r.Absolute {
		wp := yamltree.Index(p+".absolute", j)
		from, err := time.Parse(time.RFC3339, w.From)
		if err != nil {
			errs.Add(wp+".from", "must be an RFC 3339 time such as 2026-12-24T00:00:00Z")
		}
		to, err2 := time.Parse(time.RFC3339, w.To)
		if err2 != nil {
			errs.Add(wp+".to", "must be an RFC 3339 time such as 2026-12-27T00:00:00Z")
		}
		if err == nil && err2 == nil && !to.After(from) {
			errs.Add(wp+".to", "must be after from")
		}
	}
	for j, w := range r.Recurring {
		wp := yamltree.Index(p+".recurring", j)
		if w.Cron == "" {
			errs.Add(wp+".cron", "is required: 5 fields (minute hour day-of-month month day-of-week), such as 0 0 * * SUN")
		} else if _, err := time.LoadLocation(w.Timezone); err != nil {
			errs.Add(wp+".timezone", "must be an IANA time zone such as UTC or Europe/Paris")
		} else if _, err := w.Schedule(); err != nil {
			errs.Add(wp+".cron", "must be 5 fields (minute hour day-of-month month day-of-week), such as 0 0 * * SUN: %v", err)
		}
		if w.Duration <= 0 || w.Duration > MaxFreezeDuration {
			errs.Add(wp+".duration", "must be between 1s and 744h")
		}
	}
}

func checkMatch(errs *yamltree.Errors, p string, m Match) {
	for _, f := range []struct{ key, v string }{{"tenant", m.Tenant}, {"application", m.Application}, {"environment", m.Environment}} {
		if f.v != "" && !descriptor.ValidName(f.v) {
			errs.Add(p+"."+f.key, "must be a name: 1 to 63 characters of a-z, 0-9 and -")
		}
	}
	descriptor.CheckLabels(errs, p+".labels", m.Labels)
}
