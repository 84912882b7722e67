package gates

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
)

// WaveInput is what a gate is checked against: the wave's targets and the
// deploy's values of the health placeholders.
type WaveInput struct {
	Targets     []deploy.Target
	Version     string
	Application string
	Environment string
	Tenant      string
}

// Result is how one gate check ended, as the rollout's status shows it. It
// travels as a step's output, so its JSON names are durable.
type Result struct {
	Name  string            `json:"name"`
	State deploy.GateResult `json:"state"`
	// Value is the Prometheus gate's value (the worst series'); nil when
	// the check read none. It is never NaN or infinite: those are no_data.
	Value *float64 `json:"value,omitempty"`
	// Detail is one short line of escaped text saying why the check ended
	// so; it never holds a secret, a URL's user info or query, or a body.
	Detail string `json:"detail"`
	// Targets are the HTTP gate's answers, one per target of the wave in
	// the wave's order.
	Targets []TargetCheck `json:"targets,omitempty"`
	// CheckedAt is when the check started (the Prometheus query's time),
	// in UTC.
	CheckedAt time.Time `json:"checked_at"`
}

// TargetCheck is the answer of one target to an HTTP gate.
type TargetCheck struct {
	Target string            `json:"target"`
	State  deploy.GateResult `json:"state"`
	// Status is the HTTP status answered; 0 when none was.
	Status int    `json:"status,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// ValueText is Value written compactly ("0.0042", "1e+06"), "" without one.
func (r Result) ValueText() string {
	if r.Value == nil {
		return ""
	}
	return formatValue(*r.Value)
}

// Checker checks gates. Its zero value is ready: requests go through a
// safehttp client (no redirect followed, link-local and metadata addresses
// refused, bodies capped).
type Checker struct {
	// Client makes the requests; nil: a safehttp client per check. The
	// gate's timeout bounds every request, whatever the client's own.
	Client *http.Client
	// Now is the clock of CheckedAt and of the Prometheus query's time
	// (default time.Now).
	Now func() time.Time
	// Parallel bounds the HTTP gate's requests in flight (default 16):
	// a wave of hundreds of targets is checked in a few timeouts at most.
	Parallel int
	// Secret resolves a logical secret name of the environment
	// configuration, as the plugins' requests do (deploy.PluginRequest):
	// a gate's credentials are read when it is checked, never stored with
	// the deploy. Its errors are shown: they name the secret, never its
	// value or where it is kept. Nil: a gate that needs one is
	// inconclusive.
	Secret func(ctx context.Context, name string) (string, error)
}

// DefaultParallel is the HTTP gate's requests in flight when Checker
// does not say.
const DefaultParallel = 16

// Check checks gate against wave with a zero Checker.
func Check(ctx context.Context, gate deploy.GateSpec, wave WaveInput) Result {
	return Checker{}.Check(ctx, gate, wave)
}

// Check runs one gate. It never fails: what keeps the gate from being
// evaluated (a URL that cannot be filled, Prometheus down, an answer that
// is not Prometheus's) is inconclusive. When ctx ends before the check
// does, the result is inconclusive ("check interrupted"): a caller that
// stops (a shutdown) sees ctx.Err() and checks again instead of recording
// it.
func (c Checker) Check(ctx context.Context, gate deploy.GateSpec, wave WaveInput) Result {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	at := now().UTC()
	var r Result
	switch {
	case gate.HTTP != nil && gate.Prometheus != nil:
		r = inconclusive("the gate has both an http and a prometheus check")
	case gate.HTTP != nil:
		r = c.checkHTTP(ctx, *gate.HTTP, wave)
	case gate.Prometheus != nil:
		r = c.checkPrometheus(ctx, *gate.Prometheus, at)
	default:
		r = inconclusive("the gate has no check")
	}
	if ctx.Err() != nil {
		// Whatever was seen before, an interrupted check tells nothing.
		r.State, r.Value, r.Detail = deploy.GateInconclusive, nil, "check interrupted"
	}
	r.Name, r.CheckedAt = gate.DisplayName(), at
	return r
}

// client is c's client, or a safehttp one whose own timeout is the gate's;
// done releases what the check's own client holds.
func (c Checker) client(timeout time.Duration) (client *http.Client, done func()) {
	if c.Client != nil {
		return c.Client, func() {}
	}
	client = safehttp.New(safehttp.Options{Timeout: timeout})
	return client, client.CloseIdleConnections
}

func timeoutOf(d time.Duration) time.Duration {
	if d <= 0 {
		return deploy.DefaultGateTimeout
	}
	return d
}

func inconclusive(detail string) Result {
	return Result{State: deploy.GateInconclusive, Detail: short(detail)}
}

// Verdict is what a wave's gates, together, make the rollout do.
type Verdict string

// The verdicts.
const (
	// VerdictPass: the wave passed its gates; the rollout goes on.
	VerdictPass Verdict = "pass"
	// VerdictFail: the wave failed; the rollout's on_failure decides.
	VerdictFail Verdict = "fail"
	// VerdictPause: the gates could not tell; the rollout pauses for
	// someone to resume or abort it.
	VerdictPause Verdict = "pause"
)

// Decide is the verdict of a wave's gate results: a failed gate fails the
// wave, else an inconclusive one pauses it, else it passes. A no_data
// result counts as the rollout's no_data policy says (fail when unset:
// missing data never passes unless written so). No gates at all pass: a
// rollout without gates goes on after the bake.
func Decide(results []Result, noData deploy.NoDataPolicy) Verdict {
	v := VerdictPass
	for _, r := range results {
		state := r.State
		if state == deploy.GateNoData {
			switch noData {
			case deploy.NoDataPass:
				state = deploy.GatePass
			case deploy.NoDataPause:
				state = deploy.GateInconclusive
			default:
				state = deploy.GateFail
			}
		}
		switch state {
		case deploy.GatePass:
		case deploy.GateInconclusive:
			v = VerdictPause
		default:
			// fail, and any state this version does not know: never a pass.
			return VerdictFail
		}
	}
	return v
}

// maxDetail is the longest Detail, in bytes: a line in a status, not a
// report.
const maxDetail = 240

// short is s escaped as one line (deploy.EscapeText) and cut to maxDetail.
func short(s string) string {
	s = deploy.EscapeText(s)
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// formatValue writes v with at most six significant digits.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// plural is "1 target", "3 targets".
func plural(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// joinDetail is the first detail, and how many more there are.
func joinDetail(details []string, of int) string {
	if len(details) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(details[0])
	if len(details) > 1 {
		b.WriteString(" (and " + strconv.Itoa(len(details)-1) + " more of " + strconv.Itoa(of) + ")")
	}
	return b.String()
}
