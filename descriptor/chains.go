package descriptor

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	// Time zones must resolve the same on every server, with or without a
	// system zoneinfo, or a schedule accepted here could fail in the engine.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// Limits of the chain fields (the deploy package holds those of the spec).
const (
	// MaxCron bounds schedule.cron; five fields never need more.
	MaxCron = 128
	// MaxTimeZone bounds schedule.timezone; IANA names are far shorter.
	MaxTimeZone = 64
	// MaxExportPattern bounds an export pattern, compiled on every check.
	MaxExportPattern = 1024
	// MaxTargetsFrom bounds deploy.targetsFrom: one entry per export at most.
	MaxTargetsFrom = deploy.MaxExports
)

const (
	msgIDPattern     = "must be 1 to 128 characters of a-z, 0-9, '.', '_', '@' and -, starting with a letter or digit"
	msgTickID        = "must not end in @<yyyymmdd-hhmmss>: that form is kept for the deploys of recurring schedules"
	msgChainName     = "name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter"
	msgFrom          = "must be <step>.<key>, an output of a step such as deploy.vms"
	msgAfterTimeout  = "must be a duration such as 30m, 2h or 7d"
	msgReleaseMember = "no schedule or dryRun in the deploys of a release"
	msgReleaseKind   = "a Release is submitted as a release (manent release submit), not as a deploy"
)

var (
	// outputKeyPattern is what a plugin or custom step may name an output.
	outputKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	// cronProbe is a fixed start for "does this expression ever fire": the
	// cron library looks five years ahead, and from 2000 that spans two
	// 29ths of February, so only impossible dates come back empty.
	cronProbe = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
)

type rawSchedule struct {
	At       string `yaml:"at"`
	Cron     string `yaml:"cron"`
	TimeZone string `yaml:"timezone"`

	at time.Time
}

type rawImport struct {
	Deployment string            `yaml:"deployment"`
	Current    *rawCurrentImport `yaml:"current"`
}

type rawCurrentImport struct {
	Application string `yaml:"application"`
	Environment string `yaml:"environment"`
	Artifact    string `yaml:"artifact"`
	Tenant      string `yaml:"tenant"`
}

type rawExport struct {
	From    string `yaml:"from"`
	Format  string `yaml:"format"`
	Pattern string `yaml:"pattern"`
	Public  bool   `yaml:"public"`
}

type rawImportRef struct {
	Import string `yaml:"import"`
	Export string `yaml:"export"`
}

// CompileExportPattern compiles an export pattern the way it is matched:
// against the whole value (or each host of a targets export), so the
// engine and the parser agree on what `[a-z]+` accepts.
func CompileExportPattern(p string) (*regexp.Regexp, error) {
	return deploy.CompilePattern(p)
}

// ParseAfterTimeout reads an afterTimeout: a Go duration (90m, 2h) or a
// whole number of days (7d), since the longest wait is counted in days.
func ParseAfterTimeout(s string) (time.Duration, bool) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		// The bound keeps the multiplication from overflowing.
		if err != nil || days < 0 || days > 100_000 || n[0] == '+' {
			return 0, false
		}
		return time.Duration(days) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// IsSelfImport reports whether a current import names the release in
// service of the deploy itself. The tenant is compared only when both are
// known: the engine checks again once it has applied the default tenant.
func IsSelfImport(d *deploy.Descriptor, c deploy.CurrentImport) bool {
	return c.Application == d.Application &&
		(c.Environment == "" || c.Environment == d.Environment) &&
		(c.Artifact == "" || c.Artifact == d.Artifact.Name) &&
		(c.Tenant == "" || d.Tenant == "" || c.Tenant == d.Tenant)
}

// checkChains checks after, afterTimeout, schedule, imports, exports and
// the deploy fields that read imports.
func checkChains(errs *yamltree.Errors, d *rawDescriptor, ctx parseContext) {
	if ctx.inRelease {
		// The release decides when its deploys run.
		if d.Schedule != nil {
			errs.Add("schedule", msgReleaseMember)
		}
		if d.DryRun {
			errs.Add("dryRun", msgReleaseMember)
		}
	}
	checkAfter(errs, d)
	checkAfterTimeout(errs, d, ctx)
	checkSchedule(errs, d)
	checkImports(errs, d, ctx)
	checkExports(errs, d)
	checkImportRefs(errs, d)
}

