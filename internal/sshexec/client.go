package sshexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Client is a lease of a pooled connection to one endpoint. Close ends
// the lease; the connection stays in the pool for the next.
//
// Its errors do not name the endpoint: the caller names the target it
// worked on, once.
//
// Every call that waits for the host is bounded by its context and, for
// Run and Upload, by Options.CommandTimeout. x/crypto/ssh cannot stop
// waiting for the answer to a session open or a request except by
// closing the connection, so a host that does not answer in time loses
// its whole connection: it is dropped from the pool, and the next
// command dials again.
type Client struct {
	p      *Pool
	c      *conn
	ep     Endpoint
	auth   Auth
	logf   func(string, ...any)
	reused bool
	closed bool
}

// Endpoint is what the client is connected to.
func (c *Client) Endpoint() Endpoint { return c.ep }

// Close ends the lease.
func (c *Client) Close() {
	if !c.closed {
		c.closed = true
		c.p.release(c.c)
	}
}

// Command is one command to run.
type Command struct {
	// Name is how logs and errors call it: a few words, never a secret.
	Name string
	// Line is what the login's shell runs; every value in it must be
	// quoted (Quote).
	Line string
	// Stdin, when set, is copied to the command's standard input.
	Stdin io.Reader
	// Output receives every line of the command's stdout and stderr
	// (without the newline) as it comes, under MaxLine and MaxOutput.
	Output func(s Stream, line string)
}

// Result is what a command that exited 0 leaves.
type Result struct {
	// Truncated: the output went over MaxOutput; the rest was dropped.
	Truncated bool
}

// ExitError is a command that ran and did not exit 0.
type ExitError struct {
	Host    string
	Command string
	// Code is the exit status; -1 when a signal ended the command.
	Code   int
	Signal string
	// Message is the command's last line on stderr, if any.
	Message string
}

// Error does not repeat Host: the caller names the target.
func (e *ExitError) Error() string {
	msg := ""
	if e.Message != "" {
		msg = ": " + e.Message
	}
	if e.Signal != "" {
		return fmt.Sprintf("command %q was killed by signal %s%s", e.Command, e.Signal, msg)
	}
	return fmt.Sprintf("command %q exited with status %d%s", e.Command, e.Code, msg)
}

// closeGrace is how long a host has to confirm the close of a session
// whose command was stopped (a timeout, a cancel) before its connection
// is dropped: a host that does not answer that is not answering at all.
const closeGrace = time.Second

// await runs fn, a call that waits for the host, and returns its error,
// or what ended ctx first. When ctx ends first the connection is
// dropped, which is what makes fn return (see Client).
func (c *Client) await(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		c.p.discard(c.c)
		return context.Cause(ctx)
	}
}

// withTimeout bounds ctx by the command timeout; the cause of its end
// says which bound it was.
func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.p.opts.CommandTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, c.p.opts.CommandTimeout, &timeoutError{c.p.opts.CommandTimeout})
}

// timeoutError is the end of plugins.ssh.command_timeout.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("timed out after %s (plugins.ssh.command_timeout)", e.after)
}

// stopped says why a command stopped when its context ended: the command
// timeout, the caller's deadline (a step's timeout) or a cancel. All are
// temporary errors: the same command may work when tried again.
func stopped(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	var te *timeoutError
	switch {
	case errors.As(cause, &te):
		return fmt.Errorf("command %q %w", name, cause)
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("command %q timed out: %w", name, cause)
	}
	return fmt.Errorf("command %q cancelled: %w", name, cause)
}

// session opens a session in a slot of the host. A pooled connection
// that turns out to be dead (the host dropped it while it was idle) is
// replaced once, at once: that is no failure of the command.
func (c *Client) session(ctx context.Context) (*ssh.Session, func(), error) {
	release, err := c.p.acquire(ctx, c.ep.Addr())
	if err != nil {
		return nil, nil, err
	}
	var s *ssh.Session
	err = c.await(ctx, func() error {
		var err error
		s, err = c.c.client.NewSession()
		return err
	})
	if err != nil && ctx.Err() != nil {
		release()
		return nil, nil, err
	}
	if err != nil && c.reused {
		c.reused = false
		c.p.discard(c.c)
		release()
		if err := c.redial(ctx); err != nil {
			return nil, nil, err
		}
		return c.session(ctx)
	}
	if err != nil {
		release()
		c.p.discard(c.c)
		return nil, nil, fmt.Errorf("open a session: %w", err)
	}
	return s, release, nil
}

// redial replaces the client's connection with a new one.
func (c *Client) redial(ctx context.Context) error {
	old := c.c
	nc, err := c.p.connect(ctx, c.ep, c.auth, c.logf, old.key)
	if err != nil {
		return err
	}
	c.p.release(old)
	c.c = nc
	return nil
}

// Run runs cmd and waits for it, within the command timeout and ctx. An
// *ExitError is a command that exited non-zero; a connection lost or a
// timeout is a plain error, the same command may work when tried again.
func (c *Client) Run(ctx context.Context, cmd Command) (Result, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	return c.run(ctx, cmd)
}

