package deploy

import (
	"maps"
	"slices"
	"strconv"
	"time"
)

// The rollout's specification, as the environment configuration (and, where
// descriptor_policy.rollout allows, the descriptor) writes it. These types
// travel in the effective deploy, so their JSON names are durable: renaming
// one is a migration of in-flight deploys.

// RolloutSpec says how a deploy's targets are rolled out: in waves, each in
// batches, with a bake and gates after every wave. A nil *RolloutSpec is the
// single pass over every target manent always did.
type RolloutSpec struct {
	// Rule must match every target; a target it does not match is rejected
	// and fails the deploy before any target is touched.
	Rule *Selector `json:"rule,omitempty"`
	// Exclude selects the targets never touched (shown as excluded).
	Exclude *Selector `json:"exclude,omitempty"`
	// Waves run in order; a target belongs to the first wave that selects
	// it. Exactly one of Waves and Percentages is set.
	Waves []WaveSpec `json:"waves,omitempty"`
	// Percentages are cumulative shares of the targets, ascending, the last
	// 100: each is one wave (named "10%", "50%", ...).
	Percentages []int `json:"percentages,omitempty"`
	// Bake is the default wait after each wave before its gates.
	Bake time.Duration `json:"bake,omitempty"`
	// MaxFailures is the failed targets a wave tolerates: exceeded (never
	// merely reached) fails the wave.
	MaxFailures Amount `json:"max_failures,omitzero"`
	// Gates are checked after each wave's bake.
	Gates []GateSpec `json:"gates,omitempty"`
	// NoData says what a gate that gets no value does.
	NoData NoDataPolicy `json:"no_data,omitempty"`
	// OnFailure says what a failed wave does.
	OnFailure RolloutFailurePolicy `json:"on_failure,omitempty"`
	// PauseTimeout bounds a pause; past it the rollout aborts.
	PauseTimeout time.Duration `json:"pause_timeout,omitempty"`
	// DeferTimeout bounds the wait of a wave deferred by a freeze window;
	// past it the rollout aborts.
	DeferTimeout time.Duration `json:"defer_timeout,omitempty"`
}

// WaveSpec is one wave of a rollout.
type WaveSpec struct {
	Name string `json:"name"`
	// Select picks the wave's targets among those no earlier wave took; nil
	// takes every remaining target.
	Select *Selector `json:"select,omitempty"`
	// Count caps the targets the wave takes (count or percentage of the
	// targets it selects); zero takes them all.
	Count Amount `json:"count,omitzero"`
	// Batch is the targets handled at once (count or percentage of the
	// wave's targets); zero is the whole wave in one batch.
	Batch Amount `json:"batch,omitzero"`
	// Bake overrides the rollout's bake after this wave (nil: the default).
	Bake *time.Duration `json:"bake,omitempty"`
	// Approval asks for the approvals of the environment's governance
	// before the wave starts, once the previous wave passed.
	Approval bool `json:"approval,omitempty"`
}

// Selector matches targets by their labels: every label given must be equal.
type Selector struct {
	Labels map[string]string `json:"labels,omitempty"`
}

