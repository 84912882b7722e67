package sshcommand

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/sshexec"
)

// DefaultSecretsDir is pipeline.custom.secrets_dir's default: on tmpfs,
// so that the secrets live in memory only.
const DefaultSecretsDir = "/dev/shm/manent"

// DefaultTimeout is a step's timeout when the request gives none.
const DefaultTimeout = 10 * time.Minute

// The bounds of a run besides the step's timeout.
const (
	// killAfter is timeout(1)'s -k: how long a command has between the
	// SIGTERM at the step's timeout and a SIGKILL.
	killAfter = 5 * time.Second
	// reportSlack is how long the host has, after timeout(1) must have
	// ended the command, to report its end before the connection is
	// given up for lost.
	reportSlack = 5 * time.Second
	// auxTimeout bounds each of the short commands and transfers around
	// the command: preparing, writing a file, reading the outputs.
	auxTimeout = 2 * time.Minute
	// removeTimeout bounds the removal of the directory after a run that
	// was cancelled: the secrets should go, but not hold the caller long.
	removeTimeout = 15 * time.Second
)

// Request is one attempt of a command step on one target.
type Request struct {
	// Client is connected to the target as the step's ssh.user (Connect).
	Client *sshexec.Client
	// Target is how errors and the log name the target; the client's
	// endpoint when empty.
	Target string
	// SecretsDir is pipeline.custom.secrets_dir (DefaultSecretsDir when
	// empty): an absolute path whose parent exists on the target.
	SecretsDir string
	// DeploymentID and Step name the directory of the step's attempts:
	// <SecretsDir>/<deploy>/<Step>/<random>, where <deploy> is the
	// deploy ID, shortened when it is too long to name a directory
	// (deployDir).
	DeploymentID, Step string
	// Argv is the rendered command, Argv[0] an absolute path.
	Argv []string
	// SHA256 is run.sha256 (hexadecimal), checked on the target before
	// the run; "" for none.
	SHA256 string
	// Env are the MANENT_* variables of the contract (Contract.Env);
	// Run adds MANENT_SECRETS_DIR and MANENT_OUTPUT.
	Env map[string]string
	// Secrets are the run's secrets by logical name: one 0600 file each in
	// $MANENT_SECRETS_DIR.
	Secrets map[string]string
	// Outputs are the declared outputs: the only keys $MANENT_OUTPUT may
	// set.
	Outputs map[string]deploy.OutputSpec
	// Timeout is the step's timeout (DefaultTimeout when 0): the command
	// is stopped on the target with timeout(1), where it has it. A
	// deadline of ctx that comes sooner shortens it, leaving time to
	// read the outputs and remove the directory.
	Timeout time.Duration
	// Stdout and Stderr receive the command's output, line by line (the
	// caller's masking writers); nil discards it.
	Stdout, Stderr io.Writer
	// Log, when set, receives what manent itself has to say in the deploy
	// log: no timeout(1) on the target, a directory left behind.
	Log func(format string, args ...any)
}

// ExitError is a command that exited with a status other than 0: 75 is
// temporary, any other permanent (Run wraps it in deploy.Permanent).
type ExitError struct {
	Program string
	Target  string
	Code    int
}

func (e *ExitError) Error() string {
	if e.Code == exitTemporary {
		return fmt.Sprintf("%s exited with status 75 on %s (EX_TEMPFAIL: a temporary failure)", e.Program, e.Target)
	}
	return fmt.Sprintf("%s exited with status %d on %s", e.Program, e.Code, e.Target)
}

// Run runs one attempt of the step on the target and returns its outputs.
// It removes the attempt's directory whatever happens, and the
// directories an earlier attempt left (a crash) before it starts.
//
// Its errors name the target and never hold a secret, a MANENT_* value or
// a line of the command's output. Temporary: exit 75 (*ExitError), the
// step's timeout, a connection lost, a command killed by a signal (a
// reboot, the OOM killer), a cancel of ctx. Permanent (deploy.IsPermanent):
// any other exit status (*ExitError), run.sha256 not matching, an output
// refused (*OutputError), a program or a secrets directory the target
// cannot use, a request that breaks the contract.
func Run(ctx context.Context, req Request) (map[string]string, error) {
	a, err := newAttempt(req)
	if err != nil {
		return nil, err
	}
	outputs, err := a.run(ctx)
	if !a.removed {
		a.remove(ctx)
	}
	return outputs, err
}

