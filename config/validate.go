package config

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/yamltree"
)

var (
	executorPattern  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)
	tokenNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	hexSHA256        = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// Group names end up in Casbin subjects (group:<name>): no commas or spaces.
	groupPattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$`)
	envPrefixPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,62}$`)
)

// standardSteps are the steps the engine knows, in their usual order.
var standardSteps = []string{
	deploy.StepSecrets, deploy.StepArtifacts, deploy.StepQA,
	deploy.StepDeploy, deploy.StepPostTest, deploy.StepActivation,
}

// reservedSteps are names no step of pipeline.steps may take: the bake,
// gates, approval, pause and deferral of each wave of a rollout are
// recorded among the deploy's steps under them (bake[2], pause[2/1]), and
// a step of the same name would share their records, or be taken for a
// wave's wait.
var reservedSteps = []string{deploy.StepBake, deploy.StepGates, deploy.StepApproval, deploy.StepPause, deploy.StepDefer}

// stepOrder lists pairs of steps where the first must come before the
// second: each needs what the other produced (the downloaded artifact, a
// verified artifact, a deployed release).
var stepOrder = [][2]string{
	{deploy.StepArtifacts, deploy.StepQA},
	{deploy.StepArtifacts, deploy.StepDeploy},
	{deploy.StepQA, deploy.StepDeploy},
	{deploy.StepDeploy, deploy.StepPostTest},
	{deploy.StepDeploy, deploy.StepActivation},
}

const (
	minStepTimeout = time.Second
	maxRetries     = 100
)

// MaxStepTimeout is the longest timeout of a step: what bounds a request
// of an HTTP step, whose client has no deadline of its own.
const MaxStepTimeout = 6 * time.Hour

func (c *Config) validate(errs *yamltree.Errors) {
	c.validateServer(errs)
	c.validateAuth(errs)
	c.validateArtifacts(errs)
	c.validatePipeline(errs)
	c.validateQueues(errs)
	c.validateGovernance(errs)
	c.validatePlugins(errs)
	c.validateRetention(errs)
	c.validateNotifications(errs)
	c.validateCallbacks(errs)
	if c.Database.MaxConnections < MinMaxConnections {
		errs.Add("database.max_connections", "must be at least %d", MinMaxConnections)
	}
	if c.Engine.ApplicationVersion == "" {
		errs.Add("engine.application_version", "must not be empty: DBOS recovers only the workflows of its own application version")
	}
	if c.Engine.MaxRecoveryAttempts < 1 {
		errs.Add("engine.max_recovery_attempts", "must be at least 1")
	}
	if c.Chains.PollInterval < 10*time.Millisecond || c.Chains.PollInterval > 5*time.Minute {
		errs.Add("chains.poll_interval", "must be between 10ms and 5m")
	}
	if c.Engine.HeartbeatInterval < 100*time.Millisecond {
		errs.Add("engine.heartbeat_interval", "must be at least 100ms")
	}
	if c.Engine.ExecutorTimeout < 3*c.Engine.HeartbeatInterval {
		errs.Add("engine.executor_timeout", "must be at least three heartbeat intervals, or a slow worker is taken for dead")
	}
	if l := c.Engine.GatesTimeLimit; l < time.Second || l > 6*time.Hour {
		errs.Add("engine.gates_time_limit", "must be between 1s and 6h")
	}
	if l := c.Engine.RolloutLookInterval; l < time.Second || l > 24*time.Hour {
		errs.Add("engine.rollout_look_interval", "must be between 1s and 24h")
	}
	if !envPrefixPattern.MatchString(c.Secrets.EnvPrefix) {
		errs.Add("secrets.env_prefix", "must be upper-case letters, digits and _, starting with a letter (an empty prefix would expose every variable)")
	}
	if c.Secrets.FileRoot == "" {
		errs.Add("secrets.file_root", "must not be empty")
	}
}

