package descriptor

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/urltemplate"
	"manent.dev/manent/internal/yamltree"
)

// Limits of a rollout, in an environment configuration and a descriptor.
const (
	MaxWaves      = 50
	MaxGates      = 10
	MaxGateURL    = 2048
	MaxGateQuery  = 4096
	MaxBake       = 24 * time.Hour
	MinRolloutTTL = time.Minute
	// MaxRolloutTTL bounds pause_timeout and defer_timeout: a rollout
	// holds its environment's slot while it waits.
	MaxRolloutTTL  = 7 * 24 * time.Hour
	MaxGateTimeout = 5 * time.Minute
)

// RolloutDoc is the rollout section as written, the same keys (snake_case)
// in an environment configuration and in a descriptor, so one can be
// copied into the other. Pointers tell a key left out from its zero value.
type RolloutDoc struct {
	Rule         *SelectorDoc   `yaml:"rule"`
	Exclude      *SelectorDoc   `yaml:"exclude"`
	Waves        []WaveDoc      `yaml:"waves"`
	Percentages  []int          `yaml:"percentages"`
	Bake         *time.Duration `yaml:"bake"`
	MaxFailures  *string        `yaml:"max_failures"`
	Gates        []GateDoc      `yaml:"gates"`
	NoData       string         `yaml:"no_data"`
	OnFailure    string         `yaml:"on_failure"`
	PauseTimeout *time.Duration `yaml:"pause_timeout"`
	DeferTimeout *time.Duration `yaml:"defer_timeout"`
}

// SelectorDoc is a rule, an exclude or a wave's select.
type SelectorDoc struct {
	Labels map[string]string `yaml:"labels"`
}

// WaveDoc is one entry of rollout.waves. Count and Batch are strings
// because they take a count (2) or a percentage ("50%").
type WaveDoc struct {
	Name     string         `yaml:"name"`
	Select   *SelectorDoc   `yaml:"select"`
	Count    *string        `yaml:"count"`
	Batch    *string        `yaml:"batch"`
	Bake     *time.Duration `yaml:"bake"`
	Approval bool           `yaml:"approval"`
}

// GateDoc is one entry of rollout.gates: exactly one check.
type GateDoc struct {
	Name       string       `yaml:"name"`
	HTTP       *HTTPGateDoc `yaml:"http"`
	Prometheus *PromGateDoc `yaml:"prometheus"`
}

// HTTPGateDoc is an http gate.
type HTTPGateDoc struct {
	URL          string        `yaml:"url"`
	ExpectStatus *int          `yaml:"expect_status"`
	Timeout      time.Duration `yaml:"timeout"`
}

// PromGateDoc is a prometheus gate.
type PromGateDoc struct {
	URL       string        `yaml:"url"`
	Query     string        `yaml:"query"`
	Min       *float64      `yaml:"min"`
	Max       *float64      `yaml:"max"`
	Timeout   time.Duration `yaml:"timeout"`
	BasicAuth *BasicAuthDoc `yaml:"basic_auth"`
	// BearerSecret names the secret sent as Authorization: Bearer.
	BearerSecret string `yaml:"bearer_secret"`
}

// BasicAuthDoc is a prometheus gate's basic authentication: a user name
// and the secret of the environment configuration that holds the password.
type BasicAuthDoc struct {
	Username       string `yaml:"username"`
	PasswordSecret string `yaml:"password_secret"`
}

// MaxGateUsername bounds basic_auth.username.
const MaxGateUsername = 256

// empty reports a section that gives no key.
func (r *RolloutDoc) empty() bool {
	return r.Rule == nil && r.Exclude == nil && r.Waves == nil && r.Percentages == nil && r.Bake == nil &&
		r.MaxFailures == nil && r.Gates == nil && r.NoData == "" && r.OnFailure == "" &&
		r.PauseTimeout == nil && r.DeferTimeout == nil
}

var amountPattern = regexp.MustCompile(`^([0-9]{1,9})(%?)$`)

const msgAmount = "must be a count such as 2 or a percentage such as \"50%\""

// ParseAmount reads a count (2) or a percentage (50%).
func ParseAmount(s string) (deploy.Amount, bool) {
	m := amountPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return deploy.Amount{}, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return deploy.Amount{}, false
	}
	return deploy.Amount{N: n, Percent: m[2] == "%"}, true
}

