package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/safehttp"
)

// execute runs one attempt of a standard step.
func (r *run) execute(ctx context.Context, step deploy.PlannedStep) (stepResult, error) {
	switch step.Name {
	case deploy.StepConfig:
		return r.config(ctx)
	case deploy.StepSecrets:
		return r.secrets(ctx)
	case deploy.StepArtifacts:
		return r.artifacts(ctx)
	case deploy.StepQA:
		return r.qa(ctx)
	case deploy.StepDeploy:
		return r.deploy(ctx, step)
	case deploy.StepPostTest:
		return r.postTest(ctx)
	case deploy.StepActivation:
		return r.activate(ctx, step)
	}
	return stepResult{}, deploy.Permanentf("unknown step %q", step.Name)
}

// config reads the environment configuration valid now and merges it with
// the descriptor again, so a deploy that waited runs with today's
// configuration; its output records which file and revision were used.
func (r *run) config(ctx context.Context) (stepResult, error) {
	d := r.in.Descriptor
	who := deploy.Identity{Subject: r.in.Requester, Groups: r.in.RequesterGroups}
	// Imports are resolved before the merge: their targets and parameters
	// are descriptor additions. The step's result persists them, so a
	// resumed deploy uses the same values.
	applied, imported, _, err := r.e.withImports(ctx, who, &d)
	if err == nil && len(d.Imports) > 0 && len(imported.Sources) == 0 {
		err = fmt.Errorf("imports of the deploy are not ready yet")
	}
	if err != nil {
		if deploy.ErrorCode(err) == deploy.EUNPROCESSABLE {
			return stepResult{}, deploy.Permanent(err)
		}
		return stepResult{}, err
	}
	eff, envSources, err := r.e.effective(ctx, who, applied)
	if err != nil {
		if deploy.ErrorCode(err) == deploy.EUNPROCESSABLE {
			return stepResult{}, deploy.Permanent(err)
		}
		return stepResult{}, err
	}
	eff.DryRun = d.DryRun
	if err := r.checkFreeze(ctx, &d); err != nil {
		return stepResult{}, err
	}
	if err := r.e.store.SetEffective(ctx, r.in.ID, eff); err != nil {
		return stepResult{}, fmt.Errorf("record effective deploy: %w", err)
	}
	r.logf(ctx, deploy.StepConfig, "info", "configuration %s (revision %s), plugin %s, %d target(s)",
		eff.ConfigSource, short(eff.ConfigRevision), eff.Plugin, len(eff.Targets))
	out := map[string]string{
		"source":   eff.ConfigSource,
		"revision": eff.ConfigRevision,
		"plugin":   eff.Plugin,
		"targets":  strconv.Itoa(len(eff.Targets)),
	}
	sourcesOutput(imported, out)
	for k, v := range envSources {
		out[k] = v
	}
	return stepResult{Effective: &eff, Output: out}, nil
}

// checkFreeze runs governance again at execution: a freeze window that
// started after the deploy was submitted stops it (unless its
// freezeOverride was accepted then), and so does a policy that now refuses
// it (a promotion no longer in service, a Rego rule).
func (r *run) checkFreeze(ctx context.Context, d *deploy.Descriptor) error {
	if r.e.gov == nil || d.DryRun {
		return nil
	}
	who := deploy.Identity{Subject: r.in.Requester, Groups: r.in.RequesterGroups}
	in, err := r.e.governanceInput(ctx, who, d, time.Now().UTC())
	if err != nil {
		return err
	}
	if d.FreezeOverride != nil {
		res := deploy.Resource{Tenant: d.Tenant, Application: d.Application, Environment: d.Environment}
		if ok, err := r.e.authz.Allowed(who, res, deploy.PermFreezeOverride); err != nil {
			return fmt.Errorf("authorize: %w", err)
		} else if !ok {
			d.FreezeOverride, in.FreezeOverride = nil, ""
		}
	}
	fr, err := r.e.gov.Frozen(ctx, in)
	if err != nil {
		return fmt.Errorf("check freeze windows: %w", err)
	}
	if fr != nil && d.FreezeOverride == nil {
		return deploy.Permanentf("freeze window %s is in force until %s: the deploy does not run in it",
			fr.Window, fr.Until.UTC().Format(time.RFC3339))
	}
	if fr != nil {
		r.logf(ctx, deploy.StepConfig, "warn", "freeze window %s in force until %s: overridden (%s)",
			fr.Window, fr.Until.UTC().Format(time.RFC3339), d.FreezeOverride.Reason)
	}
	if _, err := r.e.gov.Decide(ctx, in); err != nil {
		if deploy.ErrorCode(err) == deploy.EUNPROCESSABLE {
			return deploy.Permanent(fmt.Errorf("governance refuses the deploy now: %w", err))
		}
		return fmt.Errorf("governance: %w", err)
	}
	return nil
}