func (c *Config) validateServer(errs *yamltree.Errors) {
	s := c.Server
	if _, port, err := net.SplitHostPort(s.Listen); err != nil {
		errs.Add("server.listen", "must be host:port, such as 127.0.0.1:8080")
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		errs.Add("server.listen", "must have a port between 0 and 65535")
	}
	if s.PublicURL != "" {
		u, err := url.Parse(s.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs.Add("server.public_url", "must be an absolute http:// or https:// URL")
		}
	}
	if !executorPattern.MatchString(s.ExecutorID) {
		errs.Add("server.executor_id", "must be 1 to 63 characters of A-Z, a-z, 0-9, '.', '_' and -")
	}
	if s.Role != RoleAll && s.Role != RoleAPI && s.Role != RoleWorker {
		errs.Add("server.role", "must be all, api or worker")
	}
	if !descriptor.ValidName(s.DefaultTenant) {
		errs.Add("server.default_tenant", "must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit")
	}
	switch {
	case s.Introspection != "" && s.AllowIntrospection != nil:
		errs.Add("server.allow_introspection", "is the former form of server.introspection: set only introspection")
	case s.Introspection != "" && !slices.Contains([]string{IntrospectionAdmins, IntrospectionAll, IntrospectionNone}, s.Introspection):
		errs.Add("server.introspection", "must be admins, all or none")
	}
}

func (c *Config) validateAuth(errs *yamltree.Errors) {
	names := map[string]bool{}
	hashes := map[string]bool{}
	for i, t := range c.Auth.Tokens {
		p := yamltree.Index("auth.tokens", i)
		switch {
		case t.Name == "":
			errs.Add(p+".name", "is required")
		case !tokenNamePattern.MatchString(t.Name):
			errs.Add(p+".name", "must be 1 to 63 characters of a-z, 0-9, '.', '_' and -, starting with a letter or digit")
		case names[t.Name]:
			errs.Add(p+".name", "is used by another token")
		}
		names[t.Name] = true
		h := t.SHA256
		switch {
		case h == "":
			errs.Add(p+".sha256", "is required: the hex SHA-256 of the token (printf %%s TOKEN | sha256sum)")
		case !hexSHA256.MatchString(h):
			errs.Add(p+".sha256", "must be 64 lowercase hexadecimal digits: the SHA-256 of the token, not the token")
		case hashes[h]:
			errs.Add(p+".sha256", "is the hash of another token")
		}
		hashes[h] = true
		for j, g := range t.Groups {
			if !groupPattern.MatchString(g) {
				errs.Add(yamltree.Index(p+".groups", j), "must be 1 to 128 characters of A-Z, a-z, 0-9, '.', '_', '@' and -")
			}
		}
	}
	if h := c.Server.Metrics.TokenSHA256; h != "" {
		switch {
		case !hexSHA256.MatchString(h):
			errs.Add("server.metrics.token_sha256", "must be 64 lowercase hexadecimal digits: the SHA-256 of the token, not the token")
		case hashes[h]:
			errs.Add("server.metrics.token_sha256", "is the hash of a token of auth.tokens: give the scraper a token of its own, which reads the metrics and nothing else")
		}
	}
	c.validateOIDC(errs)
	if s := c.Auth.Session; s.TTL < time.Minute || s.TTL > 30*24*time.Hour {
		errs.Add("auth.session.ttl", "must be between 1m and 720h")
	} else if s.IdleTimeout < time.Minute || s.IdleTimeout > s.TTL {
		errs.Add("auth.session.idle_timeout", "must be at least 1m and at most auth.session.ttl")
	}
}

func (c *Config) validateArtifacts(errs *yamltree.Errors) {
	for i, src := range c.Artifacts.Sources {
		if msg := prefixProblem(src); msg != "" {
			errs.Add(yamltree.Index("artifacts.sources", i), "%s", msg)
		}
	}
	if c.Artifacts.MaxSize <= 0 {
		errs.Add("artifacts.max_size", "must be more than 0")
	}
	if c.Artifacts.MaxEntries <= 0 {
		errs.Add("artifacts.max_entries", "must be more than 0")
	}
	if c.Artifacts.MaxUnpackedSize <= 0 {
		errs.Add("artifacts.max_unpacked_size", "must be more than 0")
	}
}

