package config

import (
	"net/netip"
	"net/url"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/yamltree"
)

// Callbacks is the policy of the descriptors' callbacks (docs/callbacks.md):
// where they may point, with which keys their deliveries are signed, and
// how long a delivery is tried.
type Callbacks struct {
	// Allowed are URL prefixes; a descriptor's callback must start with one
	// of them, on a boundary of its origin or path (see Allows). None:
	// descriptors may have no callbacks.
	Allowed []string `yaml:"allowed"`
	// AllowHTTP lets plain http:// URLs through (a receiver on loopback);
	// otherwise only https:// ones are.
	AllowHTTP bool `yaml:"allow_http"`
	// SigningKeyRefs are secret references of the signing keys: the first
	// signs, the others are listed for receivers during a rotation.
	SigningKeyRefs []string `yaml:"signing_key_refs"`
	// RetryWindow bounds the retries of a delivery, from its first attempt.
	RetryWindow time.Duration `yaml:"retry_window"`
	// Timeout bounds one attempt, its answer included.
	Timeout time.Duration `yaml:"timeout"`
	// Concurrency bounds the deliveries a worker makes at once.
	Concurrency int `yaml:"concurrency"`
	// ConcurrencyPerTenant bounds the deliveries of one tenant's deploys
	// running at once, across the workers: a tenant whose receivers hang
	// holds at most that many of the slots.
	ConcurrencyPerTenant int `yaml:"concurrency_per_tenant"`
	// MaxStepEvents bounds the step events one deploy sends to one
	// callback; the later ones are dropped (started and finished never).
	MaxStepEvents int `yaml:"max_step_events"`
	// FirstRetry is the wait before the first retry (5s); the later ones
	// grow from it (5m, 30m, 2h, 5h, 10h with the default).
	FirstRetry time.Duration `yaml:"first_retry"`
}

// Callback defaults.
const (
	DefaultCallbackRetryWindow = 24 * time.Hour
	DefaultCallbackTimeout     = 10 * time.Second
	DefaultCallbackConcurrency = 8
	DefaultCallbackFirstRetry  = 5 * time.Second
	// DefaultCallbackConcurrencyPerTenant leaves, with the default
	// concurrency, six slots to the other tenants.
	DefaultCallbackConcurrencyPerTenant = 2
	DefaultCallbackMaxStepEvents        = 500
	// CallbackConnectTimeout bounds the connection of an attempt (within
	// callbacks.timeout): an unreachable receiver fails fast.
	CallbackConnectTimeout = 3 * time.Second
)

// CallbackProblem says why the policy refuses the callback URL raw, "" when
// it allows it. The address itself is checked again when it is called
// (a name may resolve to a refused address).
func (c Callbacks) CallbackProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an http:// or https:// URL"
	}
	if u.Scheme == "http" && !c.AllowHTTP {
		return "must be an https:// URL (manent.yml callbacks.allow_http is off)"
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && safehttp.Refused(ip) {
		return "names a link-local or metadata address, which manent never calls"
	}
	if msg := pathProblem(u); msg != "" {
		return msg
	}
	for _, p := range c.Allowed {
		if prefixAllows(p, u) {
			return ""
		}
	}
	if len(c.Allowed) == 0 {
		return "is not allowed: manent.yml allows no callbacks (callbacks.allowed)"
	}
	return "is not allowed by manent.yml's callbacks.allowed"
}