func checkAfter(errs *yamltree.Errors, d *rawDescriptor) {
	if len(d.After) == 0 {
		return
	}
	if d.DryRun {
		errs.Add("after", "is not allowed with dryRun: a dry-run runs immediately")
	}
	if d.Schedule != nil && d.Schedule.Cron != "" {
		errs.Add("after", "is not allowed with schedule.cron: every run would depend on the same deploys")
	}
	if len(d.After) > deploy.MaxAfter {
		errs.Add("after", "at most %d dependencies are allowed, found %d", deploy.MaxAfter, len(d.After))
		return
	}
	seen := make(map[string]int, len(d.After))
	for i, id := range d.After {
		p := yamltree.Index("after", i)
		first, dup := seen[id]
		switch {
		case errs.Bad(p):
		case id == "":
			errs.Add(p, "must be a deploy ID")
		case !idPattern.MatchString(id):
			errs.Add(p, msgIDPattern)
		case id == d.ID:
			errs.Add(p, "a deploy cannot depend on itself")
		case dup:
			errs.Add(p, "%s is already listed (after[%d])", id, first)
		}
		if !dup {
			seen[id] = i
		}
	}
}

func checkAfterTimeout(errs *yamltree.Errors, d *rawDescriptor, ctx parseContext) {
	if d.AfterTimeout == "" {
		return
	}
	v, ok := ParseAfterTimeout(d.AfterTimeout)
	switch {
	case !ok:
		errs.Add("afterTimeout", msgAfterTimeout)
	case v < deploy.MinAfterTimeout || v > deploy.MaxAfterTimeout:
		errs.Add("afterTimeout", "must be between 1m and 30 days (720h), found %s", d.AfterTimeout)
	case len(d.After) == 0 && len(ctx.releaseAfter) == 0:
		errs.Add("afterTimeout", "bounds the wait for the deploys in after, and after is empty")
	default:
		d.afterTimeout = v
	}
}

func checkSchedule(errs *yamltree.Errors, d *rawDescriptor) {
	s := d.Schedule
	if s == nil {
		return
	}
	if d.DryRun {
		errs.Add("schedule", "is not allowed with dryRun: a dry-run runs immediately")
	}
	switch {
	case s.At != "" && s.Cron != "":
		errs.Add("schedule", "give either at (one time) or cron (recurring), not both")
	case s.At == "" && s.Cron == "" && !errs.Bad("schedule.at") && !errs.Bad("schedule.cron"):
		errs.Add("schedule", "needs at (an RFC 3339 time) or cron (a 5-field cron expression)")
	}
	if s.At != "" {
		t, err := time.Parse(time.RFC3339, s.At)
		if err != nil {
			errs.Add("schedule.at", "must be an RFC 3339 time with its offset, such as 2026-10-12T14:00:00Z")
		} else {
			s.at = t.UTC()
		}
	}
	if s.Cron != "" {
		if msg := cronProblem(s.Cron); msg != "" {
			errs.Add("schedule.cron", "%s", msg)
		}
	}
	if s.TimeZone != "" {
		switch {
		case s.Cron == "" && s.At != "":
			errs.Add("schedule.timezone", "applies to cron only: at carries its own offset")
		case len(s.TimeZone) > MaxTimeZone || s.TimeZone == "Local":
			errs.Add("schedule.timezone", "must be an IANA time zone such as Europe/Paris or UTC")
		default:
			if _, err := time.LoadLocation(s.TimeZone); err != nil {
				errs.Add("schedule.timezone", "must be an IANA time zone such as Europe/Paris or UTC")
			}
		}
	}
}

// cronProblem says what is wrong with a cron expression, "" if nothing.
// Descriptors (@daily, @every) and TZ= prefixes are refused so that the
// expression always reads the same way and its zone is in one place.
func cronProblem(c string) string {
	if len(c) > MaxCron {
		return "must be at most 128 characters"
	}
	fields := strings.Fields(c)
	if len(fields) != 5 || strings.HasPrefix(c, "@") || strings.Contains(c, "TZ=") {
		return `must be 5 fields (minute hour day-of-month month day-of-week) such as "0 3 * * 1-5"; the time zone goes in schedule.timezone`
	}
	sched, err := cron.ParseStandard(c)
	if err != nil {
		return "is not a valid cron expression: " + err.Error()
	}
	if sched.Next(cronProbe).IsZero() {
		return "never fires (no such date)"
	}
	return ""
}