// prefixProblem says why an allow-list prefix is unsafe or useless. An
// http(s) prefix must end its host, or https://repo.example.com would also
// allow https://repo.example.com.attacker.net/.
func prefixProblem(prefix string) string {
	switch {
	case prefix == "":
		return "must not be empty"
	case strings.HasPrefix(prefix, "file:"):
		return ""
	case strings.HasPrefix(prefix, "http://"), strings.HasPrefix(prefix, "https://"):
		_, rest, _ := strings.Cut(prefix, "://")
		if rest == "" || (!strings.Contains(rest, "/") && !strings.HasSuffix(rest, ":")) {
			return "must end the host with / or : (https://repo.example.com/ or http://127.0.0.1:), or it would match other hosts"
		}
		return ""
	default:
		return "must start with file:, http:// or https://"
	}
}

func (c *Config) validatePipeline(errs *yamltree.Errors) {
	p := &c.Pipeline
	position := map[string]int{}
	// above is what the placeholders of the next custom steps may name:
	// the declared outputs of the custom steps seen so far, and any output
	// of the standard ones (MANENT_OUTPUT_POST_TEST_* reaches a command too).
	above := placeholder.Scope{Outputs: map[string]map[string]bool{}, AnyOutputs: map[string]bool{}}
	for i, s := range p.Steps {
		path := yamltree.Index("pipeline.steps", i)
		switch {
		case s.Name == "":
			errs.Add(path+".name", "is required")
		case s.Name == deploy.StepConfig || s.Name == deploy.StepCleanup:
			errs.Add(path+".name", "%s always runs (config first, cleanup last) and cannot be listed", s.Name)
		case slices.Contains(reservedSteps, s.Name):
			errs.Add(path+".name", "%s is reserved: it names the records of a rollout's waves (%s[2] is wave 2's); give the step another name", s.Name, s.Name)
		case s.Custom() && slices.Contains(standardSteps, s.Name):
			errs.Add(path+".name", "%s is a standard step: a custom step needs a name of its own", s.Name)
		case s.Custom() && !descriptor.ValidStepName(s.Name):
			errs.Add(path+".name", "must be 1 to 63 characters of a-z, 0-9 and -, starting with a letter")
		case !s.Custom() && !slices.Contains(standardSteps, s.Name):
			errs.Add(path+".name", "unknown step: must be one of %s, or a custom step with a type (http or command)", strings.Join(standardSteps, ", "))
		case position[s.Name] > 0:
			errs.Add(path+".name", "%s is listed twice", s.Name)
		default:
			position[s.Name] = i + 1
		}
		switch {
		case s.Mode == "":
			errs.Add(path+".mode", "is required: mandatory or optional")
		case s.Mode != ModeMandatory && s.Mode != ModeOptional:
			errs.Add(path+".mode", "must be mandatory or optional")
		case s.Mode == ModeMandatory && !s.Enabled:
			errs.Add(path+".enabled", "a mandatory step always runs: make it optional, or remove it")
		}
		if s.MaxRetries < 0 || s.MaxRetries > maxRetries {
			errs.Add(path+".max_retries", "must be between 0 and %d", maxRetries)
		}
		if s.Timeout < minStepTimeout || s.Timeout > MaxStepTimeout {
			errs.Add(path+".timeout", "must be between 1s and 6h")
		}
		c.validateCustomStep(errs, path, s, above)
		switch {
		case s.Custom() && len(s.Outputs) > 0:
			above.Outputs[s.Name] = outputKeys(s.Outputs)
		case !s.Custom() && slices.Contains(standardSteps, s.Name):
			above.AnyOutputs[s.Name] = true
		}
	}
	listBad := errs.Bad("pipeline.steps")
	for _, name := range []string{deploy.StepArtifacts, deploy.StepDeploy} {
		if position[name] == 0 && !listBad {
			errs.Add("pipeline.steps", "must include %s", name)
		}
	}
	for _, o := range stepOrder {
		if a, b := position[o[0]], position[o[1]]; a > 0 && b > 0 && a > b {
			errs.Add("pipeline.steps", "%s must come before %s", o[0], o[1])
		}
	}
	if p.RetryInterval <= 0 {
		errs.Add("pipeline.retry_interval", "must be more than 0")
	}
	if p.RetryMaxInterval < p.RetryInterval {
		errs.Add("pipeline.retry_max_interval", "must be at least retry_interval")
	}
	c.validateCustom(errs)
	c.validatePolicy(errs, position)
}

