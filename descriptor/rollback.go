package descriptor

import (
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/yamltree"
)

// MaxRollbackOn bounds rollback.on, in a descriptor and in an environment
// configuration: a pipeline has far fewer steps.
const MaxRollbackOn = 20

// rawRollback is the descriptor's rollback key. Enabled is a pointer so
// that an override that leaves it out keeps the environment's.
type rawRollback struct {
	Enabled *bool    `yaml:"enabled"`
	On      []string `yaml:"on"`
}

// checkRollback checks the shape of the descriptor's rollback: whether the
// pipeline has the steps, and whether the descriptor may change the policy
// at all, is for the merge with the environment configuration.
func checkRollback(errs *yamltree.Errors, r *rawRollback) {
	if r == nil {
		return
	}
	if r.Enabled == nil && r.On == nil && !errs.Bad("rollback.enabled") && !errs.Bad("rollback.on") {
		errs.Add("rollback", "must give enabled, on or both: leave rollback out to keep the environment's policy")
	}
	CheckRollbackOn(errs, "rollback.on", r.On)
}

// CheckRollbackOn records the problems of a rollback.on list at path that
// need no pipeline: at least one and at most MaxRollbackOn step names, each
// once. A nil list is absent and has none.
func CheckRollbackOn(errs *yamltree.Errors, path string, on []string) {
	switch {
	case on == nil:
		return
	case len(on) == 0:
		// An empty list would read as "never" here and as "not given" once
		// the descriptor is stored, so it is refused rather than guessed.
		errs.Add(path, "must list at least one step: leave on out, or set enabled: false to turn rollback off")
		return
	case len(on) > MaxRollbackOn:
		errs.Add(path, "at most %d steps are allowed, found %d", MaxRollbackOn, len(on))
		return
	}
	seen := make(map[string]int, len(on))
	for i, name := range on {
		p := yamltree.Index(path, i)
		first, dup := seen[name]
		switch {
		case errs.Bad(p):
		case !stepPattern.MatchString(name):
			errs.Add(p, msgStepPattern)
		case dup:
			errs.Add(p, "%s is already listed (on[%d])", name, first)
		default:
			seen[name] = i
		}
	}
}

func (r *rawRollback) override() *deploy.RollbackOverride {
	if r == nil {
		return nil
	}
	return &deploy.RollbackOverride{Enabled: r.Enabled, On: r.On}
}