func checkImports(errs *yamltree.Errors, d *rawDescriptor, ctx parseContext) {
	if len(d.Imports) > deploy.MaxImports {
		errs.Add("imports", "at most %d imports are allowed, found %d", deploy.MaxImports, len(d.Imports))
		return
	}
	after := make(map[string]bool, len(d.After)+len(ctx.releaseAfter))
	for _, id := range d.After {
		after[id] = true
	}
	for _, name := range ctx.releaseAfter {
		after[name] = true
	}
	used := map[string]bool{}
	for _, r := range d.Deploy.TargetsFrom {
		used[r.Import] = true
	}
	for _, r := range d.Deploy.ParamsFrom {
		used[r.Import] = true
	}
	for _, name := range sortedKeys(d.Imports) {
		p := yamltree.Key("imports", name)
		if !paramPattern.MatchString(name) {
			errs.Add(p, msgChainName)
		}
		imp := d.Imports[name]
		switch {
		case errs.Bad(p) || errs.Bad(p+".deployment") || errs.Bad(p+".current"):
		case imp.Deployment != "" && imp.Current != nil:
			errs.Add(p, "give either deployment or current, not both")
		case imp.Deployment == "" && imp.Current == nil:
			errs.Add(p, "needs deployment (a deploy ID in after) or current (the release in service of an application)")
		}
		if imp.Deployment != "" {
			switch {
			case !idPattern.MatchString(imp.Deployment):
				errs.Add(p+".deployment", msgIDPattern)
			case !after[imp.Deployment]:
				errs.Add(p+".deployment", "%s must be listed in after: an import reads a deploy this one waits for", imp.Deployment)
			}
		}
		if c := imp.Current; c != nil {
			checkCurrentImport(errs, p+".current", c, d)
		}
		if !used[name] {
			errs.Add(p, "is not used by deploy.targetsFrom or deploy.paramsFrom")
		}
	}
}

func checkCurrentImport(errs *yamltree.Errors, p string, c *rawCurrentImport, d *rawDescriptor) {
	checkName(errs, p+".application", c.Application)
	for _, f := range []struct{ key, v string }{
		{"environment", c.Environment}, {"artifact", c.Artifact}, {"tenant", c.Tenant},
	} {
		if f.v != "" && !namePattern.MatchString(f.v) {
			errs.Add(p+"."+f.key, msgNamePattern)
		}
	}
	self := &deploy.Descriptor{Application: d.Application, Environment: d.Environment, Tenant: d.Tenant}
	if d.Artifact != nil {
		self.Artifact.Name = d.Artifact.Name
	}
	if c.Application != "" && IsSelfImport(self, c.current()) {
		errs.Add(p, "a deploy cannot import its own release in service")
	}
}

func (c *rawCurrentImport) current() deploy.CurrentImport {
	return deploy.CurrentImport{Application: c.Application, Environment: c.Environment, Artifact: c.Artifact, Tenant: c.Tenant}
}

func checkExports(errs *yamltree.Errors, d *rawDescriptor) {
	if len(d.Exports) == 0 {
		return
	}
	if d.DryRun {
		errs.Add("exports", "is not allowed with dryRun: dry-runs have no exports")
	}
	if len(d.Exports) > deploy.MaxExports {
		errs.Add("exports", "at most %d exports are allowed, found %d", deploy.MaxExports, len(d.Exports))
		return
	}
	for _, name := range sortedKeys(d.Exports) {
		p := yamltree.Key("exports", name)
		if !paramPattern.MatchString(name) {
			errs.Add(p, msgChainName)
		}
		checkExport(errs, p, d.Exports[name])
	}
}

