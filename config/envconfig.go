package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/urltemplate"
	"manent.dev/manent/internal/yamltree"
)

// EnvConfig is the configuration of one application in one environment:
// <envconfig.dir>/<tenant>/<application>/<environment>.yml.
type EnvConfig struct {
	Plugin     string
	Targets    []deploy.Target
	Params     map[string]string
	StepParams map[string]map[string]string
	Secrets    []deploy.SecretRef
	// SSH is the ssh section: the secret the ssh plugin logs in with.
	SSH    *deploy.SSHLogin
	Health []deploy.HealthCheck
	// Imports (current only), TargetsFrom and ParamsFrom take targets and
	// parameters from releases in service; the engine resolves them before
	// the merge and puts the result in Targets and Params.
	Imports     map[string]deploy.Import
	TargetsFrom []deploy.ImportRef
	ParamsFrom  map[string]deploy.ImportRef
	// Rollback is the environment's automatic rollback policy, defaults
	// applied: off without the key, deploy.DefaultRollbackOn (the steps of
	// it the pipeline has) when enabled without on.
	Rollback deploy.RollbackPolicy
	// Rollout is the rollout section as written, without defaults (the
	// merge applies them to the effective deploy); nil without the key.
	Rollout *deploy.RolloutSpec
	// PipelineSteps are the names of pipeline.steps, in order, that the
	// file was read against: what a descriptor's rollback.on may name in
	// Merge, as the file's own was checked against them.
	PipelineSteps []string
	// Source is the file read, relative to envconfig.dir
	// (demo/hello/staging.yml), and Revision the hex SHA-256 of its bytes:
	// the config step records both so a deploy says what it ran with,
	// without showing where the server keeps its configuration.
	Source   string
	Revision string
}

type rawEnvConfig struct {
	Plugin     string                       `yaml:"plugin"`
	Targets    []descriptor.TargetSpec      `yaml:"targets"`
	Params     map[string]string            `yaml:"params"`
	StepParams map[string]map[string]string `yaml:"step_params"`
	Secrets    []rawSecret                  `yaml:"secrets"`
	SSH        *rawSSHLogin                 `yaml:"ssh"`
	Health     []rawHealth                  `yaml:"health"`

	Imports     map[string]rawEnvImport    `yaml:"imports"`
	TargetsFrom []rawEnvImportRef          `yaml:"targets_from"`
	ParamsFrom  map[string]rawEnvImportRef `yaml:"params_from"`

	Rollback *rawEnvRollback `yaml:"rollback"`
	// Rollout is read as a descriptor's is: one checker for both.
	Rollout *descriptor.RolloutDoc `yaml:"rollout"`
}

type rawSecret struct {
	Name string `yaml:"name"`
	Ref  string `yaml:"ref"`
}

type rawHealth struct {
	URL          string        `yaml:"url"`
	ExpectStatus *int          `yaml:"expect_status"`
	Timeout      time.Duration `yaml:"timeout"`
}

const maxHealthTimeout = 5 * time.Minute

var (
	secretNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)
	envVarPattern     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)
)

// EnvConfigPath returns the file of an environment configuration. The names
// are checked so that none can lead out of envconfig.dir.
func (c *Config) EnvConfigPath(tenant, app, env string) (string, error) {
	for _, n := range []string{tenant, app, env} {
		if !descriptor.ValidName(n) {
			return "", deploy.Errorf(deploy.EUNPROCESSABLE, "invalid tenant, application or environment name")
		}
	}
	return filepath.Join(c.EnvConfig.Dir, tenant, app, env+".yml"), nil
}

// LoadEnvConfig reads and validates the environment configuration of an
// application in an environment. A missing file is EUNPROCESSABLE ("no
// environment configuration for tenant/app/env"), an invalid one
// EUNPROCESSABLE with every problem in Fields; a file that cannot be read
// is a plain (retryable) error.
func (c *Config) LoadEnvConfig(tenant, app, env string) (*EnvConfig, error) {
	path, err := c.EnvConfigPath(tenant, app, env)
	if err != nil {
		return nil, err
	}
	data, err := readFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "no environment configuration for %s/%s/%s", tenant, app, env)
	}
	if err != nil {
		return nil, fmt.Errorf("load envconfig %s/%s/%s: %w", tenant, app, env, err)
	}
	ec, err := c.ParseEnvConfig(data)
	if err != nil {
		var de *deploy.Error
		if errors.As(err, &de) {
			de.Message = fmt.Sprintf("invalid environment configuration for %s/%s/%s", tenant, app, env)
		}
		return nil, err
	}
	ec.Source = tenant + "/" + app + "/" + env + ".yml"
	return ec, nil
}

