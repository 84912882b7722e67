package config

import (
	"maps"
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// AllowsParam reports whether a descriptor may set the parameter.
func (p DescriptorPolicy) AllowsParam(name string) bool {
	return slices.Contains(p.Params, "*") || slices.Contains(p.Params, name)
}

// AllowsStepParam reports whether a descriptor may set the parameter of the step.
func (p DescriptorPolicy) AllowsStepParam(step, name string) bool {
	names := p.StepParams[step]
	return slices.Contains(names, "*") || slices.Contains(names, name)
}

// Merge returns the deploy as it will run: the descriptor over its
// environment configuration, under the descriptor policy. A descriptor never
// overrides the environment configuration: giving what it already gives is a
// conflict unless the values are equal. The rollback policy is the one
// exception: a descriptor allowed to change it replaces the environment's,
// and its rollback.on must name steps of env.PipelineSteps. Every refusal is
// listed in one EUNPROCESSABLE *deploy.Error. Merge reads nothing but its
// arguments: the config step merges again when the deploy runs and must
// find what the submission found.
func Merge(d *deploy.Descriptor, env *EnvConfig, policy DescriptorPolicy, defaultTenant string) (deploy.Effective, error) {
	tenant := d.Tenant
	if tenant == "" {
		tenant = defaultTenant
	}
	eff := deploy.Effective{
		Tenant:         tenant,
		Application:    d.Application,
		Environment:    d.Environment,
		Artifact:       d.Artifact,
		Plugin:         env.Plugin,
		Secrets:        slices.Clone(env.Secrets),
		SSH:            env.SSH.Clone(),
		Health:         slices.Clone(env.Health),
		Labels:         maps.Clone(d.Labels),
		DryRun:         d.DryRun,
		ConfigSource:   env.Source,
		ConfigRevision: env.Revision,
	}
	var errs yamltree.Errors
	eff.Targets = mergeTargets(&errs, d.Deploy.Targets, env.Targets, policy.Targets)
	if len(d.Deploy.Targets) > 0 && policy.Targets {
		checkTargetLabels(&errs, d.Deploy.Targets, env.Rollout, policy.Rollout)
	}
	eff.Params = mergeParams(&errs, "deploy.params", d.Deploy.Params, env.Params, policy.AllowsParam)
	for _, step := range unionKeys(d.StepParams, env.StepParams) {
		allowed := func(name string) bool { return policy.AllowsStepParam(step, name) }
		merged := mergeParams(&errs, yamltree.Key("stepParams", step), d.StepParams[step], env.StepParams[step], allowed)
		if len(merged) > 0 {
			if eff.StepParams == nil {
				eff.StepParams = map[string]map[string]string{}
			}
			eff.StepParams[step] = merged
		}
	}
	eff.Rollback = mergeRollback(&errs, d.Rollback, env, policy.Rollback)
	eff.Rollout = mergeRollout(&errs, d.Rollout, env.Rollout, policy)
	if errs.Len() > 0 {
		return deploy.Effective{}, &deploy.Error{
			Code:    deploy.EUNPROCESSABLE,
			Message: "the descriptor does not fit its environment configuration",
			Fields:  errs.List(),
		}
	}
	return eff, nil
}

func mergeTargets(errs *yamltree.Errors, fromDescriptor, fromEnv []deploy.Target, allowed bool) []deploy.Target {
	const path = "deploy.targets"
	switch {
	case len(fromDescriptor) > 0 && !allowed:
		errs.Add(path, "forbidden: the descriptor policy does not let descriptors give targets")
	case len(fromDescriptor) > 0 && len(fromEnv) > 0:
		errs.Add(path, "conflict: the environment configuration already gives the targets")
	case len(fromDescriptor) > 0:
		return slices.Clone(fromDescriptor)
	case len(fromEnv) > 0:
		return slices.Clone(fromEnv)
	default:
		errs.Add(path, MsgNoTarget)
	}
	return nil
}

// MsgNoTarget is the refusal of a merge that gives no target (at
// deploy.targets): what a submission whose targets come later (imports)
// or were dropped (a promotion) tells apart.
const MsgNoTarget = "no target: neither the descriptor nor the environment configuration gives one"

// mergeParams adds the descriptor's parameters to the environment's. Values
// are never put in messages: parameters may be sensitive.
func mergeParams(errs *yamltree.Errors, path string, fromDescriptor, fromEnv map[string]string, allowed func(string) bool) map[string]string {
	out := maps.Clone(fromEnv)
	for _, k := range sortedKeys(fromDescriptor) {
		v := fromDescriptor[k]
		p := yamltree.Key(path, k)
		if !allowed(k) {
			errs.Add(p, "forbidden parameter: the descriptor policy does not let descriptors set it")
			continue
		}
		if ev, ok := fromEnv[k]; ok && ev != v {
			errs.Add(p, "conflict: the environment configuration sets it to another value")
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := sortedKeys(a)
	for _, k := range sortedKeys(b) {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