// Matches reports whether t carries every label of s.
func (s Selector) Matches(t Target) bool {
	for k, v := range s.Labels {
		if got, ok := t.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Amount is a number of targets, either a count or a percentage of a whole
// ("2" or "50%" in YAML).
type Amount struct {
	N       int  `json:"n"`
	Percent bool `json:"percent,omitempty"`
}

// IsZero reports whether a is unset.
func (a Amount) IsZero() bool { return a.N == 0 && !a.Percent }

// Of is the count a stands for out of total: a percentage rounds up (so 10%
// of 5 targets is one, never zero), and the result never exceeds total.
func (a Amount) Of(total int) int {
	n := a.N
	if a.Percent {
		n = (a.N*total + 99) / 100
	}
	return min(n, total)
}

// GateSpec is one health gate; exactly one of its checks is set.
type GateSpec struct {
	// Name is how the status names the gate ("http", "prometheus" or the
	// name written in the configuration).
	Name       string          `json:"name,omitempty"`
	HTTP       *HTTPGate       `json:"http,omitempty"`
	Prometheus *PrometheusGate `json:"prometheus,omitempty"`
}

// DisplayName is how the status names the gate: the name written in the
// configuration, else the kind of its check.
func (g GateSpec) DisplayName() string {
	switch {
	case g.Name != "":
		return g.Name
	case g.HTTP != nil:
		return "http"
	case g.Prometheus != nil:
		return "prometheus"
	}
	return "gate"
}

// GatePlaceholders are the values an HTTP gate's URL may contain: the
// health placeholders and the target's, each filled for the target called.
var GatePlaceholders = append(append([]string(nil), HealthPlaceholders...),
	"Target.Host", "Target.Port", "Target.User", "Target.Path")

// GateHostPlaceholders may also stand in an HTTP gate URL's host and port
// (https://{{ .Target.Host }}:{{ .Target.Port }}/health), where they must be
// a host name or IP address and a port number.
var GateHostPlaceholders = []string{"Target.Host", "Target.Port"}

// HTTPGate calls a URL once per target of the wave; the gate passes when
// every answer has the expected status.
type HTTPGate struct {
	// URL may hold GatePlaceholders ({{ .Version }}, {{ .Target.Host }},
	// ...); only GateHostPlaceholders may stand in the host and port.
	URL          string        `json:"url"`
	ExpectStatus int           `json:"expect_status,omitempty"`
	Timeout      time.Duration `json:"timeout,omitempty"`
}

// PrometheusGate runs an instant query; the gate passes when the value is
// within [Min, Max] (each bound optional).
type PrometheusGate struct {
	// URL never holds user info: credentials are secrets of the
	// environment configuration, named by BasicAuth or BearerSecret and
	// resolved by the worker when it checks the gate, so the effective
	// deploy stored with the deploy holds their names, never their values.
	URL     string        `json:"url"`
	Query   string        `json:"query"`
	Min     *float64      `json:"min,omitempty"`
	Max     *float64      `json:"max,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	// BasicAuth and BearerSecret are how the query authenticates, at most
	// one of them; neither: it does not.
	BasicAuth    *GateBasicAuth `json:"basic_auth,omitempty"`
	BearerSecret string         `json:"bearer_secret,omitempty"`
}

// GateBasicAuth is a gate's basic authentication: the user name as written
// and the logical name of the secret (the environment configuration's
// secrets section) that holds the password.
type GateBasicAuth struct {
	Username       string `json:"username"`
	PasswordSecret string `json:"password_secret"`
}

// Secrets are the logical names of the secrets the gate sends, in order.
func (g PrometheusGate) Secrets() []string {
	var out []string
	if g.BasicAuth != nil {
		out = append(out, g.BasicAuth.PasswordSecret)
	}
	if g.BearerSecret != "" {
		out = append(out, g.BearerSecret)
	}
	return out
}

// GateResult is how one gate check ended.
type GateResult string

// Every check ends in exactly one of these.
const (
	GatePass         GateResult = "pass"
	GateFail         GateResult = "fail"
	GateInconclusive GateResult = "inconclusive"
	GateNoData       GateResult = "no_data"
)

// NoDataPolicy is what a gate that gets no value does.
type NoDataPolicy string

// The no_data policies; NoDataFail is the default (missing data is never a
// pass unless written so).
const (
	NoDataFail  NoDataPolicy = "fail"
	NoDataPause NoDataPolicy = "pause"
	NoDataPass  NoDataPolicy = "pass"
)

// RolloutFailurePolicy is what a failed wave does.
type RolloutFailurePolicy string

// The on_failure policies; RolloutAbort is the default.
const (
	// RolloutAbort fails the deploy, then rolls back per the rollback policy.
	RolloutAbort RolloutFailurePolicy = "abort"
	// RolloutPause holds the rollout until someone resumes or aborts it.
	RolloutPause RolloutFailurePolicy = "pause"
)

// Rollout defaults.
const (
	DefaultPauseTimeout = 24 * time.Hour
	DefaultDeferTimeout = 24 * time.Hour
	DefaultGateTimeout  = 10 * time.Second
	// DefaultGatesTimeLimit bounds the check of a wave's gates as a whole
	// (engine.gates_time_limit).
	DefaultGatesTimeLimit = 10 * time.Minute
	// DefaultRolloutLookInterval is how long a waiting rollout sleeps at
	// most before it looks again by itself (engine.rollout_look_interval).
	DefaultRolloutLookInterval = 15 * time.Minute
)

// WithDefaults returns a copy of s with the defaults of what it leaves
// out: no_data fail, on_failure abort, the pause and defer timeouts, the
// timeout of each gate. The effective deploy carries the result, so what
// validate shows is what runs.
func (s RolloutSpec) WithDefaults() RolloutSpec {
	out := s.Clone()
	if out.NoData == "" {
		out.NoData = NoDataFail
	}
	if out.OnFailure == "" {
		out.OnFailure = RolloutAbort
	}
	if out.PauseTimeout == 0 {
		out.PauseTimeout = DefaultPauseTimeout
	}
	if out.DeferTimeout == 0 {
		out.DeferTimeout = DefaultDeferTimeout
	}
	for i := range out.Gates {
		g := &out.Gates[i]
		if g.HTTP != nil && g.HTTP.Timeout == 0 {
			g.HTTP.Timeout = DefaultGateTimeout
		}
		if g.Prometheus != nil && g.Prometheus.Timeout == 0 {
			g.Prometheus.Timeout = DefaultGateTimeout
		}
	}
	return out
}

// Clone returns a deep copy of s: the merge builds the effective rollout
// from the environment's without writing into it.
func (s RolloutSpec) Clone() RolloutSpec {
	out := s
	out.Rule, out.Exclude = s.Rule.Clone(), s.Exclude.Clone()
	out.Percentages = slices.Clone(s.Percentages)
	if s.Waves != nil {
		out.Waves = make([]WaveSpec, len(s.Waves))
		for i, w := range s.Waves {
			out.Waves[i] = w.Clone()
		}
	}
	if s.Gates != nil {
		out.Gates = make([]GateSpec, len(s.Gates))
		for i, g := range s.Gates {
			out.Gates[i] = g.Clone()
		}
	}
	return out
}

// Clone returns a deep copy of w.
func (w WaveSpec) Clone() WaveSpec {
	out := w
	out.Select = w.Select.Clone()
	if w.Bake != nil {
		b := *w.Bake
		out.Bake = &b
	}
	return out
}

// Clone returns a copy of s (nil for nil).
func (s *Selector) Clone() *Selector {
	if s == nil {
		return nil
	}
	return &Selector{Labels: maps.Clone(s.Labels)}
}

// Clone returns a deep copy of g.
func (g GateSpec) Clone() GateSpec {
	out := g
	if g.HTTP != nil {
		h := *g.HTTP
		out.HTTP = &h
	}
	if g.Prometheus != nil {
		p := *g.Prometheus
		if p.Min != nil {
			v := *p.Min
			p.Min = &v
		}
		if p.Max != nil {
			v := *p.Max
			p.Max = &v
		}
		if p.BasicAuth != nil {
			a := *p.BasicAuth
			p.BasicAuth = &a
		}
		out.Prometheus = &p
	}
	return out
}

// WaveBake is the bake after wave i: its own, else the rollout's.
func (s RolloutSpec) WaveBake(i int) time.Duration {
	if i < len(s.Waves) && s.Waves[i].Bake != nil {
		return *s.Waves[i].Bake
	}
	return s.Bake
}

// RolloutOverride is a descriptor's rollout, where descriptor_policy.rollout
// allows one: what it gives, and only that, so the merge tells a key left
// out from a key set to its zero value (bake: 0s).
type RolloutOverride struct {
	Rule        *Selector  `json:"rule,omitempty"`
	Exclude     *Selector  `json:"exclude,omitempty"`
	Waves       []WaveSpec `json:"waves,omitempty"`
	Percentages []int      `json:"percentages,omitempty"`
	// Bake and MaxFailures are pointers: nil is not given.
	Bake         *time.Duration       `json:"bake,omitempty"`
	MaxFailures  *Amount              `json:"max_failures,omitempty"`
	Gates        []GateSpec           `json:"gates,omitempty"`
	NoData       NoDataPolicy         `json:"no_data,omitempty"`
	OnFailure    RolloutFailurePolicy `json:"on_failure,omitempty"`
	PauseTimeout *time.Duration       `json:"pause_timeout,omitempty"`
	DeferTimeout *time.Duration       `json:"defer_timeout,omitempty"`
}

// String is a as written: "2" or "50%".
func (a Amount) String() string {
	if a.Percent {
		return strconv.Itoa(a.N) + "%"
	}
	return strconv.Itoa(a.N)
}
