package config

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/jsonpath"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/yamltree"
)

var (
	// Output keys become MANENT_OUTPUT_<STEP>_<KEY> and .Outputs.<step>.<key>:
	// the same alphabet as parameters keeps both unambiguous.
	outputKeyPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	// headerNamePattern is RFC 9110's token.
	headerNamePattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$")
	// anyCaseSHA256 is run.sha256: tools print a digest in either case,
	// the specification holds it in lowercase.
	anyCaseSHA256 = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
	// secretsDirPattern keeps the directory a plain absolute path: it is
	// written into a script that runs on the targets.
	secretsDirPattern = regexp.MustCompile(`^/[A-Za-z0-9._/-]{1,255}$`)
)

// Limits of a custom step's declarations.
const (
	maxCustomParams  = 64
	maxCustomOutputs = 64
	maxHeaders       = 64
	minPollInterval  = time.Second
)

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// managedHeaders are the headers manent sets itself (the body's type and
// length, the idempotency key, the auth) or that belong to the connection:
// a step that set them could mislead the server about the request.
var managedHeaders = []string{
	"Host", "Content-Type", "Content-Length", "Content-Encoding", "Idempotency-Key", "Authorization",
	"Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Connection", "Te",
	"Trailer", "Upgrade", "Expect", "Accept-Encoding",
}

// ManagedHeader reports whether run.headers may not set the header name:
// the check at start-up, and the HTTP steps' again on a stored plan.
func ManagedHeader(name string) bool { return managedHeader(name) }

func managedHeader(name string) bool {
	return slices.ContainsFunc(managedHeaders, func(h string) bool { return strings.EqualFold(h, name) })
}

// customKeys are the keys of pipeline.steps[] only custom steps have.
func customKeys(s StepConfig) []string {
	var keys []string
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"secrets", s.Secrets != nil}, {"params", s.Params != nil}, {"outputs", s.Outputs != nil},
		{"ssh", s.SSH != nil}, {"run", s.Run != nil}, {"dry_run", s.DryRun != nil},
	} {
		if k.set {
			keys = append(keys, k.name)
		}
	}
	return keys
}

// validateCustomStep checks the keys of a custom step; above holds the
// steps listed above it whose outputs its placeholders may name. On a
// standard step, every custom key is an error.
func (c *Config) validateCustomStep(errs *yamltree.Errors, p string, s StepConfig, above placeholder.Scope) {
	if !s.Custom() {
		for _, k := range customKeys(s) {
			errs.Add(p+"."+k, "only custom steps have %s: a standard step has no type (add type: http or type: command for a step of your own)", k)
		}
		return
	}
	if s.Type != deploy.StepTypeHTTP && s.Type != deploy.StepTypeCommand {
		errs.Add(p+".type", "must be http or command")
		return
	}
	checkSecretNames(errs, p+".secrets", s.Secrets)
	checkParamDecls(errs, p+".params", s.Params)
	checkOutputDecls(errs, p+".outputs", s)
	checkStepSSH(errs, p+".ssh", s)
	if s.Run == nil {
		if !errs.Bad(p + ".run") {
			errs.Add(p+".run", "is required: what the step does")
		}
	} else {
		c.checkRun(errs, p+".run", s, s.Run, false)
	}
	if s.DryRun != nil {
		c.checkRun(errs, p+".dry_run", s, s.DryRun, true)
	}
	c.checkStepTemplates(errs, p, s, above)
	// The plan is stored in jsonb, which cannot hold U+0000 in a string.
	if raw, err := json.Marshal(s.Spec()); err == nil && bytes.Contains(raw, []byte(`\u0000`)) {
		errs.Add(p, "holds a NUL character (U+0000) in one of its strings: a plan cannot store it")
	}
}

func checkSecretNames(errs *yamltree.Errors, p string, names []string) {
	seen := map[string]bool{}
	for i, n := range names {
		switch {
		case !secretNamePattern.MatchString(n):
			errs.Add(yamltree.Index(p, i), "must be the name of a secret of the environment configuration (1 to 63 characters of a-z, 0-9, _ and -, starting with a letter)")
		case seen[n]:
			errs.Add(yamltree.Index(p, i), "%s is listed twice", n)
		}
		seen[n] = true
	}
}

func checkParamDecls(errs *yamltree.Errors, p string, params map[string]ParamConfig) {
	if len(params) > maxCustomParams {
		errs.Add(p, "at most %d parameters are allowed, found %d", maxCustomParams, len(params))
		return
	}
	for _, name := range sortedKeys(params) {
		pp := yamltree.Key(p, name)
		if !descriptor.ValidParamName(name) {
			errs.Add(pp, "name must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter")
			continue
		}
		decl := params[name]
		re := checkPattern(errs, pp+".pattern", decl.Pattern)
		if re != nil && decl.Default != nil && !re.MatchString(*decl.Default) {
			errs.Add(pp+".default", "does not match the pattern")
		}
	}
}

