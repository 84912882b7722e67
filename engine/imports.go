package engine

import (
	"context"
	"errors"
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
	e   *Engine
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
	ok, err := s.e.authz.Allowed(s.who, resourceOf(d), deploy.PermRead)
	return err == nil && ok
}

// Deployment implements chains.Source.
func (s source) Deployment(ctx context.Context, id string) (chains.Producer, error) {
	if slices.Contains(s.notYet, id) {
		return chains.Producer{ID: id, State: deploy.StateWaitingDependency}, nil
	}
	d, err := s.e.store.Get(ctx, id)
	if err != nil {
		return chains.Producer{}, err
	}
	if !s.readable(d) {
		return chains.Producer{}, deploy.Errorf(deploy.ENOTFOUND, "deploy %q not found", id)
	}
	return s.producer(d), nil
}

// InService implements chains.Source.
func (s source) InService(ctx context.Context, tenant, application, environment string) ([]chains.Producer, error) {
	inv, err := s.e.store.Inventory(ctx, tenant)
	if err != nil {
		return nil, err
	}
	var out []chains.Producer
	for _, in := range inv {
		if in.Application != application || in.Environment != environment {
			continue
		}
		d, err := s.e.store.Get(ctx, in.DeploymentID)
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
func (e *Engine) withImports(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, notYet ...string) (*deploy.Descriptor, chains.Resolved, bool, error) {
	if len(d.Imports) == 0 {
		return d, chains.Resolved{}, true, nil
	}
	res, err := chains.Resolve(ctx, d, source{e: e, who: who, notYet: notYet})
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
func (e *Engine) effectiveAtSubmit(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, notYet []string) (deploy.Effective, error) {
	if err := chains.CheckImportsAtSubmit(ctx, d, source{e: e, who: who, notYet: notYet}); err != nil {
		return deploy.Effective{}, err
	}
	applied, _, ready, err := e.withImports(ctx, who, d, notYet...)
	if err != nil {
		return deploy.Effective{}, err
	}
	eff, err := e.effective(applied)
	if err == nil || ready || len(d.Deploy.TargetsFrom) == 0 {
		return eff, err
	}
	var de *deploy.Error
	if !errors.As(err, &de) {
		return eff, err
	}
	rest := de.Fields[:0:0]
	for _, f := range de.Fields {
		if f.Path != "deploy.targets" || !strings.Contains(f.Message, "no target") {
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		return eff, &deploy.Error{Code: de.Code, Message: de.Message, Fields: rest}
	}
	// Only the imported targets are missing: merge again with a stand-in in
	// the environment configuration to learn the rest of the effective
	// deploy; its targets are the config step's.
	env, err := e.cfg.LoadEnvConfig(d.Tenant, d.Application, d.Environment)
	if err != nil {
		return deploy.Effective{}, err
	}
	env.Targets = []deploy.Target{{Path: "imported"}}
	eff, err = config.Merge(d, env, e.cfg.Pipeline.DescriptorPolicy, e.cfg.Server.DefaultTenant)
	eff.Targets = nil
	return eff, err
}

// exportsOf checks the declared exports against the outputs of the steps.
func exportsOf(d deploy.Descriptor, outputs map[string]map[string]string) ([]deploy.Export, error) {
	if len(d.Exports) == 0 || d.DryRun {
		return nil, nil
	}
	return chains.CheckExports(d.Exports, outputs)
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

func checkOutputKeys(step string, outputs map[string]string) error {
	if len(outputs) > deploy.MaxPluginOutputKeys {
		return deploy.Permanentf("step %s: the plugin returned %d outputs, more than %d", step, len(outputs), deploy.MaxPluginOutputKeys)
	}
	return nil
}