func checkExport(errs *yamltree.Errors, p string, e rawExport) {
	if e.From == "" {
		required(errs, p+".from")
	} else if step, key, ok := strings.Cut(e.From, "."); !ok || !stepPattern.MatchString(step) || !outputKeyPattern.MatchString(key) {
		errs.Add(p+".from", msgFrom)
	}
	switch e.Format {
	case "", deploy.ExportString:
		if e.Pattern == "" && !errs.Bad(p+".pattern") {
			errs.Add(p+".pattern", "is required for a string export: it is matched against the whole value")
		}
	case deploy.ExportTargets:
	default:
		errs.Add(p+".format", "must be string or targets")
	}
	if e.Pattern == "" {
		return
	}
	if len(e.Pattern) > MaxExportPattern {
		errs.Add(p+".pattern", "must be at most %d bytes", MaxExportPattern)
	} else if _, err := CompileExportPattern(e.Pattern); err != nil {
		errs.Add(p+".pattern", "must be a regular expression (Go syntax): %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
}

func checkImportRefs(errs *yamltree.Errors, d *rawDescriptor) {
	tf, pf := d.Deploy.TargetsFrom, d.Deploy.ParamsFrom
	if len(tf) > 0 && len(d.Deploy.Targets) > 0 {
		errs.Add("deploy.targetsFrom", "conflicts with deploy.targets: the targets come either from the descriptor or from imports, not both")
	}
	if len(tf) > MaxTargetsFrom {
		errs.Add("deploy.targetsFrom", "at most %d entries are allowed, found %d", MaxTargetsFrom, len(tf))
	} else {
		seen := map[rawImportRef]int{}
		for i, r := range tf {
			p := yamltree.Index("deploy.targetsFrom", i)
			if errs.Bad(p) {
				continue
			}
			checkImportRef(errs, p, r, d.Imports)
			if first, dup := seen[r]; dup && r.Import != "" && r.Export != "" {
				errs.Add(p, "%s.%s is already listed (deploy.targetsFrom[%d])", r.Import, r.Export, first)
			} else if !dup {
				seen[r] = i
			}
		}
	}
	if len(pf) > MaxParams {
		errs.Add("deploy.paramsFrom", "at most %d parameters are allowed, found %d", MaxParams, len(pf))
		return
	}
	for _, k := range sortedKeys(pf) {
		p := yamltree.Key("deploy.paramsFrom", k)
		// Taken before the checks below add to it: only a value of the
		// wrong shape should silence the checks of the reference.
		shapeBad := errs.Bad(p)
		if !paramPattern.MatchString(k) {
			errs.Add(p, msgParamPattern)
		}
		if _, both := d.Deploy.Params[k]; both {
			errs.Add(p, "is also in deploy.params: a parameter comes either from the descriptor or from an import")
		}
		if !shapeBad {
			checkImportRef(errs, p, pf[k], d.Imports)
		}
	}
}

func checkImportRef(errs *yamltree.Errors, p string, r rawImportRef, imports map[string]rawImport) {
	switch _, declared := imports[r.Import]; {
	case r.Import == "":
		required(errs, p+".import")
	case !declared:
		errs.Add(p+".import", "%s is not declared in imports", r.Import)
	}
	switch {
	case r.Export == "":
		required(errs, p+".export")
	case !paramPattern.MatchString(r.Export):
		errs.Add(p+".export", msgChainName)
	}
}

func (s *rawSchedule) schedule() *deploy.Schedule {
	if s == nil {
		return nil
	}
	out := &deploy.Schedule{Cron: s.Cron, TimeZone: s.TimeZone}
	if s.At != "" {
		at := s.at
		out.At = &at
	}
	if out.Cron != "" && out.TimeZone == "" {
		out.TimeZone = "UTC"
	}
	return out
}

func imports(raw map[string]rawImport) map[string]deploy.Import {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]deploy.Import, len(raw))
	for name, imp := range raw {
		i := deploy.Import{Deployment: imp.Deployment}
		if imp.Current != nil {
			c := imp.Current.current()
			i.Current = &c
		}
		out[name] = i
	}
	return out
}

func exports(raw map[string]rawExport) map[string]deploy.ExportSpec {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]deploy.ExportSpec, len(raw))
	for name, e := range raw {
		format := e.Format
		if format == "" {
			format = deploy.ExportString
		}
		out[name] = deploy.ExportSpec{From: e.From, Format: format, Pattern: e.Pattern, Public: e.Public}
	}
	return out
}

func importRefs(raw []rawImportRef) []deploy.ImportRef {
	if len(raw) == 0 {
		return nil
	}
	out := make([]deploy.ImportRef, len(raw))
	for i, r := range raw {
		out[i] = deploy.ImportRef(r)
	}
	return out
}

func paramRefs(raw map[string]rawImportRef) map[string]deploy.ImportRef {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]deploy.ImportRef, len(raw))
	for k, r := range raw {
		out[k] = deploy.ImportRef(r)
	}
	return out
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