// secrets checks that every secret of the environment can be resolved. The
// values are not kept: steps that need them resolve them again.
func (r *run) secrets(ctx context.Context) (stepResult, error) {
	for _, s := range r.eff.Secrets {
		v, err := r.resolver().Resolve(ctx, s.Ref)
		if err != nil {
			return stepResult{}, fmt.Errorf("secret %s: %w", s.Name, err)
		}
		if v == "" {
			return stepResult{}, deploy.Permanentf("secret %s is empty", s.Name)
		}
	}
	r.logf(ctx, deploy.StepSecrets, "info", "%d secret(s) resolved", len(r.eff.Secrets))
	return stepResult{Output: map[string]string{"resolved": strconv.Itoa(len(r.eff.Secrets))}}, nil
}

func (r *run) resolver() secrets.Resolver { return secrets.Resolver(r.e.secrets) }

// secret resolves a logical secret name of the environment configuration.
func (r *run) secret(ctx context.Context, name string) (string, error) {
	for _, s := range r.eff.Secrets {
		if s.Name == name {
			return r.resolver().Resolve(ctx, s.Ref)
		}
	}
	return "", deploy.Permanentf("secret %s is not declared by the environment configuration", name)
}

func (r *run) artifactPath() string {
	return filepath.Join(r.workDir(), "artifact")
}

// artifacts downloads the artifact into the working directory and computes
// its SHA-256.
func (r *run) artifacts(ctx context.Context) (stepResult, error) {
	size, sum, err := r.download(ctx)
	if err != nil {
		return stepResult{}, err
	}
	if err := r.e.store.SetSHA256(ctx, r.in.ID, sum); err != nil {
		return stepResult{}, fmt.Errorf("record sha256: %w", err)
	}
	r.logf(ctx, deploy.StepArtifacts, "info", "downloaded %s %s (%d bytes, sha256 %s)",
		r.in.Descriptor.Artifact.Name, r.in.Descriptor.Artifact.Version, size, sum)
	return stepResult{SHA256: sum, Output: map[string]string{"sha256": sum, "size": strconv.FormatInt(size, 10)}}, nil
}

