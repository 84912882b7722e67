package config

import (
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
	"manent.dev/manent/internal/yamltree"
)

// rawEnvRollback is the rollback key of an environment configuration.
type rawEnvRollback struct {
	Enabled bool     `yaml:"enabled"`
	On      []string `yaml:"on"`
}

// policy is the environment's rollback policy: off when the file has no
// rollback key.
func (r *rawEnvRollback) policy(steps []string) deploy.RollbackPolicy {
	if r == nil {
		return deploy.RollbackPolicy{}
	}
	return rollbackPolicy(r.Enabled, r.On, steps)
}

// rollbackPolicy applies the defaults of a policy, the environment's or
// the one a descriptor changed: enabled without on rolls back for
// deploy.DefaultRollbackOn, as far as the pipeline has those steps. On is
// kept in pipeline order, so a policy has one form however it was written
// and the merge at submission and the one of the config step agree.
func rollbackPolicy(enabled bool, on, steps []string) deploy.RollbackPolicy {
	if enabled && len(on) == 0 {
		on = deploy.DefaultRollbackOn
	}
	return deploy.RollbackPolicy{Enabled: enabled, On: inPipelineOrder(on, steps)}
}

// mergeRollback decides the rollback policy of a deploy: the environment's,
// where a descriptor allowed to change it replaces what it gives (enabled,
// on, or both).
func mergeRollback(errs *yamltree.Errors, o *deploy.RollbackOverride, env *EnvConfig, allowed bool) deploy.RollbackPolicy {
	if o == nil {
		return deploy.RollbackPolicy{Enabled: env.Rollback.Enabled, On: slices.Clone(env.Rollback.On)}
	}
	if !allowed {
		errs.Add("rollback", "forbidden: the descriptor policy does not let descriptors change the rollback policy")
		return deploy.RollbackPolicy{}
	}
	enabled, on := env.Rollback.Enabled, env.Rollback.On
	if o.Enabled != nil {
		enabled = *o.Enabled
	}
	// An empty list is "not given": that is what it becomes once the
	// descriptor is stored, and the config step merges the stored one.
	if len(o.On) > 0 {
		checkRollbackOn(errs, "rollback.on", o.On, env.PipelineSteps)
		on = o.On
	}
	return rollbackPolicy(enabled, on, env.PipelineSteps)
}

// checkRollbackOn records the problems of a rollback.on list at path, in
// an environment configuration or a descriptor: its shape (see
// descriptor.CheckRollbackOn), then that every entry is a step of the
// pipeline.
func checkRollbackOn(errs *yamltree.Errors, path string, on, steps []string) {
	descriptor.CheckRollbackOn(errs, path, on)
	if errs.Bad(path) {
		return
	}
	for i, name := range on {
		p := yamltree.Index(path, i)
		switch {
		case errs.Bad(p):
		case name == deploy.StepConfig:
			errs.Add(p, "config cannot be listed: it changes nothing on the targets, so there is nothing to undo")
		case name == deploy.StepCleanup:
			errs.Add(p, "cleanup cannot be listed: it always runs, last, after any rollback")
		case !slices.Contains(steps, name):
			errs.Add(p, "unknown step: the pipeline has no step %s", name)
		}
	}
}

// inPipelineOrder returns the steps of on that the pipeline has, in its
// order.
func inPipelineOrder(on, steps []string) []string {
	var out []string
	for _, s := range steps {
		if slices.Contains(on, s) {
			out = append(out, s)
		}
	}
	return out
}

// pipelineSteps are the names of pipeline.steps, in order.
func (c *Config) pipelineSteps() []string {
	names := make([]string, len(c.Pipeline.Steps))
	for i, s := range c.Pipeline.Steps {
		names[i] = s.Name
	}
	return names
}