// Check records the problems of a descriptor's rollout at path (rollout)
// that need nothing but the section: keys, names, amounts, durations,
// gates, enums. What depends on the order of the waves is CheckWaveOrder's,
// and whether a descriptor may give the keys is for the merge. A
// descriptor's gate sends no credentials: a descriptor lives in the
// application's repository and travels with every deploy, and a gate it
// could point at a secret of the environment would send that secret
// wherever the descriptor says.
func (r *RolloutDoc) Check(errs *yamltree.Errors, path string) { r.check(errs, path, false) }

// CheckEnvironment is Check for an environment configuration's rollout,
// where a Prometheus gate may authenticate with basic_auth or
// bearer_secret; whether they name secrets of the secrets section is for
// the caller, which reads that section. A URL's user info is refused
// there too: it would travel in clear in every effective deploy stored.
func (r *RolloutDoc) CheckEnvironment(errs *yamltree.Errors, path string) { r.check(errs, path, true) }

func (r *RolloutDoc) check(errs *yamltree.Errors, path string, inEnv bool) {
	checkSelector(errs, path+".rule", r.Rule)
	checkSelector(errs, path+".exclude", r.Exclude)
	switch {
	case r.Waves != nil && r.Percentages != nil:
		errs.Add(path, "give waves or percentages, not both")
	case r.Waves != nil && len(r.Waves) == 0 && !errs.Bad(path+".waves"):
		errs.Add(path+".waves", "must list at least one wave: leave waves out for a single pass")
	case len(r.Waves) > MaxWaves:
		errs.Add(path+".waves", "at most %d waves are allowed, found %d", MaxWaves, len(r.Waves))
	}
	seen := map[string]int{}
	for i, w := range r.Waves {
		p := yamltree.Index(path+".waves", i)
		first, dup := seen[w.Name]
		switch {
		case w.Name == "":
			required(errs, p+".name")
		case !namePattern.MatchString(w.Name):
			errs.Add(p+".name", msgNamePattern)
		case dup:
			errs.Add(p+".name", "%s is the name of waves[%d]", w.Name, first)
		default:
			seen[w.Name] = i
		}
		checkSelector(errs, p+".select", w.Select)
		checkAmount(errs, p+".count", w.Count, 1)
		checkAmount(errs, p+".batch", w.Batch, 1)
		checkBake(errs, p+".bake", w.Bake)
	}
	checkPercentages(errs, path+".percentages", r.Percentages)
	checkBake(errs, path+".bake", r.Bake)
	checkAmount(errs, path+".max_failures", r.MaxFailures, 0)
	r.checkGates(errs, path+".gates", inEnv)
	if r.NoData != "" && !oneOf(r.NoData, deploy.NoDataFail, deploy.NoDataPause, deploy.NoDataPass) {
		errs.Add(path+".no_data", "must be fail, pause or pass")
	}
	if r.OnFailure != "" && !oneOf(r.OnFailure, deploy.RolloutAbort, deploy.RolloutPause) {
		errs.Add(path+".on_failure", "must be abort or pause")
	}
	checkTTL(errs, path+".pause_timeout", r.PauseTimeout)
	checkTTL(errs, path+".defer_timeout", r.DeferTimeout)
}

func oneOf[T ~string](v string, allowed ...T) bool {
	for _, a := range allowed {
		if v == string(a) {
			return true
		}
	}
	return false
}

func checkSelector(errs *yamltree.Errors, path string, s *SelectorDoc) {
	switch {
	case s == nil || errs.Bad(path) || errs.Bad(path+".labels"):
	case len(s.Labels) == 0:
		errs.Add(path, "must give labels: a selector without labels would match every target")
	default:
		CheckLabels(errs, path+".labels", s.Labels)
	}
}

// checkAmount checks a count (at least least) or a percentage (more than
// least-1 percent, at most 100).
func checkAmount(errs *yamltree.Errors, path string, v *string, least int) {
	if v == nil || errs.Bad(path) {
		return
	}
	a, ok := ParseAmount(*v)
	switch {
	case !ok:
		errs.Add(path, "%s", msgAmount)
	case a.Percent && (a.N < least || a.N > 100):
		if least == 0 {
			errs.Add(path, "must be a percentage from 0%% to 100%%")
		} else {
			errs.Add(path, "must be a percentage from 1%% to 100%%")
		}
	case !a.Percent && a.N < least:
		errs.Add(path, "must be at least %d", least)
	}
}