// download fetches the source into artifactPath, atomically, and returns
// its size and digest.
func (r *run) download(ctx context.Context) (int64, string, error) {
	src := r.in.Descriptor.Artifact.Source
	if err := r.e.cfg.CheckSource(src); err != nil {
		return 0, "", deploy.Permanent(err)
	}
	if err := os.MkdirAll(r.workDir(), 0o700); err != nil {
		return 0, "", fmt.Errorf("create working directory: %w", err)
	}
	var body io.ReadCloser
	if strings.HasPrefix(src, "file:") {
		path, err := r.e.cfg.ResolveFileSource(src)
		if err != nil {
			return 0, "", deploy.Permanent(err)
		}
		f, err := os.Open(path)
		if err != nil {
			if os.IsNotExist(err) {
				return 0, "", deploy.Permanentf("artifact %s not found", src)
			}
			return 0, "", fmt.Errorf("open artifact: %w", err)
		}
		body = f
	} else {
		resp, err := safehttp.Get(ctx, r.e.http, src, r.e.cfg.Artifacts.MaxSize)
		if err != nil {
			return 0, "", classifyHTTPError(err)
		}
		if resp.StatusCode != http.StatusOK {
			_ = resp.Body.Close() // unread, and the status is the error
			return 0, "", statusError("download artifact", resp.StatusCode)
		}
		body = resp.Body
	}
	// Read-only: a failed close loses nothing.
	defer func() { _ = body.Close() }()
	tmp, err := os.CreateTemp(r.workDir(), "download-*")
	if err != nil {
		return 0, "", fmt.Errorf("create download file: %w", err)
	}
	// Only a failed download leaves the file here (a good one is renamed
	// away); a leftover is a stray temporary, not a wrong artifact.
	defer func() { _ = os.Remove(tmp.Name()) }()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(body, r.e.cfg.Artifacts.MaxSize+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if errors.Is(err, safehttp.ErrTooLarge) {
			return 0, "", deploy.Permanentf("artifact larger than artifacts.max_size (%d bytes)", r.e.cfg.Artifacts.MaxSize)
		}
		return 0, "", fmt.Errorf("download artifact: %w", err)
	}
	if n > r.e.cfg.Artifacts.MaxSize {
		return 0, "", deploy.Permanentf("artifact larger than artifacts.max_size (%d bytes)", r.e.cfg.Artifacts.MaxSize)
	}
	if err := os.Rename(tmp.Name(), r.artifactPath()); err != nil {
		return 0, "", fmt.Errorf("move artifact in place: %w", err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// ensureArtifact makes sure the verified artifact is in the working
// directory: a deploy resumed on another worker, or after the directory
// was lost, downloads it again and checks it is the same content.
func (r *run) ensureArtifact(ctx context.Context) error {
	if sum, err := fileSHA256(r.artifactPath()); err == nil && sum == r.sha {
		return nil
	}
	_, sum, err := r.download(ctx)
	if err != nil {
		return err
	}
	if sum != r.sha {
		return deploy.Permanentf("artifact changed at its source since it was verified (sha256 %s, now %s)", r.sha, sum)
	}
	return nil
}

// qa verifies the artifact: its digest against the descriptor's pin, and
// that the archive is readable.
func (r *run) qa(ctx context.Context) (stepResult, error) {
	if err := r.ensureArtifact(ctx); err != nil {
		return stepResult{}, err
	}
	out := map[string]string{"sha256": r.sha}
	if pin := r.in.Descriptor.Artifact.SHA256; pin != "" {
		if !strings.EqualFold(pin, r.sha) {
			return stepResult{}, deploy.Permanentf("artifact sha256 %s does not match the pinned %s", r.sha, pin)
		}
		out["pinned"] = "match"
		r.logf(ctx, deploy.StepQA, "info", "sha256 matches the descriptor's pin")
	} else {
		out["pinned"] = "none"
	}
	if err := local.CheckArchive(r.artifactPath()); err != nil {
		return stepResult{}, err
	}
	out["archive"] = "valid"
	r.logf(ctx, deploy.StepQA, "info", "archive verified")
	return stepResult{Output: out}, nil
}

func (r *run) pluginRequest(ctx context.Context, step, kind string) (deploy.Plugin, deploy.PluginRequest, error) {
	p, ok := r.e.plugins[r.eff.Plugin]
	if !ok {
		return nil, deploy.PluginRequest{}, deploy.Permanentf("unknown plugin %q", r.eff.Plugin)
	}
	d := r.in.Descriptor
	req := deploy.PluginRequest{
		DeploymentID: r.in.ID,
		// One pass, one batch for now: rollouts add their pass and batch here.
		IdempotencyKey: fmt.Sprintf("%s:%s:p0:b0:%s", r.in.ID, step, kind),
		Application:    d.Application, Environment: d.Environment, Artifact: d.Artifact,
		ArtifactPath: r.artifactPath(), SHA256: r.sha, Targets: r.eff.Targets, Params: r.eff.Params,
		DryRun: d.DryRun,
		Secret: r.secret,
		Log: func(format string, args ...any) {
			r.logf(ctx, step, "info", format, args...)
		},
	}
	return p, req, nil
}

func (r *run) deploy(ctx context.Context, step deploy.PlannedStep) (stepResult, error) {
	if err := r.ensureArtifact(ctx); err != nil {
		return stepResult{}, err
	}
	p, req, err := r.pluginRequest(ctx, step.Name, r.kind())
	if err != nil {
		return stepResult{}, err
	}
	res, err := p.Deploy(ctx, req)
	if err != nil {
		return stepResult{}, err
	}
	if err := checkOutputKeys(step.Name, res.Outputs); err != nil {
		return stepResult{}, err
	}
	return stepResult{Output: res.Outputs}, nil
}

func (r *run) activate(ctx context.Context, step deploy.PlannedStep) (stepResult, error) {
	p, req, err := r.pluginRequest(ctx, step.Name, r.kind())
	if err != nil {
		return stepResult{}, err
	}
	res, err := p.Activate(ctx, req)
	if err != nil {
		return stepResult{}, err
	}
	if err := checkOutputKeys(step.Name, res.Outputs); err != nil {
		return stepResult{}, err
	}
	return stepResult{Output: res.Outputs}, nil
}

func (r *run) kind() string {
	if r.in.Descriptor.DryRun {
		return "dry-run"
	}
	return "run"
}

// postTest calls the health endpoints of the environment configuration.
// A 5xx, a timeout or a refused connection is temporary (the service may
// still be starting); any other unexpected status is permanent.
func (r *run) postTest(ctx context.Context) (stepResult, error) {
	out := map[string]string{"checks": strconv.Itoa(len(r.eff.Health))}
	for i, hc := range r.eff.Health {
		cctx := ctx
		if hc.Timeout > 0 {
			var cancel context.CancelFunc
			cctx, cancel = context.WithTimeout(ctx, hc.Timeout)
			defer cancel()
		}
		resp, err := safehttp.Get(cctx, r.e.http, hc.URL, 64<<10)
		if err != nil {
			return stepResult{}, fmt.Errorf("health check %s: %w", redact(hc.URL), classifyHTTPError(err))
		}
		// Drained so the connection can be reused; only the status counts.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		ok := resp.StatusCode >= 200 && resp.StatusCode < 300
		if hc.ExpectStatus != 0 {
			ok = resp.StatusCode == hc.ExpectStatus
		}
		r.logf(ctx, deploy.StepPostTest, "info", "GET %s: %d", redact(hc.URL), resp.StatusCode)
		if !ok {
			return stepResult{}, statusError("health check "+redact(hc.URL), resp.StatusCode)
		}
		out[fmt.Sprintf("check.%d", i)] = strconv.Itoa(resp.StatusCode)
	}
	return stepResult{Output: out}, nil
}

// statusError is permanent for 4xx answers except 408 and 429, temporary otherwise.
func statusError(what string, status int) error {
	err := fmt.Errorf("%s: HTTP %d", what, status)
	if status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests {
		return deploy.Permanent(err)
	}
	return &temporary{err}
}

type temporary struct{ error }

func (t *temporary) Unwrap() error { return t.error }

func classifyHTTPError(err error) error {
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

// redact drops the query and user info of a URL for logs.
func redact(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if i := strings.Index(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			raw = raw[:j+3] + raw[i+1:]
		}
	}
	return raw
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read-only: a failed close loses nothing
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