func (c *Config) validatePolicy(errs *yamltree.Errors, position map[string]int) {
	pol := c.Pipeline.DescriptorPolicy
	checkNames := func(path string, names []string) {
		for i, n := range names {
			if n != "*" && !descriptor.ValidParamName(n) {
				errs.Add(yamltree.Index(path, i), "must be * or a parameter name (a-z, 0-9 and _, starting with a letter)")
			}
		}
	}
	checkNames("pipeline.descriptor_policy.params", pol.Params)
	if pol.Rollout != "" && !slices.Contains([]string{RolloutPolicyNone, RolloutPolicyPacing, RolloutPolicyAll}, pol.Rollout) {
		errs.Add("pipeline.descriptor_policy.rollout", "must be none, pacing or all")
	}
	for i, u := range pol.GateURLs {
		path := yamltree.Index("pipeline.descriptor_policy.gate_urls", i)
		switch {
		case errs.Bad(path):
		case !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://"):
			errs.Add(path, "must start with http:// or https://: a gate calls an HTTP server")
		case prefixProblem(u) != "":
			errs.Add(path, "%s", prefixProblem(u))
		case strings.Contains(u, "{{"):
			errs.Add(path, "must be a URL prefix without placeholders")
		default:
			if parsed, err := url.Parse(u); err != nil || parsed.User != nil {
				errs.Add(path, "must be a URL prefix without credentials")
			}
		}
	}
	for _, step := range sortedKeys(pol.StepParams) {
		path := yamltree.Key("pipeline.descriptor_policy.step_params", step)
		cs, custom := c.customStep(step)
		switch {
		case position[step] == 0:
			errs.Add(path, "no such step in pipeline.steps")
		case !custom:
			errs.Add(path, "%s is a standard step: only custom steps declare parameters", step)
		}
		checkNames(path, pol.StepParams[step])
		if !custom {
			continue
		}
		for i, n := range pol.StepParams[step] {
			if _, ok := cs.Params[n]; !ok && n != "*" && descriptor.ValidParamName(n) {
				errs.Add(yamltree.Index(path, i), "%s", cs.Spec().Undeclared())
			}
		}
	}
}

func (c *Config) validateQueues(errs *yamltree.Errors) {
	q := c.Queues
	if q.PollInterval < time.Millisecond || q.PollInterval > time.Minute {
		errs.Add("queues.poll_interval", "must be between 1ms and 1m")
	}
	if q.EventPollInterval < time.Millisecond || q.EventPollInterval > time.Minute {
		errs.Add("queues.event_poll_interval", "must be between 1ms and 1m")
	}
	if q.WorkerConcurrency < 1 {
		errs.Add("queues.worker_concurrency", "must be at least 1")
	}
	for _, k := range sortedKeys(q.Environments) {
		path := yamltree.Key("queues.environments", k)
		if parts := strings.Split(k, "/"); len(parts) != 3 || !allNames(parts) {
			errs.Add(path, "must be tenant/application/environment")
		}
		if q.Environments[k] < 1 {
			errs.Add(path, "must be at least 1")
		}
	}
}

func allNames(parts []string) bool {
	for _, p := range parts {
		if !descriptor.ValidName(p) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (c *Config) validateRetention(errs *yamltree.Errors) {
	r := c.Retention
	if r.Deployments < MinRetentionDeployments {
		errs.Add("retention.deployments", "must be at least 1d")
	}
	if r.Logs < MinRetentionLogs {
		errs.Add("retention.logs", "must be at least 1d")
	} else if r.Logs > r.Deployments && r.Deployments >= MinRetentionDeployments {
		errs.Add("retention.logs", "must not be longer than retention.deployments: a deploy's log lines go with it")
	}
	if r.Audit < MinRetentionAudit {
		errs.Add("retention.audit", "must be at least 30d")
	}
	if r.Dora < MinRetentionDora {
		errs.Add("retention.dora", "must be at least 400d: the DORA metrics show up to 53 weeks")
	} else if r.Dora < r.Deployments {
		errs.Add("retention.dora", "must not be shorter than retention.deployments: the metrics would forget deploys still listed")
	}
}
