package config

import (
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// StepTypeStandard is the type of the built-in steps.
const StepTypeStandard = "standard"

// Plan returns the steps a deploy of d runs, in order: config, the enabled
// steps of pipeline.steps, cleanup. A custom step carries its whole
// specification (Spec), which the service seals (its hash and signature)
// before the plan is stored. The descriptor's steps map turns
// optional steps on or off; turning off a mandatory step, or naming a step
// the pipeline does not have, is EUNPROCESSABLE with the path steps.<name>.
func (c *Config) Plan(d *deploy.Descriptor) (deploy.Plan, error) {
	var errs yamltree.Errors
	configured := map[string]bool{}
	for _, s := range c.Pipeline.Steps {
		configured[s.Name] = true
	}
	for _, name := range sortedKeys(d.Steps) {
		on := d.Steps[name]
		path := yamltree.Key("steps", name)
		switch {
		case name == deploy.StepConfig || name == deploy.StepCleanup:
			if !on {
				errs.Add(path, "%s always runs and cannot be turned off", name)
			}
		case !configured[name]:
			errs.Add(path, "unknown step: the pipeline has no step %s", name)
		}
	}
	plan := deploy.Plan{Steps: []deploy.PlannedStep{implicitStep(deploy.StepConfig)}}
	for _, s := range c.Pipeline.Steps {
		on, asked := d.Steps[s.Name]
		if s.Mandatory() {
			if asked && !on {
				errs.Add(yamltree.Key("steps", s.Name), "%s is mandatory and cannot be turned off", s.Name)
			}
			on = true
		} else if !asked {
			on = s.Enabled
		}
		if on {
			ps := deploy.PlannedStep{
				Name: s.Name, Type: StepTypeStandard, MaxRetries: s.MaxRetries,
				Timeout: s.Timeout, Mandatory: s.Mandatory(),
			}
			if s.Custom() {
				ps.Type, ps.Spec = s.Type, s.Spec()
			}
			plan.Steps = append(plan.Steps, ps)
		}
	}
	plan.Steps = append(plan.Steps, implicitStep(deploy.StepCleanup))
	if errs.Len() > 0 {
		return deploy.Plan{}, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "the descriptor's steps do not fit the pipeline", Fields: errs.List()}
	}
	return plan, nil
}

// implicitStep is config or cleanup: never listed, always run, with the
// step defaults.
func implicitStep(name string) deploy.PlannedStep {
	return deploy.PlannedStep{
		Name: name, Type: StepTypeStandard, MaxRetries: DefaultMaxRetries,
		Timeout: DefaultStepTimeout, Mandatory: true,
	}
}
