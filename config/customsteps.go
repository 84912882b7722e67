package config

import (
	"maps"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

// Custom is pipeline.custom: what all custom steps share.
type Custom struct {
	// SpecKeyRefs are secret references (env:, file:) of the HMAC keys
	// that sign the specifications of custom steps: the first signs, all
	// verify. The server resolves them at start-up.
	SpecKeyRefs []string `yaml:"spec_key_refs"`
	// RevokedSpecs are the spec_hash of specifications that must not run
	// any more, whatever plan holds them.
	RevokedSpecs []string `yaml:"revoked_specs"`
	// KnownHosts is the known_hosts file the targets' host keys are
	// checked against (~/ for the server's home, else relative to
	// manent.yml).
	KnownHosts string `yaml:"known_hosts"`
	// InsecureIgnoreHostKey accepts any host key: development only.
	InsecureIgnoreHostKey bool `yaml:"insecure_ignore_host_key"`
	// SecretsDir is the directory, on the targets, under which a command
	// step's secrets are written: on tmpfs, so they stay in memory.
	SecretsDir string `yaml:"secrets_dir"`
	// AllowHTTP lets HTTP steps use http:// URLs.
	AllowHTTP bool `yaml:"allow_http"`
	// CAFile is a PEM bundle of certificate authorities that HTTP steps
	// trust besides the system's: an internal API behind a company CA.
	// Relative to manent.yml; the server reads it when it starts.
	CAFile string `yaml:"ca_file"`
}

// Defaults of custom steps.
const (
	DefaultSecretsDir   = "/dev/shm/manent"
	DefaultHTTPMethod   = "POST"
	DefaultPollInterval = 10 * time.Second
)

// ParamConfig declares a parameter of a custom step.
type ParamConfig struct {
	Pattern  string  `yaml:"pattern"`
	Required bool    `yaml:"required"`
	Default  *string `yaml:"default"`
}

// OutputConfig declares an output of a custom step.
type OutputConfig struct {
	Pattern string `yaml:"pattern"`
	Path    string `yaml:"path"`
}

// StepSSHConfig is a command step's login on the targets.
type StepSSHConfig struct {
	User           string `yaml:"user"`
	KeySecret      string `yaml:"key_secret"`
	PasswordSecret string `yaml:"password_secret"`
}

// RunConfig is the run or the dry run of a custom step: the keys of
// command steps (run_once, command, sha256), then those of HTTP steps.
type RunConfig struct {
	RunOnce bool     `yaml:"run_once"`
	Command []string `yaml:"command"`
	SHA256  string   `yaml:"sha256"`

	Method  string            `yaml:"method"`
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
	Auth    *AuthConfig       `yaml:"auth"`
	JSON    any               `yaml:"json"`
	Expect  []int             `yaml:"expect"`
	Poll    *PollConfig       `yaml:"poll"`

	// Secrets are dry_run.secrets: a dry run's own.
	Secrets []string `yaml:"secrets"`
}

// AuthConfig is how an HTTP step authenticates.
type AuthConfig struct {
	Type     string `yaml:"type"`
	Secret   string `yaml:"secret"`
	Username string `yaml:"username"`
	Header   string `yaml:"header"`
}

// PollConfig is the wait of an HTTP step for an asynchronous operation.
type PollConfig struct {
	URL      string        `yaml:"url"`
	Interval time.Duration `yaml:"interval"`
	Timeout  time.Duration `yaml:"timeout"`
	Until    *MatchConfig  `yaml:"until"`
	Fail     *MatchConfig  `yaml:"fail"`
}

// MatchConfig holds when the value at Path is one of In.
type MatchConfig struct {
	Path string   `yaml:"path"`
	In   []string `yaml:"in"`
}

// Custom reports whether the step is a custom one.
func (s StepConfig) Custom() bool { return s.Type != "" }

// Spec is the specification of a custom step as the plan captures it,
// defaults applied (method, poll interval and timeout), so that its hash
// says everything the step does; nil for a standard step.
func (s StepConfig) Spec() *deploy.CustomSpec {
	if !s.Custom() {
		return nil
	}
	spec := &deploy.CustomSpec{
		Name: s.Name, Type: s.Type, Timeout: s.Timeout, MaxRetries: s.MaxRetries,
		Secrets: slices.Clone(s.Secrets),
	}
	if len(s.Params) > 0 {
		spec.Params = make(map[string]deploy.ParamSpec, len(s.Params))
		for name, p := range s.Params {
			ps := deploy.ParamSpec{Pattern: p.Pattern, Required: p.Required}
			if p.Default != nil {
				d := *p.Default
				ps.Default = &d
			}
			spec.Params[name] = ps
		}
	}
	if len(s.Outputs) > 0 {
		spec.Outputs = make(map[string]deploy.OutputSpec, len(s.Outputs))
		for key, o := range s.Outputs {
			spec.Outputs[key] = deploy.OutputSpec{Pattern: o.Pattern, Path: o.Path}
		}
	}
	if s.SSH != nil {
		spec.SSH = &deploy.CustomSSH{User: s.SSH.User, KeySecret: s.SSH.KeySecret, PasswordSecret: s.SSH.PasswordSecret}
	}
	if s.Run != nil {
		spec.Run = s.Run.spec(s.Type, s.Timeout)
	}
	if s.DryRun != nil {
		dry := s.DryRun.spec(s.Type, s.Timeout)
		spec.DryRun = &dry
	}
	return spec
}

func (r *RunConfig) spec(typ string, timeout time.Duration) deploy.CustomRun {
	out := deploy.CustomRun{
		RunOnce: r.RunOnce, Command: slices.Clone(r.Command), SHA256: strings.ToLower(r.SHA256),
		Method: r.Method, URL: r.URL, Headers: maps.Clone(r.Headers), JSON: r.JSON,
		Expect: slices.Clone(r.Expect), Secrets: slices.Clone(r.Secrets),
	}
	if typ == deploy.StepTypeHTTP && out.Method == "" {
		out.Method = DefaultHTTPMethod
	}
	if r.Auth != nil {
		out.Auth = &deploy.HTTPAuth{Type: r.Auth.Type, Secret: r.Auth.Secret, Username: r.Auth.Username, Header: r.Auth.Header}
	}
	if p := r.Poll; p != nil {
		poll := &deploy.HTTPPoll{URL: p.URL, Interval: p.Interval, Timeout: p.Timeout,
			Until: p.Until.match(), Fail: p.Fail.match()}
		if poll.Interval == 0 {
			poll.Interval = DefaultPollInterval
		}
		if poll.Timeout == 0 {
			poll.Timeout = timeout
		}
		out.Poll = poll
	}
	return out
}

func (m *MatchConfig) match() *deploy.PollMatch {
	if m == nil {
		return nil
	}
	return &deploy.PollMatch{Path: m.Path, In: slices.Clone(m.In)}
}

// customStep returns the custom step of pipeline.steps named name.
func (c *Config) customStep(name string) (StepConfig, bool) {
	for _, s := range c.Pipeline.Steps {
		if s.Name == name && s.Custom() {
			return s, true
		}
	}
	return StepConfig{}, false
}