// attempt is one Run: its directory on the target and what the prepare
// script found there.
type attempt struct {
	req    Request
	target string
	deploy string // deployDir(req.DeploymentID)
	dir    string // <SecretsDir>/<deploy>/<step>/<random>
	// limit is how long the command may run (remoteLimit), fixed when
	// the attempt starts.
	limit   time.Duration
	timeout bool // timeout(1) is usable on the target
	removed bool
}

var (
	// pathPart is what the step, a secret and the deploy's directory may
	// be to name a directory or a file: never . or .., never a /.
	pathPart = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._@-]{0,127}$`)
	// deployID is what a deploy ID may be: pathPart's characters, of any
	// length (deployDir shortens a long one).
	deployID  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._@-]*$`)
	sha256Hex = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// The form of a long deploy ID's directory: its first characters, "~" and
// a hash of the whole ID, maxPathPart characters in all.
const (
	maxPathPart = 128
	hashDigits  = 32 // 128 bits: no two IDs share a directory by chance
	prefixChars = maxPathPart - 1 - hashDigits
)

// deployDir is the name of the directory of the deploy id on the targets:
// the ID itself, or, when it is longer than a directory name may be (the
// ticks of a schedule with a long name), its first characters, "~" and a
// hash of the whole ID. The ID may be read at a glance, and no ID is the
// short form of another, since none holds a "~". MANENT_DEPLOYMENT_ID
// remains the ID.
func deployDir(id string) string {
	if len(id) <= maxPathPart {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return id[:prefixChars] + "~" + hex.EncodeToString(sum[:])[:hashDigits]
}

func newAttempt(req Request) (*attempt, error) {
	if req.Client == nil {
		return nil, errors.New("no connection to the target")
	}
	a := &attempt{req: req, target: req.Target, deploy: deployDir(req.DeploymentID)}
	if a.target == "" {
		a.target = req.Client.Endpoint().String()
	}
	if a.req.SecretsDir == "" {
		a.req.SecretsDir = DefaultSecretsDir
	}
	if a.req.Timeout <= 0 {
		a.req.Timeout = DefaultTimeout
	}
	if err := a.check(); err != nil {
		return nil, deploy.Permanent(err)
	}
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		return nil, fmt.Errorf("name the attempt's directory: %w", err)
	}
	a.dir = path.Join(a.req.SecretsDir, a.deploy, req.Step, hex.EncodeToString(random))
	return a, nil
}

// check refuses a request that would not run as the contract says.
func (a *attempt) check() error {
	r := a.req
	switch {
	case !path.IsAbs(r.SecretsDir) || path.Clean(r.SecretsDir) != r.SecretsDir || r.SecretsDir == "/" || hasControl(r.SecretsDir):
		return fmt.Errorf("secrets_dir must be a clean absolute path other than /, without control characters")
	case !deployID.MatchString(r.DeploymentID):
		return fmt.Errorf("the deploy ID cannot name a directory")
	case !pathPart.MatchString(r.Step):
		return fmt.Errorf("the step name cannot name a directory")
	case len(r.Argv) == 0:
		return fmt.Errorf("no command to run")
	case !path.IsAbs(r.Argv[0]):
		return fmt.Errorf("the command must start with an absolute path")
	case r.SHA256 != "" && !sha256Hex.MatchString(r.SHA256):
		return fmt.Errorf("run.sha256 must be 64 hexadecimal digits")
	}
	for i, arg := range r.Argv {
		if strings.ContainsRune(arg, 0) {
			return fmt.Errorf("argument %d of the command holds a NUL byte, which no argument can hold", i)
		}
	}
	for name := range r.Secrets {
		if !pathPart.MatchString(name) {
			return fmt.Errorf("the secret name %q cannot name a file", name)
		}
	}
	return checkEnv(r.Env)
}

func (a *attempt) run(ctx context.Context) (map[string]string, error) {
	if err := a.prepare(ctx); err != nil {
		return nil, err
	}
	if err := a.upload(ctx); err != nil {
		return nil, err
	}
	if err := a.exec(ctx); err != nil {
		return nil, err
	}
	return a.finish(ctx)
}

