package itsm

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/jsonpath"
)

// Config is one connector of manent.yml's governance.connectors.<name>.
// See docs/governance-itsm.md for a ServiceNow example.
type Config struct {
	// BaseURL is the ITSM's root, http(s)://host[:port][/prefix]; call paths
	// are appended to it.
	BaseURL string        `yaml:"base_url"`
	Auth    Auth          `yaml:"auth"`
	Timeout time.Duration `yaml:"timeout"`
	Open    OpenCall      `yaml:"open"`
	Status  StatusCall    `yaml:"status"`
	Close   CloseCall     `yaml:"close"`
}

// Auth types.
const (
	AuthBearer = "bearer"
	AuthBasic  = "basic"
)

// Auth says how requests authenticate. The credential is only ever a secret
// reference (env:NAME, file:path), resolved at each request so a rotated
// secret is picked up without a restart.
type Auth struct {
	Type     string `yaml:"type"`
	Username string `yaml:"username"`
	Secret   string `yaml:"secret"`
}

// OpenCall creates the change ticket.
type OpenCall struct {
	Method string `yaml:"method"`
	Path   string `yaml:"path"`
	// Body is a JSON object; its string values may use {{ .DeploymentID }},
	// {{ .Application }}, {{ .Environment }}, {{ .Version }},
	// {{ .Requester }} and {{ .Description }}.
	Body string `yaml:"body"`
	// IDPath locates the ticket id in the answer ($.result.sys_id).
	IDPath string `yaml:"id_path"`
	// NumberPath optionally locates the human-facing number ($.result.number).
	NumberPath string `yaml:"number_path"`
}

// StatusCall reads the approval state of a ticket.
type StatusCall struct {
	Method string `yaml:"method"`
	// Path uses {{ .TicketID }}.
	Path      string `yaml:"path"`
	StatePath string `yaml:"state_path"`
	// ApprovedValues and RejectedValues are compared exactly with the value
	// at StatePath; any other value means the ticket is still pending.
	ApprovedValues []string `yaml:"approved_values"`
	RejectedValues []string `yaml:"rejected_values"`
}

// CloseCall closes the ticket with the deploy's outcome.
type CloseCall struct {
	Method string `yaml:"method"`
	// Path uses {{ .TicketID }}.
	Path string `yaml:"path"`
	// Body is a JSON object; its string values may use {{ .Outcome }}
	// (success, error or cancelled), {{ .OutcomeValue }}, {{ .TicketID }}
	// and {{ .DeploymentID }}.
	Body string `yaml:"body"`
	// OutcomeValues gives {{ .OutcomeValue }}: the ITSM's word for each
	// outcome (ServiceNow's close_code: successful, unsuccessful). An
	// outcome without an entry is used as is.
	OutcomeValues map[string]string `yaml:"outcome_values"`
}

// Outcomes a ticket is closed with.
const (
	OutcomeSuccess   = "success"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
)

// Defaults.
const (
	DefaultTimeout = 30 * time.Second
	// MaxTimeout keeps one ITSM call well inside a step's timeout.
	MaxTimeout = 5 * time.Minute
)

// SetDefaults gives absent keys their defaults; the config decoder calls it
// before decoding a connector.
func (c *Config) SetDefaults() {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Open.Method == "" {
		c.Open.Method = http.MethodPost
	}
	if c.Status.Method == "" {
		c.Status.Method = http.MethodGet
	}
	if c.Close.Method == "" {
		c.Close.Method = http.MethodPatch
	}
}