// pathProblem refuses what a receiver, or a proxy before it, could read as
// another path than the one the prefix was compared with: . and ..
// segments (plain or percent-encoded, %2e), and encoded separators (%2f,
// %5c), which some servers decode before they route.
func pathProblem(u *url.URL) string {
	p := u.EscapedPath()
	if placeholder.DotSegment(p) {
		return "must not hold . or .. path segments (nor their percent-encoded forms)"
	}
	if lower := strings.ToLower(p); strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(p, `\`) {
		return "must not hold an encoded / or \\ in its path"
	}
	return ""
}

// prefixAllows reports whether the prefix p allows the URL u, compared as
// parsed values: the same scheme and host (case aside), the same port, and
// a path that starts with p's on a segment boundary. So
// https://hooks.example.com allows https://hooks.example.com/x and
// https://hooks.example.com:8443/x, never https://hooks.example.com.evil.net/
// nor https://hooks.example.comx/; https://ci.example.com/hooks allows
// /hooks and /hooks/a, not /hooksx. A prefix ending in ":" inside the
// origin (http://127.0.0.1:) allows any port of that host. A prefix with a
// query allows the URLs whose path is its path and whose query starts with
// its query.
func prefixAllows(p string, u *url.URL) bool {
	anyPort := false
	if rest, ok := strings.CutSuffix(p, ":"); ok && !strings.Contains(afterScheme(rest), "/") {
		p, anyPort = rest, true
	}
	pu, err := url.Parse(p)
	if err != nil || pu.Host == "" || pu.User != nil || pathProblem(pu) != "" {
		return false
	}
	if !strings.EqualFold(pu.Scheme, u.Scheme) || !strings.EqualFold(pu.Hostname(), u.Hostname()) {
		return false
	}
	pp := pu.EscapedPath()
	switch {
	case anyPort:
		if u.Port() == "" {
			return false
		}
	case pu.Port() == "" && (pp == "" || pp == "/") && !pu.ForceQuery && pu.RawQuery == "":
		// An origin allows each of its ports.
	case pu.Port() != u.Port():
		return false
	}
	up := u.EscapedPath()
	if pu.RawQuery != "" || pu.ForceQuery {
		return up == pp && strings.HasPrefix(u.RawQuery, pu.RawQuery)
	}
	if pp == "" {
		return true
	}
	rest, ok := strings.CutPrefix(up, pp)
	return ok && (rest == "" || strings.HasSuffix(pp, "/") || rest[0] == '/')
}

// afterScheme is s after its "://".
func afterScheme(s string) string {
	_, rest, _ := strings.Cut(s, "://")
	return rest
}

func (c *Config) validateCallbacks(errs *yamltree.Errors) {
	cb := &c.Callbacks
	for i, p := range cb.Allowed {
		path := yamltree.Index("callbacks.allowed", i)
		u, err := url.Parse(strings.TrimSuffix(p, ":"))
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs.Add(path, "must be the start of an http:// or https:// URL, with its host (https://hooks.example.com/)")
		case u.User != nil:
			errs.Add(path, "must not contain credentials")
		case u.Scheme == "http" && !cb.AllowHTTP:
			errs.Add(path, "is an http:// prefix: set callbacks.allow_http to allow plain HTTP")
		case pathProblem(u) != "":
			errs.Add(path, "%s", pathProblem(u))
		}
	}
	for i, ref := range cb.SigningKeyRefs {
		if msg := c.refProblem(ref); msg != "" {
			errs.Add(yamltree.Index("callbacks.signing_key_refs", i), "%s", msg)
		}
	}
	if len(cb.Allowed) > 0 && len(cb.SigningKeyRefs) == 0 {
		errs.Add("callbacks.signing_key_refs", "must name at least one key when callbacks are allowed: receivers check the signature")
	}
	if cb.RetryWindow == 0 {
		cb.RetryWindow = DefaultCallbackRetryWindow
	}
	if cb.RetryWindow < time.Second || cb.RetryWindow > 7*24*time.Hour {
		errs.Add("callbacks.retry_window", "must be between 1s and 168h")
	}
	if cb.Timeout == 0 {
		cb.Timeout = DefaultCallbackTimeout
	}
	if cb.Timeout < 100*time.Millisecond || cb.Timeout > time.Minute {
		errs.Add("callbacks.timeout", "must be between 100ms and 1m")
	}
	if cb.FirstRetry == 0 {
		cb.FirstRetry = DefaultCallbackFirstRetry
	}
	if cb.FirstRetry < 10*time.Millisecond || cb.FirstRetry > time.Hour {
		errs.Add("callbacks.first_retry", "must be between 10ms and 1h")
	}
	if cb.Concurrency == 0 {
		cb.Concurrency = DefaultCallbackConcurrency
	}
	if cb.Concurrency < 1 || cb.Concurrency > 256 {
		errs.Add("callbacks.concurrency", "must be between 1 and 256")
	}
	if cb.ConcurrencyPerTenant == 0 {
		cb.ConcurrencyPerTenant = min(DefaultCallbackConcurrencyPerTenant, max(cb.Concurrency, 1))
	}
	if cb.ConcurrencyPerTenant < 1 || cb.ConcurrencyPerTenant > cb.Concurrency {
		errs.Add("callbacks.concurrency_per_tenant", "must be between 1 and callbacks.concurrency")
	}
	if cb.MaxStepEvents == 0 {
		cb.MaxStepEvents = DefaultCallbackMaxStepEvents
	}
	if cb.MaxStepEvents < 1 || cb.MaxStepEvents > 100000 {
		errs.Add("callbacks.max_step_events", "must be between 1 and 100000")
	}
}

// CheckCallbacks returns the descriptor's callbacks the policy refuses, each
// on its path (callbacks[i].url), nil when it allows them all.
func (c *Config) CheckCallbacks(d *deploy.Descriptor) []deploy.FieldError {
	var out []deploy.FieldError
	for i, cb := range d.Callbacks {
		if msg := c.Callbacks.CallbackProblem(cb.URL); msg != "" {
			out = append(out, deploy.FieldError{Path: yamltree.Index("callbacks", i) + ".url", Message: msg})
		}
	}
	return out
}