func checkPercentages(errs *yamltree.Errors, path string, ps []int) {
	switch {
	case ps == nil || errs.Bad(path):
		return
	case len(ps) == 0:
		errs.Add(path, "must list at least one percentage, the last 100: leave percentages out for a single pass")
		return
	case len(ps) > MaxWaves:
		errs.Add(path, "at most %d percentages are allowed, found %d", MaxWaves, len(ps))
		return
	}
	for i, v := range ps {
		p := yamltree.Index(path, i)
		switch {
		case errs.Bad(p):
		case v < 1 || v > 100:
			errs.Add(p, "must be from 1 to 100")
		case i > 0 && v <= ps[i-1]:
			errs.Add(p, "must be more than the percentage before it (%d): they are cumulative shares", ps[i-1])
		}
	}
	if last := ps[len(ps)-1]; last != 100 && !errs.Bad(yamltree.Index(path, len(ps)-1)) {
		errs.Add(yamltree.Index(path, len(ps)-1), "the last percentage must be 100, or some targets would never be deployed")
	}
}

func checkBake(errs *yamltree.Errors, path string, d *time.Duration) {
	if d != nil && (*d < 0 || *d > MaxBake) {
		errs.Add(path, "must be between 0s and 24h")
	}
}

func checkTTL(errs *yamltree.Errors, path string, d *time.Duration) {
	if d != nil && (*d < MinRolloutTTL || *d > MaxRolloutTTL) {
		errs.Add(path, "must be between 1m and 168h (7 days)")
	}
}

func (r *RolloutDoc) checkGates(errs *yamltree.Errors, path string, inEnv bool) {
	switch {
	case r.Gates == nil || errs.Bad(path):
		return
	case len(r.Gates) == 0:
		errs.Add(path, "must list at least one gate: leave gates out for none")
		return
	case len(r.Gates) > MaxGates:
		errs.Add(path, "at most %d gates are allowed, found %d", MaxGates, len(r.Gates))
		return
	}
	names := gateNames(r.Gates)
	seen := map[string]int{}
	for i, g := range r.Gates {
		p := yamltree.Index(path, i)
		switch first, dup := seen[names[i]]; {
		case g.Name != "" && !namePattern.MatchString(g.Name):
			errs.Add(p+".name", msgNamePattern)
		case dup:
			errs.Add(p+".name", "%s is the name of gates[%d]: give each gate its own name", names[i], first)
		default:
			seen[names[i]] = i
		}
		switch {
		case errs.Bad(p) || errs.Bad(p+".http") || errs.Bad(p+".prometheus"):
		case g.HTTP == nil && g.Prometheus == nil:
			errs.Add(p, "must give one check: http or prometheus")
		case g.HTTP != nil && g.Prometheus != nil:
			errs.Add(p, "must give one check, http or prometheus, not both: write two gates")
		case g.HTTP != nil:
			checkHTTPGate(errs, p+".http", g.HTTP)
		default:
			checkPromGate(errs, p+".prometheus", g.Prometheus, inEnv)
		}
	}
}

// gateNames are the names the status shows the gates by: the one written,
// else the check's kind, numbered from the second of a kind (http, http-2).
func gateNames(gates []GateDoc) []string {
	names := make([]string, len(gates))
	count := map[string]int{}
	for i, g := range gates {
		if g.Name != "" {
			names[i] = g.Name
			continue
		}
		kind := "prometheus"
		if g.HTTP != nil {
			kind = "http"
		}
		count[kind]++
		names[i] = kind
		if n := count[kind]; n > 1 {
			names[i] = kind + "-" + strconv.Itoa(n)
		}
	}
	return names
}

