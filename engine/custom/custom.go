package custom

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/mask"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/sshexec"
)

// AuditAction is the action of the audit entry of every operation of a
// custom step: its runs, failed attempts, dry runs and skips.
const AuditAction = "step.custom.run"

// The outcomes an audit entry records. started is written before the
// operation's first side effect (a request sent, a connection to a
// target), so that a worker killed in the middle leaves a record of what
// it began; the entry of its end follows.
const (
	OutcomeStarted = "started"
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
	// HTTP is the client of HTTP steps; when nil, one of safehttp's rules
	// trusting RootCAs (the system's when nil). Its requests are bounded by
	// the step's timeout only: a shared client's deadline would cut a long
	// request that the step allows, and a retry would send it again.
	// Redirects are refused whatever it says.
	HTTP    *http.Client
	RootCAs *x509.CertPool
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
	if o.HTTP == nil {
		o.HTTP = safehttp.New(safehttp.Options{Timeout: config.MaxStepTimeout, RootCAs: o.RootCAs})
	}
	k := &kinds{o: o}
	r.Register(deploy.StepTypeHTTP, httpKind{k})
	r.Register(deploy.StepTypeCommand, commandKind{k})
}

// call is one operation of a custom step, prepared: what its run or dry
// run does, with what, and where its lines go.
type call struct {
	k      *kinds
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
	// urls are the URLs the operation rendered: its audit entry names
	// their hosts only (see auditText).
	urls []*url.URL
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
// skipped, and writes its audit entry whatever the outcome (do writes the
// one it starts with, cl.started). Every error it returns is masked: the
// engine shows its text in the step's record and log.
func (k *kinds) operate(ctx context.Context, c *steps.Context, dryRun bool, skipFor func(context.Context, *call) (*skip, error), do work) (steps.Result, error) {
	cl, sk, err := k.prepare(ctx, c, dryRun, skipFor)
	if err == nil && sk != nil {
		cl.logf("info", "%s", sk.line)
		_ = k.audit(ctx, cl, OutcomeSkipped, sk.reason, nil)
		return steps.Result{Output: map[string]string{"dry_run": "skipped", "reason": sk.reason}}, nil
	}
	var out map[string]string
	if err == nil {
		out, err = do(ctx, cl)
	}
	if err == nil {
		err = cl.clearOutputs(out)
	}
	if err != nil {
		_ = k.audit(ctx, cl, OutcomeFailed, "", err)
		return steps.Result{}, cl.masked(err)
	}
	_ = k.audit(ctx, cl, OutcomeSuccess, "", nil)
	return steps.Result{Output: out}, nil
}

// started writes the operation's started entry, before its first side
// effect: an operation the audit log cannot record does not act, and its
// attempt fails, temporarily (the entry of its failure may be written
// when the database is back).
func (cl *call) started(ctx context.Context) error {
	if err := cl.k.audit(ctx, cl, OutcomeStarted, "", nil); err != nil {
		return fmt.Errorf("step %s: the audit log cannot record the operation, which does not start without its entry: %w",
			cl.c.Key.Step, err)
	}
	return nil
}

// clearOutputs refuses outputs that hold a secret of the operation, in
// any form its log masks (an API that echoes its token, a script that
// writes a password): outputs are stored, shown to deployment.read,
// handed to later steps and exported to chains, never masked. The error
// names the outputs, never a value.
func (cl *call) clearOutputs(out map[string]string) error {
	if cl.mask == nil {
		return nil
	}
	var bad []string
	for _, key := range sortedKeys(out) {
		if cl.mask.String(out[key]) != out[key] {
			bad = append(bad, key)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return deploy.Permanentf("step %s: output %s holds a secret of the step (or a form of one the log masks): "+
		"outputs are stored and shown as they are, so the step fails", cl.c.Key.Step, strings.Join(bad, ", "))
}

// prepare checks the step's specification, reads the values of its
// placeholders and resolves its secrets. A dry run of a step without a
// dry_run section, or one skipFor skips, is a skip. The call it returns is
// never nil, so that a failure is audited with what was known.
func (k *kinds) prepare(ctx context.Context, c *steps.Context, dryRun bool, skipFor func(context.Context, *call) (*skip, error)) (*call, *skip, error) {
	cl := &call{k: k, c: c, spec: c.Step.Spec, dryRun: dryRun, targets: targetNames(c.Effective.Targets)}
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
		// Refused at start-up; a plan stored before that still may.
		for _, n := range cl.run.Secrets {
			if slices.Contains(cl.spec.Secrets, n) {
				return cl, nil, deploy.Permanentf("step %s: dry_run.secrets lists %s, a secret of the run: a dry run never receives those", c.Key.Step, n)
			}
		}
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
	names := cl.spec.OperationSecrets(cl.dryRun)
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
// server's log (the work is done: failing it now would run it again) and
// in the error it returns (the started entry's caller does not act).
func (k *kinds) audit(ctx context.Context, cl *call, outcome, reason string, failure error) error {
	if k.o.Audit == nil {
		return nil
	}
	c := cl.c
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
		details["error"] = deploy.EscapeText(cl.auditText(failure))
		details["permanent"] = deploy.IsPermanent(failure)
	}
	e := deploy.AuditEntry{Time: time.Now().UTC(), Actor: c.Job.Requester, Action: AuditAction, Target: c.Job.ID, Details: details}
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		err := k.o.Audit.AppendAudit(ctx, e)
		if err == nil {
			return nil
		}
		if !deploy.Unavailable(err) || ctx.Err() != nil {
			k.o.Log.Error("the audit entry of a custom step could not be written", "deployment", c.Job.ID,
				"step", c.Key.Name(), "outcome", outcome, "error", err)
			return err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

// auditText is the text of a failure as its audit entry holds it: masked,
// as the step's record shows it, and with less of the specification than
// the record, which the log rule allows to name a request's host and path
// and the program that ran. The audit log outlives the deploy and is read
// by those who audit, not by those who deploy: it keeps the method, the
// host and the status of a request (never its path, where the parameters
// of the deploy stand), and says "the program" for command[0].
func (cl *call) auditText(err error) string {
	text := err.Error()
	for _, u := range cl.urls {
		text = strings.ReplaceAll(text, shownURL(u), u.Host)
	}
	if cl.run != nil && len(cl.run.Command) > 0 && cl.run.Command[0] != "" {
		text = strings.ReplaceAll(text, cl.run.Command[0], "the program")
	}
	if cl.mask != nil {
		text = cl.mask.String(text)
	}
	return text
}

// AuditRefusal appends the step.custom.run entry of a specification the
// engine refused on a step that is not a custom one (a stored plan that
// gives a standard step a specification): a refusal is audited wherever
// it is found, as the kinds audit theirs.
func AuditRefusal(ctx context.Context, o Options, c *steps.Context, refusal error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	k := &kinds{o: o}
	_ = k.audit(ctx, &call{k: k, c: c, targets: targetNames(c.Effective.Targets)}, OutcomeFailed, "", refusal)
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
