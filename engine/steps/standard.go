package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/internal/mask"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/urltemplate"
)

// configStep reads the environment configuration valid now and merges it
// with the descriptor again, so a deploy that waited runs with today's
// configuration, and runs governance again; its output records which file
// and revision were used. The parameters of the custom steps are resolved
// there (Effective.StepParams), against the plan's specifications.
type configStep struct{}

func (configStep) Run(ctx context.Context, c *Context) (Result, error) {
	who := c.Job.Identity()
	eff, out, err := c.Env.Checks.Configure(ctx, who, c.Job.Descriptor)
	if err != nil {
		return Result{Output: plannedOutput(eff.RolloutPlan)}, err
	}
	// The custom steps run the specifications the plan captured: their
	// parameters are held to those, not to today's manent.yml.
	if err := config.ResolveCustomSteps(c.Job.Plan, &c.Job.Descriptor, &eff); err != nil {
		return Result{}, deploy.Permanent(err)
	}
	note, err := c.Env.Checks.Recheck(ctx, who, c.Job.Descriptor)
	if err != nil {
		return Result{Output: plannedOutput(eff.RolloutPlan)}, err
	}
	if eff.RolloutPlan != nil {
		// What a batch rolled back before its activation is back on: the
		// status shows it as its targets' release.
		if err := recordVersionBefore(ctx, c, eff, out); err != nil {
			return Result{Output: plannedOutput(eff.RolloutPlan)}, err
		}
	}
	c.logf("info", "configuration %s (revision %s), plugin %s, %d target(s), rollback %s",
		eff.ConfigSource, short(eff.ConfigRevision), eff.Plugin, len(eff.Targets), out["rollback"])
	return Result{Effective: &eff, Output: out, Note: note}, nil
}

func (s configStep) DryRun(ctx context.Context, c *Context) (Result, error) { return s.Run(ctx, c) }