// checkGateURL checks a gate's URL as the gates will parse it: fields nil
// allows no placeholder at all. User info is refused, with a message that
// says where credentials go: basic_auth in an environment configuration
// (inEnv), nowhere in a descriptor. A host written as an address manent
// never calls (link-local, cloud metadata) is refused here rather than at
// every check. No message repeats the URL, which may hold a password.
func checkGateURL(errs *yamltree.Errors, path, raw string, fields, hostFields []string, inEnv bool) {
	switch {
	case raw == "":
		required(errs, path)
		return
	case len(raw) > MaxGateURL:
		errs.Add(path, "must be at most %d bytes", MaxGateURL)
		return
	case fields == nil && strings.Contains(raw, "{{"):
		errs.Add(path, "placeholders are allowed only in the URL of an http gate")
		return
	}
	if u, err := url.Parse(raw); err == nil && u.User != nil && fields == nil {
		if inEnv {
			errs.Add(path, "must not hold credentials (user:password@): give them as basic_auth: {username: ..., password_secret: ...} (or bearer_secret), naming a secret of the secrets section")
		} else {
			errs.Add(path, "must not hold credentials (user:password@) in a descriptor: give the gate in the environment configuration, with basic_auth naming a secret of its secrets section")
		}
		return
	}
	if _, err := urltemplate.ParseHost(raw, fields, hostFields); err != nil {
		errs.Add(path, "%s", err.Error())
		return
	}
	if ip, ok := literalHost(raw); ok && safehttp.Refused(ip) {
		errs.Add(path, "must not call %s: manent never calls link-local and cloud metadata addresses", ip)
	}
}