// run is Run within ctx, which the caller bounded.
func (c *Client) run(ctx context.Context, cmd Command) (Result, error) {
	s, release, err := c.session(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, stopped(ctx, cmd.Name)
		}
		return Result{}, err
	}
	defer release()
	defer func() { _ = s.Close() }() // closed already when the command ended
	var last string
	b := newBudget(func(st Stream, line string) {
		if st == Stderr && strings.TrimSpace(line) != "" {
			last = line
		}
		if cmd.Output != nil {
			cmd.Output(st, line)
		}
	})
	stdout, stderr := &lineWriter{stream: Stdout, b: b}, &lineWriter{stream: Stderr, b: b}
	s.Stdout, s.Stderr, s.Stdin = stdout, stderr, cmd.Stdin
	if err := c.await(ctx, func() error { return s.Start(cmd.Line) }); err != nil {
		if ctx.Err() != nil {
			return Result{}, stopped(ctx, cmd.Name)
		}
		c.p.discard(c.c)
		return Result{}, fmt.Errorf("the connection was lost before %q started: %w", cmd.Name, err)
	}
	var waited error
	done := make(chan struct{})
	go func() {
		waited = s.Wait()
		close(done)
	}()
	select {
	case <-done:
		err = waited
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGKILL) // best effort: sshd may not pass signals on
		_ = s.Close()             // ends Wait once the host confirms
		select {
		case <-done:
		case <-time.After(closeGrace):
			c.p.discard(c.c) // ends Wait: the channels go with the connection
			<-done
		}
		err = ctx.Err()
	}
	stdout.flush()
	stderr.flush()
	res := Result{Truncated: b.truncated()}
	if err == nil {
		return res, nil
	}
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case errors.As(err, &ee):
		code := ee.ExitStatus()
		if ee.Signal() != "" {
			code = -1
		}
		b.mu.Lock()
		msg := last
		b.mu.Unlock()
		return res, &ExitError{Host: c.ep.Addr(), Command: cmd.Name, Code: code, Signal: ee.Signal(), Message: msg}
	case ctx.Err() != nil:
		return res, stopped(ctx, cmd.Name)
	case errors.As(err, &missing), errors.Is(err, io.EOF):
		c.p.discard(c.c)
		return res, fmt.Errorf("the connection was lost while %q ran", cmd.Name)
	}
	return res, fmt.Errorf("%q: %w", cmd.Name, err)
}

// errNoSFTP is a host that refused the sftp subsystem.
var errNoSFTP = errors.New("no sftp subsystem")

// Upload writes src to the file remote (relative to the login's home, or
// absolute; its directory must exist), through sftp when the host has it
// and through the standard input of cat otherwise. It returns which. The
// command timeout bounds the whole transfer, as it bounds a command.
func (c *Client) Upload(ctx context.Context, src io.Reader, remote string) (string, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if !c.c.noSFTP.Load() {
		err := c.uploadSFTP(ctx, src, remote)
		if ctx.Err() != nil {
			return "sftp", stopped(ctx, "upload")
		}
		if !errors.Is(err, errNoSFTP) {
			return "sftp", err
		}
		c.c.noSFTP.Store(true)
	}
	_, err := c.run(ctx, Command{Name: "upload", Line: "cat > " + Quote(remote), Stdin: src})
	return "stdin", err
}

func (c *Client) uploadSFTP(ctx context.Context, src io.Reader, remote string) error {
	s, release, err := c.session(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer func() { _ = s.Close() }() // closed already by the sftp client
	// Nothing of src is read before the host accepts the subsystem, so
	// the fallback can still send all of it.
	if err := c.await(ctx, func() error { return s.RequestSubsystem("sftp") }); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return errNoSFTP
	}
	w, err := s.StdinPipe()
	if err != nil {
		return fmt.Errorf("sftp: %w", err)
	}
	r, err := s.StdoutPipe()
	if err != nil {
		return fmt.Errorf("sftp: %w", err)
	}
	// Closing the session alone would wait for the host to confirm: the
	// connection goes with it (see Client).
	stop := context.AfterFunc(ctx, func() { c.p.discard(c.c) })
	defer stop()
	cl, err := sftp.NewClientPipe(r, w)
	if err != nil {
		return fmt.Errorf("start sftp: %w", c.cause(ctx, err))
	}
	// Closing the client ends the subsystem; the slot is given back once
	// the host closed its side too, so that it never counts one session
	// more than the slot allows.
	defer func() {
		_ = cl.Close() // the file's Close below is what counts
		_ = s.Wait()   // the subsystem has no exit status to report
	}()
	f, err := cl.OpenFile(remote, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("sftp: create %s: %w", remote, c.cause(ctx, err))
	}
	if _, err := f.ReadFrom(src); err != nil {
		_ = f.Close() // the write's error is the one to report
		return fmt.Errorf("sftp: write %s: %w", remote, c.cause(ctx, err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sftp: close %s: %w", remote, c.cause(ctx, err))
	}
	return nil
}

// cause prefers the end of ctx to the closed pipe it caused.
func (c *Client) cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Quote quotes s for a POSIX shell: in single quotes, each single quote
// written as '\”. The shell reads the result as s, whatever s holds.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