// ParseEnvConfig validates an environment configuration; Revision is set,
// Source is left to the caller. Secret references are checked against the
// secrets section (env: prefix, file: inside secrets.file_root), and
// rollback.on against pipeline.steps.
func (c *Config) ParseEnvConfig(data []byte) (*EnvConfig, error) {
	sum := sha256.Sum256(data)
	invalid := func(fields []deploy.FieldError) error {
		return &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "invalid environment configuration", Fields: fields}
	}
	root, fields := yamltree.Parse(data, MaxFileBytes)
	if fields != nil {
		return nil, invalid(fields)
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, invalid([]deploy.FieldError{{Message: "must be a mapping with at least plugin"}})
	}
	var raw rawEnvConfig
	var errs yamltree.Errors
	yamltree.Decode(root, "", &raw, &errs)
	switch {
	case raw.Plugin == "":
		if !errs.Bad("plugin") {
			errs.Add("plugin", "is required")
		}
	case !descriptor.ValidPluginName(raw.Plugin):
		errs.Add("plugin", "must be 1 to 32 characters of a-z, 0-9 and -, starting with a letter")
	}
	descriptor.CheckTargets(&errs, "targets", raw.Targets)
	descriptor.CheckParams(&errs, "params", raw.Params)
	before := errs.Len()
	descriptor.CheckStepParams(&errs, "step_params", raw.StepParams)
	if errs.Len() == before {
		c.checkEnvStepParams(&errs, raw.StepParams)
	}
	c.checkSecrets(&errs, raw.Secrets)
	checkSSHLogin(&errs, raw.Plugin, raw.SSH, raw.Secrets)
	checkHealth(&errs, raw.Health)
	checkEnvImports(&errs, &raw)
	steps := c.pipelineSteps()
	if raw.Rollback != nil {
		checkRollbackOn(&errs, "rollback.on", raw.Rollback.On, steps)
	}
	if raw.Rollout != nil {
		raw.Rollout.CheckEnvironment(&errs, "rollout")
		checkGateSecrets(&errs, raw.Rollout, raw.Secrets)
		if errs.Len() == 0 {
			descriptor.CheckWaveOrder(&errs, "rollout.waves", raw.Rollout.Spec().Waves)
		}
	}
	if errs.Len() > 0 {
		return nil, invalid(errs.List())
	}
	ec := &EnvConfig{
		Plugin:        raw.Plugin,
		Targets:       descriptor.Targets(raw.Targets),
		Params:        raw.Params,
		StepParams:    raw.StepParams,
		SSH:           raw.SSH.login(),
		Imports:       envImports(raw.Imports),
		TargetsFrom:   envTargetsFrom(raw.TargetsFrom),
		ParamsFrom:    envParamsFrom(raw.ParamsFrom),
		Rollback:      raw.Rollback.policy(steps),
		Rollout:       raw.Rollout.Spec(),
		PipelineSteps: steps,
		Revision:      hex.EncodeToString(sum[:]),
	}
	for _, s := range raw.Secrets {
		ec.Secrets = append(ec.Secrets, deploy.SecretRef{Name: s.Name, Ref: s.Ref})
	}
	for _, h := range raw.Health {
		hc := deploy.HealthCheck{URL: h.URL, Timeout: h.Timeout}
		if h.ExpectStatus != nil {
			hc.ExpectStatus = *h.ExpectStatus
		}
		ec.Health = append(ec.Health, hc)
	}
	return ec, nil
}

func (c *Config) checkSecrets(errs *yamltree.Errors, secrets []rawSecret) {
	seen := map[string]bool{}
	for i, s := range secrets {
		p := yamltree.Index("secrets", i)
		switch {
		case s.Name == "":
			errs.Add(p+".name", "is required")
		case !secretNamePattern.MatchString(s.Name):
			errs.Add(p+".name", "must be 1 to 63 characters of a-z, 0-9, _ and -, starting with a letter")
		case seen[s.Name]:
			errs.Add(p+".name", "is listed twice")
		}
		seen[s.Name] = true
		if msg := c.refProblem(s.Ref); msg != "" {
			errs.Add(p+".ref", "%s", msg)
		}
	}
}

// refProblem says what is wrong with a secret reference, "" if nothing. The
// provider checks again when it resolves; checking here reports a bad
// reference at submission rather than halfway through a deploy.
func (c *Config) refProblem(ref string) string {
	scheme, rest, _ := strings.Cut(ref, ":")
	switch scheme {
	case "":
		return "is required: env:NAME or file:path"
	case "env":
		if !envVarPattern.MatchString(rest) {
			return "env: must name an environment variable"
		}
		if !strings.HasPrefix(rest, c.Secrets.EnvPrefix) {
			return "env: variables must start with " + c.Secrets.EnvPrefix + " (secrets.env_prefix)"
		}
	case "file":
		p := rest
		if p == "" || strings.ContainsRune(p, 0) {
			return "file: must name a file"
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Secrets.FileRoot, p)
		}
		if !inside(filepath.Clean(c.Secrets.FileRoot), filepath.Clean(p)) {
			return "file: must stay inside secrets.file_root"
		}
	default:
		return "must be env:NAME or file:path"
	}
	return ""
}

func checkHealth(errs *yamltree.Errors, checks []rawHealth) {
	for i, h := range checks {
		p := yamltree.Index("health", i)
		if h.URL == "" {
			if !errs.Bad(p + ".url") {
				errs.Add(p+".url", "is required")
			}
		} else if _, err := urltemplate.Parse(h.URL, deploy.HealthPlaceholders); err != nil {
			errs.Add(p+".url", "%s", err.Error())
		}
		if h.ExpectStatus != nil && (*h.ExpectStatus < 100 || *h.ExpectStatus > 599) {
			errs.Add(p+".expect_status", "must be an HTTP status between 100 and 599")
		}
		if h.Timeout < 0 || h.Timeout > maxHealthTimeout {
			errs.Add(p+".timeout", "must be between 0s and 5m")
		}
	}
}