// Validate returns every problem of c, with paths relative to the connector
// (open.id_path). Absent methods and timeout count as their defaults.
func (c Config) Validate() []deploy.FieldError {
	c.SetDefaults()
	var v validator
	v.baseURL(c.BaseURL)
	v.auth(c.Auth)
	if c.Timeout < 0 || c.Timeout > MaxTimeout {
		v.add("timeout", "must be between 1ms and %s", MaxTimeout)
	}

	v.method("open.method", c.Open.Method, http.MethodPost, http.MethodPut, http.MethodPatch)
	v.path("open.path", c.Open.Path, openVars)
	v.body("open.body", c.Open.Body, openVars, true)
	v.jsonPath("open.id_path", c.Open.IDPath, true)
	v.jsonPath("open.number_path", c.Open.NumberPath, false)

	v.method("status.method", c.Status.Method, http.MethodGet, http.MethodPost)
	v.path("status.path", c.Status.Path, statusVars)
	if c.Status.Path != "" && !strings.Contains(c.Status.Path, "TicketID") {
		v.add("status.path", "must use {{ .TicketID }}")
	}
	v.jsonPath("status.state_path", c.Status.StatePath, true)
	v.values("status.approved_values", c.Status.ApprovedValues, true)
	v.values("status.rejected_values", c.Status.RejectedValues, false)
	for i, s := range c.Status.RejectedValues {
		if slices.Contains(c.Status.ApprovedValues, s) {
			v.add(fmt.Sprintf("status.rejected_values[%d]", i), "%q is also an approved value", s)
		}
	}

	v.method("close.method", c.Close.Method, http.MethodPost, http.MethodPut, http.MethodPatch)
	v.path("close.path", c.Close.Path, closeVars)
	v.body("close.body", c.Close.Body, closeVars, false)
	for k := range c.Close.OutcomeValues {
		if k != OutcomeSuccess && k != OutcomeError && k != OutcomeCancelled {
			v.add("close.outcome_values."+k, "unknown outcome (success, error or cancelled)")
		}
	}
	slices.SortFunc(v.errs, func(a, b deploy.FieldError) int { return strings.Compare(a.Path, b.Path) })
	return v.errs
}

type validator struct{ errs []deploy.FieldError }

func (v *validator) add(path, format string, args ...any) {
	v.errs = append(v.errs, deploy.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) baseURL(s string) {
	if s == "" {
		v.add("base_url", "is required")
		return
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.add("base_url", "must be an absolute http or https URL")
	case u.User != nil:
		// Credentials in a URL end up in logs and error messages.
		v.add("base_url", "must not hold credentials: use auth.secret")
	case u.RawQuery != "" || u.Fragment != "":
		v.add("base_url", "must not have a query or fragment: put them in the call paths")
	}
}

func (v *validator) auth(a Auth) {
	switch a.Type {
	case AuthBearer:
	case AuthBasic:
		if a.Username == "" {
			v.add("auth.username", "is required for basic authentication")
		}
	case "":
		v.add("auth.type", "is required (bearer or basic)")
	default:
		v.add("auth.type", "must be bearer or basic")
	}
	if a.Type != AuthBasic && a.Username != "" {
		v.add("auth.username", "is only used with basic authentication")
	}
	if scheme, rest, ok := strings.Cut(a.Secret, ":"); !ok || scheme == "" || rest == "" {
		// Never echo the value: someone may have pasted the secret itself.
		v.add("auth.secret", "must be a secret reference such as env:MANENT_SECRET_ITSM or file:itsm-token")
	}
}

func (v *validator) method(path, m string, allowed ...string) {
	if !slices.Contains(allowed, m) {
		v.add(path, "must be one of %s", strings.Join(allowed, ", "))
	}
}

func (v *validator) path(path, p string, allowed map[string]bool) {
	if p == "" {
		v.add(path, "is required")
		return
	}
	if !strings.HasPrefix(p, "/") {
		v.add(path, "must start with /")
		return
	}
	if err := checkText(p, allowed); err != nil {
		v.add(path, "%v", err)
		return
	}
	u, err := url.Parse(expandPath(p, map[string]string{}))
	if err != nil || u.Fragment != "" || u.Host != "" {
		v.add(path, "must be a URL path with an optional query")
	}
}

func (v *validator) body(path, b string, allowed map[string]bool, required bool) {
	if b == "" {
		if required {
			v.add(path, "is required")
		}
		return
	}
	if _, err := parseBody(b, allowed); err != nil {
		v.add(path, "%v", err)
	}
}

func (v *validator) jsonPath(path, p string, required bool) {
	if p == "" {
		if required {
			v.add(path, "is required")
		}
		return
	}
	if _, err := jsonpath.Parse(p); err != nil {
		v.add(path, "invalid JSON path (such as $.result.sys_id): %v", err)
	}
}

func (v *validator) values(path string, vals []string, required bool) {
	if required && len(vals) == 0 {
		v.add(path, "needs at least one value")
	}
	for i, s := range vals {
		if s == "" {
			v.add(fmt.Sprintf("%s[%d]", path, i), "must not be empty")
		}
	}
}
