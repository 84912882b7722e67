package custom

import (
	"context"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
)

// commandKind is the kind of type: command, a command run on the targets
// over SSH.
type commandKind struct{ k *kinds }

func (k commandKind) Run(ctx context.Context, c *steps.Context) (steps.Result, error) {
	return k.k.operate(ctx, c, false, nil, k.run)
}

func (k commandKind) DryRun(ctx context.Context, c *steps.Context) (steps.Result, error) {
	return k.k.operate(ctx, c, true, k.frozen, k.run)
}

// frozen skips a dry run during a freeze window over the deploy's
// environment or its targets, unless the descriptor's freezeOverride is
// accepted: a dry run is not held by governance, but its command still
// runs on production targets.
func (k commandKind) frozen(ctx context.Context, cl *call) (*skip, error) {
	c := cl.c
	if c.Env == nil || c.Env.Checks == nil {
		return nil, nil
	}
	fr, err := c.Env.Checks.FreezeInForce(ctx, c.Job.Identity(), c.Job.Descriptor, c.Effective.Targets)
	if err != nil {
		return nil, err
	}
	if fr == nil {
		return nil, nil
	}
	if fr.Overridden {
		cl.logf("warn", "dry run in freeze window %s (in force until %s): it runs, the descriptor's freezeOverride is accepted",
			fr.Window, fr.Until.UTC().Format(time.RFC3339))
		return nil, nil
	}
	return &skip{reason: "freeze", line: "dry_run: skipped, reason: freeze (window " + fr.Window + " in force until " +
		fr.Until.UTC().Format(time.RFC3339) + "; a freezeOverride in the descriptor lets it run)"}, nil
}

func (k commandKind) run(ctx context.Context, cl *call) (map[string]string, error) {
	return nil, deploy.Permanentf("step %s: command steps are not wired yet", cl.c.Key.Step)
}