func (a *attempt) logf(format string, args ...any) {
	if a.req.Log != nil {
		a.req.Log(format, args...)
	}
}

// line is a command line for /bin/sh -c script with its positional
// parameters: $0 is manent, every value quoted. The login's shell execs
// it, and the run script execs the command, so that the host reports a
// command killed by a signal as such, not as a shell's status 128+n.
func line(script string, args ...string) string {
	parts := make([]string, 0, len(args)+4)
	parts = append(parts, "exec", "/bin/sh", "-c", sshexec.Quote(script), "manent")
	for _, arg := range args {
		parts = append(parts, sshexec.Quote(arg))
	}
	return strings.Join(parts, " ")
}

// aux runs one of manent's own short scripts and returns its manent:
// lines and the others of its stdout; its stderr is only the reason of a
// refusal, which ExitError carries.
func (a *attempt) aux(ctx context.Context, name, script string, args ...string) (said, rest []string, err error) {
	ctx, cancel := context.WithTimeout(ctx, auxTimeout)
	defer cancel()
	var mu sync.Mutex
	_, err = a.req.Client.Run(ctx, sshexec.Command{Name: name, Line: line(script, args...),
		Output: func(s sshexec.Stream, l string) {
			if s != sshexec.Stdout {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if v, ok := strings.CutPrefix(l, "manent:"); ok {
				said = append(said, v)
			} else {
				rest = append(rest, l)
			}
		}})
	return said, rest, err
}

// prepare makes the attempt's directory, after removing the earlier
// attempts' and checking the program.
func (a *attempt) prepare(ctx context.Context) error {
	a.limit = time.Duration(seconds(a.remoteLimit(ctx))) * time.Second
	args := []string{a.req.SecretsDir, a.deploy, a.req.Step, path.Base(a.dir),
		strings.ToLower(a.req.SHA256), a.req.Argv[0]}
	args = append(args, sorted(a.req.Secrets)...)
	said, _, err := a.aux(ctx, "prepare", prepareScript, args...)
	var ee *sshexec.ExitError
	switch {
	case errors.As(err, &ee) && ee.Code == exitMismatch:
		return deploy.Permanentf("run.sha256 does not match %s on %s", a.req.Argv[0], a.target)
	case errors.As(err, &ee) && ee.Code == exitRefused:
		return deploy.Permanentf("prepare the secrets directory on %s: %s", a.target, ee.Message)
	case errors.As(err, &ee):
		return deploy.Permanentf("prepare the secrets directory on %s: /bin/sh exited with status %d: %s", a.target, ee.Code, ee.Message)
	case err != nil:
		return fmt.Errorf("prepare the secrets directory on %s: %w", a.target, err)
	}
	for _, s := range said {
		if s == "timeout" {
			a.timeout = true
		}
	}
	if !a.timeout {
		a.logf("%s: timeout(1) is not available: when the step times out, manent stops waiting, but the command may go on running there", a.target)
	}
	return nil
}

// upload writes the environment file and the secrets into the files
// prepare made, over the SSH channel.
func (a *attempt) upload(ctx context.Context) error {
	timeout, kill := 0, 0
	if a.timeout {
		timeout, kill = seconds(a.limit), seconds(killAfter)
	}
	files := []struct{ name, remote, content string }{
		{"the environment file", path.Join(a.dir, "env"), string(envFile(a.req.Env, timeout, kill))},
	}
	for _, name := range sorted(a.req.Secrets) {
		files = append(files, struct{ name, remote, content string }{"the secret " + name, path.Join(a.dir, "secrets", name), a.req.Secrets[name]})
	}
	for _, f := range files {
		uctx, cancel := context.WithTimeout(ctx, auxTimeout)
		_, err := a.req.Client.Upload(uctx, strings.NewReader(f.content), f.remote)
		cancel()
		if err != nil {
			// The transfer's errors name the remote file, never what it
			// was written with.
			return fmt.Errorf("write %s on %s: %w", f.name, a.target, err)
		}
	}
	return nil
}

// remoteLimit is how long the command may run: the step's timeout, or less
// when ctx ends sooner, so that the outputs can still be read and the
// directory removed.
func (a *attempt) remoteLimit(ctx context.Context) time.Duration {
	limit := a.req.Timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - killAfter - reportSlack; left < limit {
			limit = max(left, time.Second)
		}
	}
	return limit
}

