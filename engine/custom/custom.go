package custom

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/mask"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/sshexec"
)

// AuditAction is the action of the audit entry of every operation of a
// custom step: its runs, failed attempts, dry runs and skips.
const AuditAction = "step.custom.run"

// The outcomes an audit entry records.
const (
	OutcomeSuccess = "success"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped"
)

// Verifier checks, before every attempt, that a planned step's
// specification is the one its plan captured (hash, signature) and is not
// revoked; its errors are permanent.
type Verifier interface {
	Verify(step deploy.PlannedStep) error
}

// Options are what the custom kinds share in a process.
type Options struct {
	// Audit receives the step.custom.run entries.
	Audit deploy.AuditLog
	// HTTP is the client of HTTP steps; the steps' Env.HTTP (safehttp's
	// rules) when nil. Redirects are refused whatever it says.
	HTTP *http.Client
	// SSH is the pool of command steps' connections, checking host keys
	// against pipeline.custom.known_hosts.
	SSH *sshexec.Pool
	// Verify checks the specification before every attempt; nil is the
	// keyring of the process (steps.Env.Specs: pipeline.custom's keys and
	// revoked_specs).
	Verify Verifier
	// Log is the server's log, for what a deploy's readers must not see.
	Log *slog.Logger
}

// kinds is what the http and command kinds share.
type kinds struct{ o Options }

// Register adds the kinds http and command to r.
func Register(r *steps.Registry, o Options) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	k := &kinds{o: o}
	r.Register(deploy.StepTypeHTTP, httpKind{k})
	r.Register(deploy.StepTypeCommand, commandKind{k})
}

// call is one operation of a custom step, prepared: what its run or dry
// run does, with what, and where its lines go.
type call struct {
	c      *steps.Context
	spec   *deploy.CustomSpec
	run    *deploy.CustomRun
	dryRun bool
	values placeholder.Values
	// secrets are the operation's own, by logical name: run's secrets for a
	// run, dry_run.secrets for a dry run, and the SSH login of a command.
	secrets map[string]string
	mask    *mask.Masker
	// targets are what the audit entry names: the targets the operation
	// acted on or for.
	targets []string
}

// logf writes a line to the deploy log, masked.
func (cl *call) logf(level, format string, args ...any) {
	if cl.c.Log == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if cl.mask != nil {
		msg = cl.mask.String(msg)
	}
	cl.c.Log(level, "%s", msg)
}

// work is what a kind does once its call is prepared: the step's outputs.
type work func(ctx context.Context, cl *call) (map[string]string, error)

// skip is why an operation does nothing, for a dry run: its output, and
// the line of the log that says so.
type skip struct {
	reason string
	line   string
}

// operate prepares the operation of c, runs do unless the dry run is
// skipped, and writes its audit entry whatever the outcome. Every error it
// returns is masked: the engine shows its text in the step's record and log.
func (k *kinds) operate(ctx context.Context, c *steps.Context, dryRun bool, skipFor func(context.Context, *call) (*skip, error), do work) (steps.Result, error) {
	cl, sk, err := k.prepare(ctx, c, dryRun, skipFor)
	if err == nil && sk != nil {
		cl.logf("info", "%s", sk.line)
		k.audit(ctx, cl, c, OutcomeSkipped, sk.reason, nil)
		return steps.Result{Output: map[string]string{"dry_run": "skipped", "reason": sk.reason}}, nil
	}
	var out map[string]string
	if err == nil {
		out, err = do(ctx, cl)
	}
	if err != nil {
		err = cl.masked(err)
		k.audit(ctx, cl, c, OutcomeFailed, "", err)
		return steps.Result{}, err
	}
	k.audit(ctx, cl, c, OutcomeSuccess, "", nil)
	return steps.Result{Output: out}, nil
}

// prepare checks the step's specification, reads the values of its
// placeholders and resolves its secrets. A dry run of a step without a
// dry_run section, or one skipFor skips, is a skip. The call it returns is
// never nil, so that a failure is audited with what was known.
func (k *kinds) prepare(ctx context.Context, c *steps.Context, dryRun bool, skipFor func(context.Context, *call) (*skip, error)) (*call, *skip, error) {
	cl := &call{c: c, spec: c.Step.Spec, dryRun: dryRun, targets: targetNames(c.Effective.Targets)}
	if cl.spec == nil {
		return cl, nil, deploy.Permanentf("step %s: the plan holds no specification of this custom step", c.Key.Step)
	}
	if err := k.verify(c); err != nil {
		return cl, nil, err
	}
	cl.run = &cl.spec.Run
	if dryRun {
		if cl.spec.DryRun == nil {
			return cl, &skip{reason: "no dry_run section",
				line: "dry run: skipped, the step has no dry_run section (only a step with one runs in a dry run)"}, nil
		}
		cl.run = cl.spec.DryRun
	}
	if skipFor != nil {
		sk, err := skipFor(ctx, cl)
		if err != nil || sk != nil {
			return cl, sk, err
		}
	}
	v, err := values(c, cl.spec, dryRun)
	if err != nil {
		return cl, nil, err
	}
	cl.values = v
	if cl.secrets, err = k.secrets(ctx, c, cl); err != nil {
		return cl, nil, err
	}
	if cl.mask, err = mask.New(cl.secrets); err != nil {
		return cl, nil, deploy.Permanent(fmt.Errorf("step %s: %w", c.Key.Step, err))
	}
	return cl, nil, nil
}

