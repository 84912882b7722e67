package deploy

import (
	"slices"
	"time"
)

// The types of custom steps: a request sent from the worker, a command run
// on the targets over SSH.
const (
	StepTypeHTTP    = "http"
	StepTypeCommand = "command"
)

// CustomSpec is the complete specification of a custom step as manent.yml
// declares it. The plan captures it at submission (PlannedStep.Spec), so a
// resumed deploy, a deploy waiting for its approvals and the runs of a
// schedule execute what they started with, whatever manent.yml says later.
// Its JSON is durable: it is what spec_hash hashes and the signature covers.
type CustomSpec struct {
	Name       string        `json:"name"`
	Type       string        `json:"type"`
	Timeout    time.Duration `json:"timeout"`
	MaxRetries int           `json:"max_retries"`
	// Secrets are the logical names (of the environment configuration's
	// secrets) the run receives.
	Secrets []string              `json:"secrets,omitempty"`
	Params  map[string]ParamSpec  `json:"params,omitempty"`
	Outputs map[string]OutputSpec `json:"outputs,omitempty"`
	// SSH is the login of a command step (its user instead of the
	// target's, and the credentials' logical names).
	SSH    *CustomSSH `json:"ssh,omitempty"`
	Run    CustomRun  `json:"run"`
	DryRun *CustomRun `json:"dry_run,omitempty"`
}

// ParamSpec declares a parameter: the whole value must match Pattern.
type ParamSpec struct {
	Pattern  string  `json:"pattern"`
	Required bool    `json:"required,omitempty"`
	Default  *string `json:"default,omitempty"`
}

// OutputSpec declares an output: the whole value must match Pattern. Path
// (HTTP steps) is where the JSON response holds it ($.a.b[0], $["a.b"]).
type OutputSpec struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

// CustomSSH is a command step's login on the targets.
type CustomSSH struct {
	User           string `json:"user,omitempty"`
	KeySecret      string `json:"key_secret,omitempty"`
	PasswordSecret string `json:"password_secret,omitempty"`
}

// CustomRun is what a custom step does, in its run or in its dry run. The
// fields of the other type stay empty.
type CustomRun struct {
	// Command steps.
	RunOnce bool     `json:"run_once,omitempty"`
	Command []string `json:"command,omitempty"`
	SHA256  string   `json:"sha256,omitempty"`

	// HTTP steps.
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Auth    *HTTPAuth         `json:"auth,omitempty"`
	// JSON is the request body as YAML decoded it: maps, lists, strings,
	// numbers, booleans, null; placeholders only in strings.
	JSON   any       `json:"json,omitempty"`
	Expect []int     `json:"expect,omitempty"`
	Poll   *HTTPPoll `json:"poll,omitempty"`

	// Secrets are the dry run's own secrets (dry_run.secrets): a dry run
	// never receives those of the run.
	Secrets []string `json:"secrets,omitempty"`
}

// HTTPAuth is how an HTTP step authenticates, with a secret of the step's.
type HTTPAuth struct {
	// Type is bearer, basic or header.
	Type   string `json:"type"`
	Secret string `json:"secret"`
	// Username is basic's user; Header is the header's name for header.
	Username string `json:"username,omitempty"`
	Header   string `json:"header,omitempty"`
}

// HTTPPoll waits, inside the step, for an asynchronous operation the first
// request started.
type HTTPPoll struct {
	URL      string        `json:"url"`
	Interval time.Duration `json:"interval,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	Until    *PollMatch    `json:"until,omitempty"`
	Fail     *PollMatch    `json:"fail,omitempty"`
}

// PollMatch holds when the value at Path of a poll's answer is one of In.
type PollMatch struct {
	Path string   `json:"path"`
	In   []string `json:"in"`
}

// OperationSecrets are the logical names of the secrets one operation of
// the step receives: those of the run, or in a dry run only the dry run's
// own, and in both the SSH login of a command step; none in a dry run of
// a step without dry_run, which is skipped. The worker resolves these and
// no others, and the secrets step checks them before anything changes on
// the targets.
func (s *CustomSpec) OperationSecrets(dryRun bool) []string {
	var names []string
	switch {
	case !dryRun:
		names = append(names, s.Secrets...)
	case s.DryRun == nil:
		return nil
	default:
		names = append(names, s.DryRun.Secrets...)
	}
	if l := s.SSH; l != nil {
		for _, n := range []string{l.KeySecret, l.PasswordSecret} {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}
