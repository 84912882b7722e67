package service

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"

	"manent.dev/manent/chains"
	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// source reads the producers of imports from the store, for one requester:
// a producer the requester may not read looks missing (as for after).
type source struct {
	svc *Service
	who deploy.Identity
	// notYet are deploys of the same release that the release creates
	// later: at its submission they look waiting, as they will be.
	notYet []string
}

func (s source) producer(d *deploy.Deployment) chains.Producer {
	return chains.Producer{ID: d.ID, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: d.State, DryRun: d.DryRun, Artifact: d.Artifact, Exports: d.Exports}
}

func (s source) readable(d *deploy.Deployment) bool {
	ok, err := s.svc.authz.Allowed(s.who, resourceOf(d), deploy.PermRead)
	return err == nil && ok
}

// Deployment implements chains.Source.
func (s source) Deployment(ctx context.Context, id string) (chains.Producer, error) {
	if slices.Contains(s.notYet, id) {
		return chains.Producer{ID: id, State: deploy.StateWaitingDependency}, nil
	}
	d, err := s.svc.store.Get(ctx, id)
	if err != nil {
		return chains.Producer{}, err
	}
	if !s.readable(d) {
		return chains.Producer{}, deploy.DeploymentNotFound(id)
	}
	return s.producer(d), nil
}

// InService implements chains.Source.
func (s source) InService(ctx context.Context, tenant, application, environment string) ([]chains.Producer, error) {
	inv, err := s.svc.store.InService(ctx, tenant, application, environment)
	if err != nil {
		return nil, err
	}
	var out []chains.Producer
	for _, in := range inv {
		d, err := s.svc.store.Get(ctx, in.DeploymentID)
		if err != nil {
			if deploy.ErrorCode(err) == deploy.ENOTFOUND {
				continue
			}
			return nil, err
		}
		if s.readable(d) {
			out = append(out, s.producer(d))
		}
	}
	return out, nil
}

// withImports resolves the imports of d when they can be resolved now and
// returns the descriptor with the imported targets and parameters added
// (descriptor additions: the merge rules apply to them). ready is false
// when a producer has not succeeded yet: the config step resolves them.
func (s *Service) withImports(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, notYet ...string) (*deploy.Descriptor, chains.Resolved, bool, error) {
	if len(d.Imports) == 0 {
		return d, chains.Resolved{}, true, nil
	}
	res, err := chains.Resolve(ctx, d, source{svc: s, who: who, notYet: notYet})
	if errors.Is(err, chains.ErrNotReady) {
		return d, chains.Resolved{}, false, nil
	}
	if err != nil {
		return nil, chains.Resolved{}, false, err
	}
	return chains.Apply(d, res), res, true, nil
}

// effectiveAtSubmit merges the descriptor, with its imports when they can be
// resolved now. When targets come from imports not ready yet, "no target"
// is left to the config step, which resolves them. notYet are the deploys
// of a release being submitted, which do not exist yet.
func (s *Service) effectiveAtSubmit(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, notYet []string) (deploy.Effective, error) {
	if err := chains.CheckImportsAtSubmit(ctx, d, source{svc: s, who: who, notYet: notYet}); err != nil {
		return deploy.Effective{}, err
	}
	applied, _, ready, err := s.withImports(ctx, who, d, notYet...)
	if err != nil {
		return deploy.Effective{}, err
	}
	eff, _, err := s.effective(ctx, who, applied)
	if err == nil || ready || len(d.Deploy.TargetsFrom) == 0 {
		return eff, err
	}
	var de *deploy.Error
	if !errors.As(err, &de) {
		return eff, err
	}
	rest := de.Fields[:0:0]
	for _, f := range de.Fields {
		if f.Path != "deploy.targets" || f.Message != config.MsgNoTarget {
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		return eff, &deploy.Error{Code: de.Code, Message: de.Message, Fields: rest}
	}
	// Only the imported targets are missing: merge again with a stand-in in
	// the environment configuration to learn the rest of the effective
	// deploy; its targets are the config step's.
	env, _, err := s.envConfig(ctx, who, d)
	if err != nil {
		return deploy.Effective{}, err
	}
	env.Targets = []deploy.Target{{Path: "imported"}}
	eff, err = config.Merge(d, env, s.cfg.Pipeline.DescriptorPolicy, s.cfg.Server.DefaultTenant)
	eff.Targets = nil
	return eff, err
}

// envConfig reads the environment configuration of d and resolves its
// imports (releases in service only) for who, before the merge: the targets
// and parameters they give become the file's own, so the merge rules apply
// (with targets_from, targets in the descriptor are a conflict). sources
// is for the config step's output, prefixed envconfig. to tell them from
// the descriptor's imports.
func (s *Service) envConfig(ctx context.Context, who deploy.Identity, d *deploy.Descriptor) (*config.EnvConfig, map[string]string, error) {
	env, err := s.cfg.LoadEnvConfig(d.Tenant, d.Application, d.Environment)
	if err != nil || len(env.Imports) == 0 {
		return env, nil, err
	}
	tenant := d.Tenant
	if tenant == "" {
		tenant = s.cfg.Server.DefaultTenant
	}
	// The imports are the file's, read for this deploy: its application,
	// environment and tenant give the defaults of current and tell an
	// import of its own release in service.
	importer := &deploy.Descriptor{
		Tenant: tenant, Application: d.Application, Environment: d.Environment, Artifact: d.Artifact,
		Imports: env.Imports,
		Deploy:  deploy.DeploySection{TargetsFrom: env.TargetsFrom, ParamsFrom: env.ParamsFrom},
	}
	res, err := chains.Resolve(ctx, importer, source{svc: s, who: who})
	if err != nil {
		return nil, nil, envImportsError(err)
	}
	env.Targets = append(slices.Clone(env.Targets), res.Targets...)
	if len(res.Params) > 0 {
		params := maps.Clone(env.Params)
		if params == nil {
			params = make(map[string]string, len(res.Params))
		}
		maps.Copy(params, res.Params)
		env.Params = params
	}
	sources := make(map[string]string, len(res.Sources))
	for k, v := range res.Sources {
		sources["envconfig."+k] = v
	}
	return env, sources, nil
}

// envImportsError speaks of the environment configuration's keys in the
// refusals of chains.Resolve, which names the descriptor's.
func envImportsError(err error) error {
	var de *deploy.Error
	if !errors.As(err, &de) || de.Code != deploy.EUNPROCESSABLE || de.Message != chains.MsgImportsUnresolved {
		return err
	}
	out := *de
	out.Message = "imports of the environment configuration cannot be resolved"
	out.Fields = make([]deploy.FieldError, len(de.Fields))
	for i, f := range de.Fields {
		for _, r := range [][2]string{
			{"imports", "envconfig.imports"},
			{"deploy.targetsFrom", "envconfig.targets_from"},
			{"deploy.paramsFrom", "envconfig.params_from"},
		} {
			if rest, ok := strings.CutPrefix(f.Path, r[0]); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				f.Path = r[1] + rest
				break
			}
		}
		out.Fields[i] = f
	}
	return &out
}

// sourcesOutput is the config step's record of the imports it used.
func sourcesOutput(res chains.Resolved, out map[string]string) {
	keys := make([]string, 0, len(res.Sources))
	for k := range res.Sources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[k] = res.Sources[k]
	}
}