// verify checks the specification with Options.Verify, or else with the
// keyring of the process (Env.Specs): a refusal is permanent.
func (k *kinds) verify(c *steps.Context) error {
	var err error
	switch {
	case k.o.Verify != nil:
		err = k.o.Verify.Verify(c.Step)
	case c.Env != nil:
		err = c.Env.Specs.Verify(c.Step)
	}
	if err != nil {
		return deploy.Permanent(err)
	}
	return nil
}

// values are what the placeholders of the operation stand for. The
// parameters are resolved against the specification again: a plan from
// before a change of the environment configuration must still hold to it.
func values(c *steps.Context, spec *deploy.CustomSpec, dryRun bool) (placeholder.Values, error) {
	e := c.Effective
	if err := placeholder.CheckVersion(e.Artifact.Version); err != nil {
		return placeholder.Values{}, deploy.Permanent(fmt.Errorf("step %s: %w", c.Key.Step, err))
	}
	params, perrs := spec.ResolveParams(e.StepParams[spec.Name])
	if len(perrs) > 0 {
		errs := make([]error, len(perrs))
		for i, pe := range perrs {
			errs[i] = fmt.Errorf("parameter %s %s", pe.Name, pe.Message)
		}
		return placeholder.Values{}, deploy.Permanent(fmt.Errorf("step %s: %w", c.Key.Step, errors.Join(errs...)))
	}
	return placeholder.Values{
		Application: e.Application, Environment: e.Environment, Version: e.Artifact.Version, Artifact: e.Artifact.Name,
		DeploymentID: c.Job.ID, SHA256: c.SHA256, DryRun: dryRun, Params: params, Outputs: c.Outputs,
	}, nil
}

// secrets resolves the operation's secrets by their logical names: those
// of the run, or only the dry run's own, and a command's SSH login. An
// empty secret is refused: it would log in as nobody, or authenticate
// with nothing.
func (k *kinds) secrets(ctx context.Context, c *steps.Context, cl *call) (map[string]string, error) {
	names := cl.spec.Secrets
	if cl.dryRun {
		names = cl.run.Secrets
	}
	names = slices.Clone(names)
	if s := cl.spec.SSH; s != nil {
		for _, n := range []string{s.KeySecret, s.PasswordSecret} {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		v, err := c.Secret(ctx, name)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, deploy.Permanentf("step %s: secret %s is empty", c.Key.Step, name)
		}
		out[name] = v
	}
	return out, nil
}

// secret is one of the operation's secrets: a permanent error when the
// operation does not receive it (a dry run only has its own).
func (cl *call) secret(name string) (string, error) {
	v, ok := cl.secrets[name]
	if !ok {
		which := "secrets"
		if cl.dryRun {
			which = "dry_run.secrets"
		}
		return "", deploy.Permanentf("step %s: secret %s is not one of the step's %s", cl.c.Key.Step, name, which)
	}
	return v, nil
}

// masked is err with its text masked; it wraps err, so that permanence
// and the engine's tests of it (errors.Is, errors.As) hold.
func (cl *call) masked(err error) error {
	if cl.mask == nil {
		return err
	}
	msg := cl.mask.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &maskedError{msg: msg, err: err}
}

type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// audit appends the operation's step.custom.run entry: who requested the
// deploy, the operation, the specification's hash, the targets and the
// outcome; never the outputs nor a value of a secret. The entry is the
// record that the operation happened: a database that is away is waited
// for as long as the operation may last, and only then given up, on the
// server's log (the work is done: failing it now would run it again).
func (k *kinds) audit(ctx context.Context, cl *call, c *steps.Context, outcome, reason string, failure error) {
	if k.o.Audit == nil {
		return
	}
	details := map[string]any{
		"step": c.Key.Step, "operation": c.Key.Name(), "type": c.Step.Type, "spec_hash": c.Step.SpecHash,
		"targets": cl.targets, "outcome": outcome, "dry_run": cl.dryRun, "attempt": c.Attempt,
	}
	if c.Key.Pass != 0 || c.Key.Batch != 0 {
		details["pass"], details["batch"] = c.Key.Pass, c.Key.Batch
	}
	if reason != "" {
		details["reason"] = reason
	}
	if failure != nil {
		details["error"] = deploy.EscapeText(failure.Error())
		details["permanent"] = deploy.IsPermanent(failure)
	}
	e := deploy.AuditEntry{Time: time.Now().UTC(), Actor: c.Job.Requester, Action: AuditAction, Target: c.Job.ID, Details: details}
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := k.o.Audit.AppendAudit(ctx, e)
		if err == nil {
			return
		}
		if !deploy.Unavailable(err) || ctx.Err() != nil {
			k.o.Log.Error("the audit entry of a custom step could not be written", "deployment", c.Job.ID,
				"step", c.Key.Name(), "outcome", outcome, "error", err)
			return
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

func targetNames(ts []deploy.Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name()
	}
	return out
}

// idempotencyKey is the key of the operation: <deploy>:<step> for a step
// that runs once per deploy, the engine's key (with the pass, batch and
// kind) for one that runs once per batch of a rollout. It is the same on
// every attempt and after a crash, since it depends only on the plan.
func idempotencyKey(c *steps.Context) string {
	k := c.Key
	if k.Pass == 0 && k.Batch == 0 && k.Target == "" {
		return c.Job.ID + ":" + k.Step
	}
	return k.IdempotencyKey(c.Job.ID)
}