// seconds rounds d up to whole seconds, as every timeout(1) reads them.
func seconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// exec runs the command and says how it ended.
func (a *attempt) exec(ctx context.Context) error {
	limit := a.limit
	local := limit
	if a.timeout {
		local += killAfter + reportSlack
	}
	ectx, cancel := context.WithTimeout(ctx, local)
	defer cancel()
	args := append([]string{a.dir}, a.req.Argv...)
	started := time.Now()
	_, err := a.req.Client.Run(ectx, sshexec.Command{Name: a.req.Argv[0], Line: line(runScript, args...),
		Output: func(s sshexec.Stream, l string) {
			w := a.req.Stdout
			if s == sshexec.Stderr {
				w = a.req.Stderr
			}
			if w != nil {
				_, _ = io.WriteString(w, l+"\n") // the log's writer keeps what it can
			}
		}})
	elapsed := time.Since(started)
	prog := a.req.Argv[0]
	var ee *sshexec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.Signal != "":
		return fmt.Errorf("%s was killed by signal %s on %s", prog, ee.Signal, a.target)
	case errors.As(err, &ee) && a.timeout && (ee.Code == exitTimedOut || ee.Code == exitTimedOutKil) && elapsed >= limit:
		return fmt.Errorf("%s timed out after %s on %s: timeout(1) stopped it", prog, limit, a.target)
	case errors.As(err, &ee) && ee.Code == exitTemporary:
		// Never ee.Message: it is the command's own stderr, unmasked.
		return &ExitError{Program: prog, Target: a.target, Code: ee.Code}
	case errors.As(err, &ee):
		return deploy.Permanent(&ExitError{Program: prog, Target: a.target, Code: ee.Code})
	case ctx.Err() == nil && errors.Is(ectx.Err(), context.DeadlineExceeded), errors.Is(ctx.Err(), context.DeadlineExceeded):
		if a.timeout {
			return fmt.Errorf("%s timed out after %s on %s, and the host did not report its end", prog, limit, a.target)
		}
		return fmt.Errorf("%s timed out after %s on %s (no timeout(1) there: it may still be running)", prog, limit, a.target)
	case ctx.Err() != nil:
		return fmt.Errorf("%s on %s: %w", prog, a.target, context.Cause(ctx))
	}
	return fmt.Errorf("run %s on %s: %w", prog, a.target, err)
}

// finish reads the outputs and removes the directory, in one session.
func (a *attempt) finish(ctx context.Context) (map[string]string, error) {
	said, hexLines, err := a.aux(ctx, "read the outputs", finishScript, a.dir, "1")
	if err != nil {
		return nil, fmt.Errorf("read the outputs on %s: %w", a.target, err)
	}
	a.removed = true
	size := -1
	for _, s := range said {
		switch s {
		case "missing":
			return nil, deploy.Permanent(&OutputError{"the file is gone: the command removed it"})
		case "symlink":
			return nil, deploy.Permanent(&OutputError{"the command replaced the file with a symbolic link"})
		default:
			if v, ok := strings.CutPrefix(s, "size "); ok {
				_, _ = fmt.Sscanf(v, "%d", &size)
			}
		}
	}
	if size < 0 {
		return nil, fmt.Errorf("read the outputs on %s: the host did not say the size of the file", a.target)
	}
	if size > MaxOutputBytes {
		return nil, deploy.Permanent(&OutputError{fmt.Sprintf("holds %d bytes, more than %d", size, MaxOutputBytes)})
	}
	data, err := decodeHex(hexLines)
	if err != nil || len(data) != size {
		return nil, fmt.Errorf("read the outputs on %s: the file changed while it was read", a.target)
	}
	outputs, err := parseOutputs(data, a.req.Outputs, a.req.Secrets)
	if err != nil {
		return nil, deploy.Permanent(err)
	}
	return outputs, nil
}

// remove removes the attempt's directory, even when ctx has ended. A
// failure leaves it for the next attempt, which removes it first.
func (a *attempt) remove(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if _, _, err := a.aux(ctx, "remove the secrets directory", finishScript, a.dir, "0"); err != nil {
		a.logf("%s: the directory %s could not be removed (%v): the next attempt of the step there removes it", a.target, a.dir, err)
	}
	a.removed = true
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