// literalHost is the host of raw when it is written as an IP address (no
// placeholder in it).
func literalHost(raw string) (netip.Addr, bool) {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return netip.Addr{}, false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if strings.Contains(rest, "{{") {
		return netip.Addr{}, false
	}
	u, err := url.Parse("http://" + rest)
	if err != nil {
		return netip.Addr{}, false
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return ip, err == nil
}

func checkHTTPGate(errs *yamltree.Errors, path string, g *HTTPGateDoc) {
	checkGateURL(errs, path+".url", g.URL, deploy.GatePlaceholders, deploy.GateHostPlaceholders, false)
	if g.ExpectStatus != nil && (*g.ExpectStatus < 100 || *g.ExpectStatus > 599) {
		errs.Add(path+".expect_status", "must be an HTTP status between 100 and 599")
	}
	checkGateTimeout(errs, path+".timeout", g.Timeout)
}

func checkPromGate(errs *yamltree.Errors, path string, g *PromGateDoc, inEnv bool) {
	checkGateURL(errs, path+".url", g.URL, nil, nil, inEnv)
	checkPromAuth(errs, path, g, inEnv)
	switch {
	case strings.TrimSpace(g.Query) == "":
		required(errs, path+".query")
	case len(g.Query) > MaxGateQuery:
		errs.Add(path+".query", "must be at most %d bytes", MaxGateQuery)
	default:
		checkLines(errs, path+".query", g.Query)
	}
	switch {
	case g.Min == nil && g.Max == nil && !errs.Bad(path+".min") && !errs.Bad(path+".max"):
		errs.Add(path, "must give min, max or both: the bounds the value must stay within")
	case g.Min != nil && g.Max != nil && *g.Min > *g.Max:
		errs.Add(path+".min", "must not be more than max")
	}
	checkGateTimeout(errs, path+".timeout", g.Timeout)
}

// checkPromAuth checks how a prometheus gate authenticates: in an
// environment configuration, basic_auth (a user name and a secret) or
// bearer_secret, not both; never in a descriptor.
func checkPromAuth(errs *yamltree.Errors, path string, g *PromGateDoc, inEnv bool) {
	switch {
	case g.BasicAuth == nil && g.BearerSecret == "":
		return
	case !inEnv:
		key := ".basic_auth"
		if g.BasicAuth == nil {
			key = ".bearer_secret"
		}
		errs.Add(path+key, "forbidden in a descriptor: a gate that sends a secret is given in the environment configuration")
		return
	case g.BasicAuth != nil && g.BearerSecret != "":
		errs.Add(path, "give basic_auth or bearer_secret, not both")
		return
	case g.BasicAuth == nil:
		return
	}
	a, p := g.BasicAuth, path+".basic_auth"
	switch {
	case a.Username == "":
		required(errs, p+".username")
	case len(a.Username) > MaxGateUsername:
		errs.Add(p+".username", "must be at most %d bytes", MaxGateUsername)
	case strings.Contains(a.Username, ":"):
		errs.Add(p+".username", "must not contain ':', which ends the user name in basic authentication")
	case deploy.UnsafeText(a.Username, "") != "":
		errs.Add(p+".username", "must be text without control characters: %s", deploy.UnsafeText(a.Username, ""))
	}
	if a.PasswordSecret == "" {
		required(errs, p+".password_secret")
	}
}

func checkGateTimeout(errs *yamltree.Errors, path string, d time.Duration) {
	if d < 0 || d > MaxGateTimeout {
		errs.Add(path, "must be between 0s and 5m")
	}
}

// CheckWaveOrder records the waves that can never have a target: those
// after a wave that takes every target left (no select, and no count or a
// count of 100%). It checks complete lists (an environment's, or a
// descriptor's that replaces it), not a descriptor's changes to the
// environment's waves.
func CheckWaveOrder(errs *yamltree.Errors, path string, waves []deploy.WaveSpec) {
	for i, w := range waves {
		all := w.Count.IsZero() || (w.Count.Percent && w.Count.N >= 100)
		if w.Select == nil && all && i < len(waves)-1 {
			errs.Add(yamltree.Index(path, i+1), "can never have a target: %s (waves[%d]) takes every target left; put the waves with select first", w.Name, i)
			return
		}
	}
}

// Spec is the rollout as written, without defaults: an environment's
// (the merge applies them). Call it only on a checked section.
func (r *RolloutDoc) Spec() *deploy.RolloutSpec {
	if r == nil {
		return nil
	}
	o := r.Override()
	s := &deploy.RolloutSpec{
		Rule: o.Rule, Exclude: o.Exclude, Waves: o.Waves, Percentages: o.Percentages,
		Gates: o.Gates, NoData: o.NoData, OnFailure: o.OnFailure,
	}
	if o.Bake != nil {
		s.Bake = *o.Bake
	}
	if o.MaxFailures != nil {
		s.MaxFailures = *o.MaxFailures
	}
	if o.PauseTimeout != nil {
		s.PauseTimeout = *o.PauseTimeout
	}
	if o.DeferTimeout != nil {
		s.DeferTimeout = *o.DeferTimeout
	}
	return s
}

// Override is the rollout as a descriptor gives it: only what is written.
// Call it only on a checked section.
func (r *RolloutDoc) Override() *deploy.RolloutOverride {
	if r == nil {
		return nil
	}
	o := &deploy.RolloutOverride{
		Rule: r.Rule.selector(), Exclude: r.Exclude.selector(), Percentages: r.Percentages,
		Bake: r.Bake, NoData: deploy.NoDataPolicy(r.NoData), OnFailure: deploy.RolloutFailurePolicy(r.OnFailure),
		PauseTimeout: r.PauseTimeout, DeferTimeout: r.DeferTimeout,
	}
	if r.MaxFailures != nil {
		a := amount(r.MaxFailures)
		o.MaxFailures = &a
	}
	if r.Waves != nil {
		o.Waves = make([]deploy.WaveSpec, len(r.Waves))
		for i, w := range r.Waves {
			o.Waves[i] = deploy.WaveSpec{Name: w.Name, Select: w.Select.selector(), Count: amount(w.Count),
				Batch: amount(w.Batch), Bake: w.Bake, Approval: w.Approval}
		}
	}
	if r.Gates != nil {
		names := gateNames(r.Gates)
		o.Gates = make([]deploy.GateSpec, len(r.Gates))
		for i, g := range r.Gates {
			o.Gates[i] = g.gate(names[i])
		}
	}
	return o
}

func (s *SelectorDoc) selector() *deploy.Selector {
	if s == nil {
		return nil
	}
	return &deploy.Selector{Labels: s.Labels}
}

func amount(v *string) deploy.Amount {
	if v == nil {
		return deploy.Amount{}
	}
	a, _ := ParseAmount(*v)
	return a
}

func (g GateDoc) gate(name string) deploy.GateSpec {
	out := deploy.GateSpec{Name: name}
	if h := g.HTTP; h != nil {
		out.HTTP = &deploy.HTTPGate{URL: h.URL, Timeout: h.Timeout}
		if h.ExpectStatus != nil {
			out.HTTP.ExpectStatus = *h.ExpectStatus
		}
	}
	if p := g.Prometheus; p != nil {
		out.Prometheus = &deploy.PrometheusGate{URL: p.URL, Query: p.Query, Min: p.Min, Max: p.Max, Timeout: p.Timeout,
			BearerSecret: p.BearerSecret}
		if a := p.BasicAuth; a != nil {
			out.Prometheus.BasicAuth = &deploy.GateBasicAuth{Username: a.Username, PasswordSecret: a.PasswordSecret}
		}
	}
	return out
}
