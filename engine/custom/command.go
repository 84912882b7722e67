package custom

import (
	"context"
	"errors"
	"fmt"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/mask"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/sshcommand"
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

// run runs the command on the operation's targets one after the other, or
// on the first only with run_once (under a rollout, the first of the
// batch when the step runs once per batch), each as one attempt of
// sshcommand.Run: stdout and stderr go to the deploy log line by line,
// masked. The outputs are run_once's target's.
func (k commandKind) run(ctx context.Context, cl *call) (map[string]string, error) {
	c, spec, step := cl.c, cl.spec, cl.c.Key.Step
	if k.k.o.SSH == nil {
		return nil, deploy.Permanentf("step %s: this worker has no SSH pool for command steps", step)
	}
	targets := c.Effective.Targets
	switch {
	case len(targets) == 0:
		return nil, deploy.Permanentf("step %s: no targets to run the command on", step)
	case len(spec.Outputs) > 0 && !cl.run.RunOnce:
		return nil, deploy.Permanentf("step %s: a command step with outputs must set run.run_once", step)
	case cl.run.RunOnce:
		targets = targets[:1]
	}
	cl.targets = targetNames(targets)
	argv, err := placeholder.Command(cl.run.Command, cl.values)
	if err != nil {
		sep := ": "
		var part *placeholder.PartError
		if errors.As(err, &part) && part.Path != "" {
			sep = ""
		}
		return nil, deploy.Permanent(fmt.Errorf("step %s: command%s%w", step, sep, err))
	}
	files := cl.runSecrets()
	if err := cl.started(ctx); err != nil {
		return nil, err
	}
	var outputs map[string]string
	for _, t := range targets {
		out, err := k.runOn(ctx, cl, t, argv, files)
		if err != nil {
			return nil, err
		}
		outputs = out
	}
	if len(spec.Outputs) == 0 {
		return nil, nil
	}
	return outputs, nil
}

// runOn makes one attempt of the command on t.
func (k commandKind) runOn(ctx context.Context, cl *call, t deploy.Target, argv []string, files map[string]string) (map[string]string, error) {
	c, spec := cl.c, cl.spec
	name := t.Name()
	env, err := sshcommand.Contract{
		DeploymentID: c.Job.ID, Step: c.Key.Step, Application: cl.values.Application, Environment: cl.values.Environment,
		Version: cl.values.Version, Target: name, ArtifactSHA256: c.SHA256, DryRun: cl.dryRun,
		Params: cl.values.Params, Outputs: c.Outputs,
	}.Env()
	if err != nil {
		return nil, fmt.Errorf("step %s: %w", c.Key.Step, err)
	}
	logf := func(format string, args ...any) { cl.logf("warn", "%s: %s", name, fmt.Sprintf(format, args...)) }
	secret := func(_ context.Context, n string) (string, error) { return cl.secret(n) }
	client, err := sshcommand.Connect(ctx, k.k.o.SSH, t, spec.SSH, secret, logf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer client.Close()
	stdout := cl.mask.Writer(func(line string) { cl.c.Log("info", "%s: %s", name, line) }, mask.Limits{})
	stderr := stdout.Share()
	out, err := sshcommand.Run(ctx, sshcommand.Request{
		Client: client, Target: name, SecretsDir: secretsDir(c), DeploymentID: c.Job.ID, Step: c.Key.Step,
		Argv: argv, SHA256: cl.run.SHA256, Env: env, Secrets: files, Outputs: spec.Outputs, Timeout: spec.Timeout,
		Stdout: stdout, Stderr: stderr, Log: logf,
	})
	_ = stdout.Close()
	_ = stderr.Close()
	return out, err
}

// runSecrets are the secrets written in $MANENT_SECRETS_DIR: the run's
// (or the dry run's) own, not the SSH login, which only manent uses.
func (cl *call) runSecrets() map[string]string {
	names := cl.spec.Secrets
	if cl.dryRun {
		names = cl.run.Secrets
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = cl.secrets[n]
	}
	return out
}