// plannedOutput is what a failed config step keeps of the rollout plan it
// made (deploy.OutputRolloutPlan): the deploy shows it, its rejected
// targets with their reasons, rather than the submission's plan of
// targets that may have changed since. nil without a plan.
func plannedOutput(p *deploy.RolloutPlan) map[string]string {
	if p == nil {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return map[string]string{deploy.OutputRolloutPlan: string(b)}
}

// secretsStep checks that every secret of the environment can be resolved,
// and that those the plan's custom steps receive can be masked in their
// logs. The values are not kept: steps that need them resolve them again.
type secretsStep struct{}

func (secretsStep) Run(ctx context.Context, c *Context) (Result, error) {
	short := map[string]bool{}
	for _, s := range c.Effective.Secrets {
		v, err := c.resolve(ctx, s)
		if err != nil {
			return Result{}, err
		}
		if v == "" {
			return Result{}, deploy.Permanentf("a secret of the environment configuration is empty: %s, for step %s", s.Name, c.Key.Step)
		}
		short[s.Name] = mask.TooShort(v)
	}
	if err := maskable(c, short); err != nil {
		return Result{}, err
	}
	c.logf("info", "%d secret(s) resolved", len(c.Effective.Secrets))
	return Result{Output: map[string]string{"resolved": strconv.Itoa(len(c.Effective.Secrets))}}, nil
}

// maskable refuses, here rather than when the custom step runs (perhaps
// after deploy, with a rollback to follow), a secret that a custom step of
// the plan receives and that is too short to be masked in its log: the
// operation would refuse it anyway. short says, by name, which secrets of
// the environment are. The error names the secrets and the steps, never
// a value nor its length.
func maskable(c *Context, short map[string]bool) error {
	dryRun := c.Key.Kind == deploy.KindDryRun
	var errs []error
	for _, st := range c.Job.Plan.Steps {
		if st.Spec == nil {
			continue
		}
		for _, name := range st.Spec.OperationSecrets(dryRun) {
			if short[name] {
				errs = append(errs, fmt.Errorf("secret %s, which step %s receives, is shorter than %d bytes: its log could not mask it without masking ordinary words",
					name, st.Name, mask.MinLen))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return deploy.Permanent(errors.Join(errs...))
}

// artifactsStep downloads the artifact into the working directory and
// computes its SHA-256.
type artifactsStep struct{}

func (artifactsStep) Run(ctx context.Context, c *Context) (Result, error) {
	size, sum, err := download(ctx, c)
	if err != nil {
		return Result{}, err
	}
	a := c.Job.Descriptor.Artifact
	c.logf("info", "downloaded %s %s (%d bytes, sha256 %s)", a.Name, a.Version, size, sum)
	// Other bytes than the pinned ones are refused as they arrive, qa or
	// not: a promotion, a redeploy or a rollback pins the digest its source
	// downloaded, and no later step may hand other bytes to a plugin.
	if err := matchesPin(a.SHA256, sum); err != nil {
		return Result{}, err
	}
	return Result{SHA256: sum, Output: map[string]string{"sha256": sum, "size": strconv.FormatInt(size, 10)}}, nil
}

// matchesPin refuses for good a digest other than the descriptor's pin.
func matchesPin(pin, sum string) error {
	if pin != "" && !strings.EqualFold(pin, sum) {
		return deploy.Permanentf("artifact sha256 %s does not match the pinned %s", sum, pin)
	}
	return nil
}

// qaStep verifies the artifact: its digest against the descriptor's pin,
// and that the archive is readable and unpacks within the artifacts.*
// limits, before any plugin writes to a target.
type qaStep struct{}

func (qaStep) Run(ctx context.Context, c *Context) (Result, error) {
	if err := ensureArtifact(ctx, c); err != nil {
		return Result{}, err
	}
	out := map[string]string{"sha256": c.SHA256}
	if pin := c.Job.Descriptor.Artifact.SHA256; pin != "" {
		if err := matchesPin(pin, c.SHA256); err != nil {
			return Result{}, err
		}
		out["pinned"] = "match"
		c.logf("info", "sha256 matches the descriptor's pin")
	} else {
		out["pinned"] = "none"
	}
	if err := local.CheckArchive(c.artifactPath(), c.Env.Config.Artifacts.ArchiveLimits()); err != nil {
		return Result{}, err
	}
	out["archive"] = "valid"
	c.logf("info", "archive verified")
	return Result{Output: out}, nil
}

// pluginStep is a step the plugin of the environment performs on the
// targets: deploy or activation.
type pluginStep struct {
	needsArtifact bool
	// prunes: the plugin may remove old releases after the step, and
	// needs manent's record of those that succeeded.
	prunes bool
	do     func(p deploy.Plugin, ctx context.Context, req deploy.PluginRequest) (deploy.Result, error)
}

func (s pluginStep) operate(ctx context.Context, c *Context, dryRun bool) (Result, error) {
	if s.needsArtifact {
		if err := ensureArtifact(ctx, c); err != nil {
			return Result{}, err
		}
	}
	p, req, err := pluginRequest(c)
	if err != nil {
		return Result{}, err
	}
	req.DryRun = dryRun
	if s.prunes && !dryRun {
		if req.Succeeded, err = succeeded(ctx, c); err != nil {
			return Result{}, err
		}
	}
	res, err := s.do(p, ctx, req)
	if len(res.Outputs) > deploy.MaxPluginOutputKeys {
		return Result{}, errors.Join(err, deploy.Permanentf("step %s: the plugin returned %d outputs, more than %d",
			c.Key.Step, len(res.Outputs), deploy.MaxPluginOutputKeys))
	}
	// A failed step keeps what the plugin says of each target.
	return Result{Output: res.Outputs}, err
}

// succeeded reads the versions that succeeded in the deploy's environment,
// for a plugin that prunes old releases: one read, at the activation. An
// unavailable database is the engine's to wait for (deploy.Unavailable).
func succeeded(ctx context.Context, c *Context) ([]string, error) {
	if c.Env.History == nil {
		return nil, nil
	}
	e := c.Effective
	res := deploy.Resource{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment}
	versions, err := c.Env.History.SucceededVersions(ctx, res, deploy.SucceededVersions)
	if err != nil {
		return nil, fmt.Errorf("read the releases that succeeded: %w", err)
	}
	return versions, nil
}

func (s pluginStep) Run(ctx context.Context, c *Context) (Result, error) {
	return s.operate(ctx, c, false)
}

func (s pluginStep) DryRun(ctx context.Context, c *Context) (Result, error) {
	return s.operate(ctx, c, true)
}

// Checkpoint implements Undoable: what the plugin says the targets hold
// before the step.
func (s pluginStep) Checkpoint(ctx context.Context, c *Context) (deploy.Checkpoint, error) {
	p, req, err := pluginRequest(c)
	if err != nil {
		return deploy.Checkpoint{}, err
	}
	cp, err := p.Checkpoint(ctx, req)
	if err != nil {
		return deploy.Checkpoint{}, err
	}
	if cp.Data == nil {
		cp.Data = map[string]string{}
	}
	if len(cp.Data) > deploy.MaxPluginOutputKeys {
		return deploy.Checkpoint{}, deploy.Permanentf("checkpoint of %s: the plugin returned %d entries, more than %d",
			c.Key.Step, len(cp.Data), deploy.MaxPluginOutputKeys)
	}
	// Entries under manent's prefix are the engine's: a plugin's would
	// pass for them, and are dropped (as the undo of a deploy drops them).
	maps.DeleteFunc(cp.Data, isEngineKey)
	if c.Key.Step == deploy.StepActivation {
		if err := recordVersionBefore(ctx, c, c.Effective, cp.Data); err != nil {
			return deploy.Checkpoint{}, err
		}
	}
	return cp, nil
}

// engineKeys prefixes the entries of a checkpoint that are manent's, not
// the plugin's: they are never handed back to the plugin.
const engineKeys = "manent:"

func isEngineKey(k, _ string) bool { return strings.HasPrefix(k, engineKeys) }

// recordVersionBefore keeps in data the version in service before the
// deploy of e, which the status shows as the release of a rolled-back
// target (deploy.OutputInServiceVersion): "" when none was; nothing when
// the deploy is in service already (a later batch of a rollout, whose
// first checkpoint recorded it). The queue runs one deploy of an
// environment at a time, so the inventory does not change under the
// config step or the checkpoint.
func recordVersionBefore(ctx context.Context, c *Context, e deploy.Effective, data map[string]string) error {
	if c.Env.Inventory == nil {
		return nil
	}
	in, err := c.Env.Inventory.InventoryOf(ctx, deploy.Resource{Tenant: e.Tenant, Application: e.Application, Environment: e.Environment})
	if err != nil {
		return fmt.Errorf("read the release in service: %w", err)
	}
	if in.DeploymentID != "" && in.DeploymentID == c.Job.ID {
		return nil
	}
	version := ""
	if in.DeploymentID != "" {
		version = in.Artifact.Version
	}
	data[deploy.OutputInServiceVersion] = version
	return nil
}

// Compensate implements Undoable: the plugin takes the step back to the
// checkpoint on every target of the step.
func (s pluginStep) Compensate(ctx context.Context, c *Context, cp deploy.Checkpoint) (Result, error) {
	p, req, err := pluginRequest(c)
	if err != nil {
		return Result{}, err
	}
	data := maps.Clone(cp.Data)
	maps.DeleteFunc(data, isEngineKey)
	cp.Data = data
	res, err := p.Rollback(ctx, req, cp)
	if err != nil {
		return Result{}, err
	}
	return Result{Output: res.Outputs}, nil
}

var (
	deployStep = pluginStep{needsArtifact: true, do: func(p deploy.Plugin, ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
		return p.Deploy(ctx, req)
	}}
	activationStep = pluginStep{prunes: true, do: func(p deploy.Plugin, ctx context.Context, req deploy.PluginRequest) (deploy.Result, error) {
		return p.Activate(ctx, req)
	}}
)

func pluginRequest(c *Context) (deploy.Plugin, deploy.PluginRequest, error) {
	p, ok := c.Env.Plugins[c.Effective.Plugin]
	if !ok {
		return nil, deploy.PluginRequest{}, deploy.Permanentf("unknown plugin %q", c.Effective.Plugin)
	}
	d := c.Job.Descriptor
	req := deploy.PluginRequest{
		DeploymentID:   c.Job.ID,
		Step:           c.Key.Step,
		IdempotencyKey: c.Key.IdempotencyKey(c.Job.ID),
		Tenant:         c.Effective.Tenant, Application: d.Application, Environment: d.Environment, Artifact: d.Artifact,
		ArtifactPath: c.artifactPath(), SHA256: c.SHA256, Limits: c.Env.Config.Artifacts.ArchiveLimits(),
		Targets: c.Effective.Targets, Params: c.Effective.Params, SSH: c.Effective.SSH,
		DryRun: d.DryRun,
		Secret: c.Secret,
		Log: func(format string, args ...any) {
			c.logf("info", format, args...)
		},
	}
	return p, req, nil
}

// postTestStep calls the health endpoints of the environment configuration.
// A 5xx, a timeout or a refused connection is temporary (the service may
// still be starting); any other unexpected status is permanent.
type postTestStep struct{}

func (postTestStep) Run(ctx context.Context, c *Context) (Result, error) {
	out := map[string]string{"checks": strconv.Itoa(len(c.Effective.Health))}
	for i, hc := range c.Effective.Health {
		u, err := healthURL(c, hc.URL)
		if err != nil {
			return Result{}, deploy.Permanentf("health check %d: %v", i, err)
		}
		status, err := healthCheck(ctx, c, u, hc)
		if err != nil {
			return Result{}, fmt.Errorf("health check %s: %w", deploy.RedactURL(u), err)
		}
		ok := status >= 200 && status < 300
		if hc.ExpectStatus != 0 {
			ok = status == hc.ExpectStatus
		}
		c.logf("info", "GET %s: %d", deploy.RedactURL(u), status)
		if !ok {
			return Result{}, StatusError("health check "+deploy.RedactURL(u), status)
		}
		out[fmt.Sprintf("check.%d", i)] = strconv.Itoa(status)
	}
	return Result{Output: out}, nil
}

// healthURL fills the placeholders of a health check's URL with the deploy's.
func healthURL(c *Context, raw string) (string, error) {
	t, err := urltemplate.Parse(raw, deploy.HealthPlaceholders)
	if err != nil {
		return "", err
	}
	e := c.Effective
	return t.Render(map[string]string{"Version": e.Artifact.Version, "Application": e.Application,
		"Environment": e.Environment, "Tenant": e.Tenant})
}

func healthCheck(ctx context.Context, c *Context, u string, hc deploy.HealthCheck) (int, error) {
	if hc.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, hc.Timeout)
		defer cancel()
	}
	resp, err := safehttp.Get(ctx, c.Env.HTTP, u, 64<<10)
	if err != nil {
		return 0, ClassifyHTTPError(err)
	}
	// Drained so the connection can be reused; only the status counts.
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// cleanupStep removes the working directory. It runs after a success, a
// failure and a cancel alike.
type cleanupStep struct{}

func (cleanupStep) Run(_ context.Context, c *Context) (Result, error) {
	if err := os.RemoveAll(c.WorkDir()); err != nil {
		return Result{}, fmt.Errorf("remove working directory: %w", err)
	}
	c.logf("info", "working directory removed")
	return Result{Output: map[string]string{"removed": "working directory"}}, nil
}

// StatusError is permanent for 4xx answers except 408 and 429, temporary otherwise.
func StatusError(what string, status int) error {
	err := fmt.Errorf("%s: HTTP %d", what, status)
	if status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests {
		return deploy.Permanent(err)
	}
	return err
}

// ClassifyHTTPError marks permanent the outbound failures retrying cannot
// change: a redirect, a refused address, a name that does not exist.
func ClassifyHTTPError(err error) error {
	// The client's error quotes the URL, whose query or user info may
	// carry a token: readers see it redacted, as in every other message.
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = deploy.RedactURL(ue.URL)
	}
	switch {
	case errors.Is(err, safehttp.ErrRedirect), errors.Is(err, safehttp.ErrAddressRefused):
		return deploy.Permanent(err)
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return deploy.Permanent(err)
	}
	return err
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
