package config

import (
	"net/netip"
	"net/url"
	"strings"
	"time"

	"manent.dev/manent/deploy"
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
)

// CallbackProblem says why the policy refuses the callback URL raw, "" when
// it allows it. The address itself is checked again when it is called
// (a name may resolve to a refused address).
func (c Callbacks) CallbackProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "must be an http:// or https:// URL"
	}
	if u.Scheme == "http" && !c.AllowHTTP {
		return "must be an https:// URL (manent.yml callbacks.allow_http is off)"
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && safehttp.Refused(ip) {
		return "names a link-local or metadata address, which manent never calls"
	}
	for _, p := range c.Allowed {
		if prefixAllows(p, raw) {
			return ""
		}
	}
	if len(c.Allowed) == 0 {
		return "is not allowed: manent.yml allows no callbacks (callbacks.allowed)"
	}
	return "is not allowed by manent.yml's callbacks.allowed"
}

// prefixAllows reports whether the prefix p allows the URL u: u starts with
// p, and p ends on a boundary of u, so https://hooks.example.com allows
// https://hooks.example.com/x and https://hooks.example.com:8443/x, never
// https://hooks.example.com.evil.net/ nor https://hooks.example.comx/. A
// prefix ending in ":" inside the origin (http://127.0.0.1:) allows any
// port of that host.
func prefixAllows(p, u string) bool {
	if p == "" || !strings.HasPrefix(u, p) {
		return false
	}
	rest := u[len(p):]
	scheme := strings.Index(p, "://")
	inOrigin := scheme >= 0 && !strings.Contains(p[scheme+3:], "/")
	switch {
	case rest == "" || strings.HasSuffix(p, "/"):
		return true
	case inOrigin && strings.HasSuffix(p, ":"):
		port, _, _ := strings.Cut(rest, "/")
		port, _, _ = strings.Cut(port, "?")
		return port != "" && strings.Trim(port, "0123456789") == ""
	case strings.ContainsRune("/?#", rune(rest[0])):
		return true
	}
	return inOrigin && rest[0] == ':'
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
