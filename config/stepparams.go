package config

import (
	"slices"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// checkEnvStepParams holds the environment configuration's step_params to
// the declarations of pipeline.steps: a custom step of the pipeline, a
// parameter it declares, a value its pattern matches. The steps that are
// off by default are checked too: a typo is found before a descriptor
// turns the step on. Messages never hold a value.
func (c *Config) checkEnvStepParams(errs *yamltree.Errors, sp map[string]map[string]string) {
	for _, step := range sortedKeys(sp) {
		p := yamltree.Key("step_params", step)
		s, ok := c.customStep(step)
		if !ok {
			if slices.Contains(standardSteps, step) {
				errs.Add(p, "%s is a standard step: only custom steps declare parameters", step)
			} else {
				errs.Add(p, "no custom step %s in pipeline.steps", step)
			}
			continue
		}
		spec := s.Spec()
		for _, name := range sortedKeys(sp[step]) {
			decl, ok := spec.Params[name]
			switch {
			case !ok:
				errs.Add(yamltree.Key(p, name), "%s", spec.Undeclared())
			case !decl.Matches(sp[step][name]):
				errs.Add(yamltree.Key(p, name), "does not match the pattern step %s declares for it", step)
			}
		}
	}
}

// ResolveCustomSteps binds the custom steps of plan to the deploy: the
// parameters of each (eff.StepParams, merged from the environment
// configuration and the descriptor) are held to the declarations its
// captured specification makes, and its defaults added, so that
// eff.StepParams[step] is what the step runs with; and every secret a step
// names must be one of the environment configuration's (eff.Secrets).
// Parameters of steps the plan does not run are left as they are. The
// submission calls it, and the config step again with the plan the deploy
// was submitted with; every refusal is in one EUNPROCESSABLE *deploy.Error,
// with the path of the key to change: stepParams.<step>.<name> for a value
// the descriptor gave, step_params.<step>.<name> otherwise.
func ResolveCustomSteps(plan deploy.Plan, d *deploy.Descriptor, eff *deploy.Effective) error {
	var errs yamltree.Errors
	declared := map[string]bool{}
	for _, s := range eff.Secrets {
		declared[s.Name] = true
	}
	resolved := map[string]map[string]string{}
	for _, ps := range plan.Steps {
		if ps.Spec == nil {
			continue
		}
		values, problems := ps.Spec.ResolveParams(eff.StepParams[ps.Name])
		for _, pe := range problems {
			p := yamltree.Key(yamltree.Key("step_params", ps.Name), pe.Name)
			if _, given := d.StepParams[ps.Name][pe.Name]; given {
				p = yamltree.Key(yamltree.Key("stepParams", ps.Name), pe.Name)
			}
			errs.Add(p, "%s", pe.Message)
		}
		resolved[ps.Name] = values
		for _, name := range ps.Spec.SecretNames() {
			if !declared[name] {
				errs.Add("secrets", "step %s needs secret %s, which the environment configuration does not declare", ps.Name, name)
			}
		}
	}
	if errs.Len() > 0 {
		return &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "the custom steps do not fit the deploy", Fields: errs.List()}
	}
	for step, values := range resolved {
		if len(values) == 0 {
			delete(eff.StepParams, step)
			continue
		}
		if eff.StepParams == nil {
			eff.StepParams = map[string]map[string]string{}
		}
		eff.StepParams[step] = values
	}
	return nil
}