// checkPattern compiles a declared pattern, anchored as every run reads it.
func checkPattern(errs *yamltree.Errors, p, pattern string) *regexp.Regexp {
	if pattern == "" {
		if !errs.Bad(p) {
			errs.Add(p, "is required: a regular expression the whole value must match")
		}
		return nil
	}
	// The pattern alone, for an error that quotes what was written.
	_, err := regexp.Compile(pattern)
	re, aerr := deploy.CompilePattern(pattern)
	if err == nil {
		err = aerr
	}
	if err != nil {
		errs.Add(p, "must be a regular expression (RE2 syntax): %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

func checkOutputDecls(errs *yamltree.Errors, p string, s StepConfig) {
	if len(s.Outputs) > maxCustomOutputs {
		errs.Add(p, "at most %d outputs are allowed, found %d", maxCustomOutputs, len(s.Outputs))
		return
	}
	for _, key := range sortedKeys(s.Outputs) {
		op := yamltree.Key(p, key)
		if !outputKeyPattern.MatchString(key) {
			errs.Add(op, "key must be 1 to 63 characters of a-z, 0-9 and _, starting with a letter")
			continue
		}
		o := s.Outputs[key]
		checkPattern(errs, op+".pattern", o.Pattern)
		switch {
		case s.Type == deploy.StepTypeCommand && o.Path != "":
			errs.Add(op+".path", "only HTTP steps read outputs from a JSON response: a command writes key=value lines to $MANENT_OUTPUT")
		case s.Type == deploy.StepTypeHTTP && o.Path == "":
			if !errs.Bad(op + ".path") {
				errs.Add(op+".path", "is required: where the JSON response holds the output ($.result.id)")
			}
		case s.Type == deploy.StepTypeHTTP:
			checkJSONPath(errs, op+".path", o.Path)
		}
	}
}

func checkJSONPath(errs *yamltree.Errors, p, text string) {
	if _, err := jsonpath.Parse(text); err != nil {
		errs.Add(p, "must be a JSON path such as $.a.b[0] or $[\"a.b\"]: %s", err.Error())
	}
}

func checkStepSSH(errs *yamltree.Errors, p string, s StepConfig) {
	l := s.SSH
	switch {
	case s.Type == deploy.StepTypeHTTP && l != nil:
		errs.Add(p, "only command steps log in to the targets: an HTTP step sends its request from the worker")
		return
	case s.Type == deploy.StepTypeHTTP:
		return
	case l == nil:
		if !errs.Bad(p) {
			errs.Add(p, "is required: a command step logs in with ssh.key_secret or ssh.password_secret")
		}
		return
	case (l.KeySecret == "") == (l.PasswordSecret == ""):
		errs.Add(p, "must give exactly one of key_secret and password_secret")
	}
	for _, f := range []struct{ key, name string }{{"key_secret", l.KeySecret}, {"password_secret", l.PasswordSecret}} {
		if f.name != "" && !secretNamePattern.MatchString(f.name) {
			errs.Add(p+"."+f.key, "must be the name of a secret of the environment configuration (1 to 63 characters of a-z, 0-9, _ and -, starting with a letter)")
		}
	}
	if l.User != "" && !descriptor.ValidUser(l.User) {
		errs.Add(p+".user", "%s", descriptor.MsgUser)
	}
}

// checkRun checks a run or a dry run (dry) of s.
func (c *Config) checkRun(errs *yamltree.Errors, p string, s StepConfig, r *RunConfig, dry bool) {
	if dry {
		checkSecretNames(errs, p+".secrets", r.Secrets)
		checkDrySecrets(errs, p+".secrets", s.Secrets, r.Secrets)
	} else if r.Secrets != nil {
		errs.Add(p+".secrets", "the run receives the step's secrets (secrets): only dry_run has secrets of its own")
	}
	if s.Type == deploy.StepTypeCommand {
		checkCommandRun(errs, p, s, r)
		return
	}
	c.checkHTTPRun(errs, p, s, r, dry)
}

// checkDrySecrets refuses a secret of the run in dry_run.secrets: a dry
// run runs on the real targets without governance, so it must never hold
// the run's (write) credentials, only read-only ones of its own.
func checkDrySecrets(errs *yamltree.Errors, p string, run, dry []string) {
	for i, n := range dry {
		if slices.Contains(run, n) {
			errs.Add(yamltree.Index(p, i), "%s is one of the run's secrets (secrets): a dry run never receives those, give it read-only ones of its own", n)
		}
	}
}

func checkCommandRun(errs *yamltree.Errors, p string, s StepConfig, r *RunConfig) {
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"method", r.Method != ""}, {"url", r.URL != ""}, {"headers", r.Headers != nil}, {"auth", r.Auth != nil},
		{"json", r.JSON != nil}, {"expect", r.Expect != nil}, {"poll", r.Poll != nil},
	} {
		if k.set {
			errs.Add(p+"."+k.name, "is for HTTP steps: a command step runs run.command on the targets")
		}
	}
	if len(r.Command) == 0 && !errs.Bad(p+".command") {
		errs.Add(p+".command", "is required: the program (an absolute path) and its arguments, as a list")
	}
	if r.SHA256 != "" && !anyCaseSHA256.MatchString(r.SHA256) {
		errs.Add(p+".sha256", "must be 64 hexadecimal digits: the SHA-256 of command[0] on the targets (sha256sum prints it)")
	}
	if len(s.Outputs) > 0 && !r.RunOnce {
		errs.Add(p+".run_once", "must be true: a step that declares outputs runs on one target only, or each target would give its own")
	}
}

func (c *Config) checkHTTPRun(errs *yamltree.Errors, p string, s StepConfig, r *RunConfig, dry bool) {
	for _, k := range []struct {
		name string
		set  bool
	}{{"run_once", r.RunOnce}, {"command", r.Command != nil}, {"sha256", r.SHA256 != ""}} {
		if k.set {
			errs.Add(p+"."+k.name, "is for command steps: an HTTP step sends run.url from the worker")
		}
	}
	method := r.Method
	if method == "" {
		method = DefaultHTTPMethod
	}
	if !slices.Contains(httpMethods, method) {
		errs.Add(p+".method", "must be GET, POST, PUT, PATCH or DELETE")
	}
	if r.URL == "" && !errs.Bad(p+".url") {
		errs.Add(p+".url", "is required: the URL of the request, scheme and host written in full")
	}
	if method == "GET" && r.JSON != nil {
		errs.Add(p+".json", "a GET request has no body: use POST, PUT, PATCH or DELETE")
	}
	checkHeaders(errs, p+".headers", r)
	secrets := s.Secrets
	if dry {
		secrets = r.Secrets
	}
	checkAuth(errs, p+".auth", r, secrets, dry)
	for i, code := range r.Expect {
		if code < 200 || code > 599 {
			errs.Add(yamltree.Index(p+".expect", i), "must be an HTTP status of a final answer, 200 to 599")
		}
	}
	checkPoll(errs, p+".poll", r.Poll, s.Timeout)
}

func checkHeaders(errs *yamltree.Errors, p string, r *RunConfig) {
	if len(r.Headers) > maxHeaders {
		errs.Add(p, "at most %d headers are allowed, found %d", maxHeaders, len(r.Headers))
		return
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(r.Headers) {
		hp := yamltree.Key(p, name)
		switch {
		case !headerNamePattern.MatchString(name):
			errs.Add(hp, "must be a header name (letters, digits and !#$%%&'*+.^_`|~-)")
		case managedHeader(name):
			errs.Add(hp, "%s is set by manent (the body, its idempotency key, the auth, the connection): it cannot be given", name)
		case seen[strings.ToLower(name)] != "":
			errs.Add(hp, "is the same header as %s (header names ignore case)", seen[strings.ToLower(name)])
		}
		seen[strings.ToLower(name)] = name
	}
}

func checkAuth(errs *yamltree.Errors, p string, r *RunConfig, secrets []string, dry bool) {
	a := r.Auth
	if a == nil {
		return
	}
	switch a.Type {
	case "bearer", "basic", "header":
	case "":
		errs.Add(p+".type", "is required: bearer, basic or header")
	default:
		errs.Add(p+".type", "must be bearer, basic or header")
	}
	where := "the step's secrets (secrets)"
	if dry {
		where = "the dry run's secrets (dry_run.secrets): a dry run never receives those of the run"
	}
	switch {
	case a.Secret == "":
		errs.Add(p+".secret", "is required: the name of one of %s", where)
	case !slices.Contains(secrets, a.Secret):
		errs.Add(p+".secret", "must be one of %s", where)
	}
	switch {
	case a.Type == "basic" && a.Username == "":
		errs.Add(p+".username", "is required with type basic")
	case a.Type == "basic" && (strings.Contains(a.Username, ":") || hasControl(a.Username)):
		errs.Add(p+".username", "must not hold a colon or a control character")
	case a.Type != "basic" && a.Username != "":
		errs.Add(p+".username", "is for type basic only")
	}
	switch {
	case a.Type == "header" && a.Header == "":
		errs.Add(p+".header", "is required with type header: the name of the header that carries the secret")
	case a.Type == "header" && !headerNamePattern.MatchString(a.Header):
		errs.Add(p+".header", "must be a header name (letters, digits and !#$%%&'*+.^_`|~-)")
	case a.Type == "header" && managedHeader(a.Header) && !strings.EqualFold(a.Header, "Authorization"):
		errs.Add(p+".header", "%s is set by manent: it cannot carry the secret", a.Header)
	case a.Type == "header" && hasHeader(r.Headers, a.Header):
		errs.Add(p+".header", "is also in headers: the header carries the secret or a value, not both")
	case a.Type != "header" && a.Header != "":
		errs.Add(p+".header", "is for type header only")
	}
}

func hasHeader(headers map[string]string, name string) bool {
	for h := range headers {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

func checkPoll(errs *yamltree.Errors, p string, poll *PollConfig, stepTimeout time.Duration) {
	if poll == nil {
		return
	}
	if poll.URL == "" && !errs.Bad(p+".url") {
		errs.Add(p+".url", "is required: the URL that tells how the operation goes")
	}
	timeout := poll.Timeout
	if timeout == 0 {
		timeout = stepTimeout
	}
	switch {
	case poll.Timeout != 0 && (poll.Timeout < minPollInterval || poll.Timeout > stepTimeout):
		errs.Add(p+".timeout", "must be between 1s and the step's timeout (%s)", stepTimeout)
	case poll.Interval != 0 && (poll.Interval < minPollInterval || poll.Interval > timeout):
		errs.Add(p+".interval", "must be between 1s and the poll's timeout (%s)", timeout)
	case poll.Interval == 0 && DefaultPollInterval > timeout:
		// The wait would poll once and time out: a default the author never
		// wrote must not make the poll meaningless.
		errs.Add(p+".interval", "is needed: the default, %s, is longer than the poll's timeout (%s); set one between 1s and %s",
			DefaultPollInterval, timeout, timeout)
	}
	if poll.Until == nil {
		if !errs.Bad(p + ".until") {
			errs.Add(p+".until", "is required: the path and values that say the operation is done")
		}
	} else {
		checkPollMatch(errs, p+".until", poll.Until)
	}
	if poll.Fail != nil {
		checkPollMatch(errs, p+".fail", poll.Fail)
	}
}

func checkPollMatch(errs *yamltree.Errors, p string, m *MatchConfig) {
	if m.Path == "" {
		if !errs.Bad(p + ".path") {
			errs.Add(p+".path", "is required: where the answer holds the operation's state ($.status)")
		}
	} else {
		checkJSONPath(errs, p+".path", m.Path)
	}
	if len(m.In) == 0 && !errs.Bad(p+".in") {
		errs.Add(p+".in", "is required: the values that match, at least one")
	}
}

// validateCustom checks pipeline.custom.
func (c *Config) validateCustom(errs *yamltree.Errors) {
	const p = "pipeline.custom"
	cu := c.Pipeline.Custom
	seen := map[string]bool{}
	for i, ref := range cu.SpecKeyRefs {
		rp := yamltree.Index(p+".spec_key_refs", i)
		if msg := c.keyRefProblem(ref); msg != "" {
			errs.Add(rp, "%s", msg)
		} else if seen[ref] {
			errs.Add(rp, "is listed twice")
		}
		seen[ref] = true
	}
	revoked := map[string]bool{}
	for i, h := range cu.RevokedSpecs {
		rp := yamltree.Index(p+".revoked_specs", i)
		switch {
		case !hexSHA256.MatchString(h):
			errs.Add(rp, "must be a spec_hash: 64 lowercase hexadecimal digits")
		case revoked[h]:
			errs.Add(rp, "is listed twice")
		}
		revoked[h] = true
	}
	if cu.KnownHosts == "" {
		errs.Add(p+".known_hosts", "must name a known_hosts file (default %s)", DefaultSSHKnownHosts)
	}
	if d := cu.SecretsDir; !secretsDirPattern.MatchString(d) || path.Clean(d) != d || d == "/" {
		errs.Add(p+".secrets_dir", "must be an absolute directory on the targets, of A-Z, a-z, 0-9, '.', '_', '/' and -, without . or .. segments (default %s)", DefaultSecretsDir)
	}
}

// outputKeys are the declared output keys of a step, as a set.
func outputKeys(outputs map[string]OutputConfig) map[string]bool {
	keys := make(map[string]bool, len(outputs))
	for k := range outputs {
		keys[k] = true
	}
	return keys
}
