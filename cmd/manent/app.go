package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

// app is one run of the CLI: its streams, environment and global flags.
// Tests build one with buffers and a fixed environment.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// live is true when stderr is a terminal that can redraw progress.
	live bool
	// terminal is stderr as it is, without the escaping of run: the live
	// progress writes its cursor movements there.
	terminal io.Writer
	// width is the terminal's width in columns (0: unknown).
	width int
	now   func() time.Time

	server string
	token  string
	output string
	format format
	// started is set when a command's RunE begins: an error before it is a
	// usage error (unknown command, bad flag, missing argument).
	started bool
	// clientOptions are added to every client (tests shorten timeouts).
	clientOptions []client.Option

	// loginHTTP calls the identity provider (nil: a default client).
	loginHTTP *http.Client
	// sleep waits between the polls of manent login (nil: a real wait);
	// openBrowser opens an address (nil: the platform's opener).
	sleep       func(ctx context.Context, d time.Duration) error
	openBrowser func(url string) error
	// loginNow is the clock of the sign-in flows (nil: time.Now); not now,
	// which tests fix in the past for what the CLI prints.
	loginNow func() time.Time
	// fromLogin is set when the token is the stored login's; refreshed
	// are the tokens its refreshes gave during the run (redacted too).
	fromLogin   bool
	tokenSource func(context.Context) (string, error)
	refreshedMu sync.Mutex
	refreshed   []string
}

const (
	envServer = "MANENT_SERVER"
	envToken  = "MANENT_TOKEN"
)

// run executes the CLI with args and returns the exit code. Everything
// it prints goes through a terminalWriter; the live progress alone writes
// its own cursor movements to the terminal, and escapes what it shows.
func (a *app) run(ctx context.Context, args []string) int {
	out, errOut := newTerminalWriter(a.stdout), newTerminalWriter(a.stderr)
	a.terminal = a.stderr
	a.stdout, a.stderr = out, errOut
	// A character cut at the very end is printed escaped; a failed write
	// of it changes no outcome.
	defer func() { _ = out.Flush(); _ = errOut.Flush() }()
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if !a.started {
		var ex *exitError
		if !errors.As(err, &ex) {
			err = &usageError{err: err}
		}
	}
	msg, code := humanize(err)
	if msg != "" {
		// The exit code carries the outcome: if stderr is gone there is
		// no one left to tell, so a failed write changes nothing.
		_, _ = fmt.Fprintln(a.stderr, a.redact("manent: "+msg))
	}
	return code
}

// redact masks the token in anything printed, whatever produced it, and
// the tokens a refresh of the stored login gave since. An identity
// token:<name> is left alone: a token may be spelled like its own name
// (the demo's are), and the name is not a secret.
func (a *app) redact(s string) string {
	a.refreshedMu.Lock()
	tokens := append([]string{a.token}, a.refreshed...)
	a.refreshedMu.Unlock()
	for _, t := range tokens {
		s = redactToken(s, t)
	}
	return s
}

func redactToken(s, token string) string {
	if len(token) < 4 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, token)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if strings.HasSuffix(s[:i], "token:") {
			b.WriteString(token)
		} else {
			b.WriteString("********")
		}
		s = s[i+len(token):]
	}
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "manent",
		Short: "Deploy with manent and follow deploys from the command line",
		Long: `manent submits deploy descriptors to a manent server and follows them.

Exit codes: 0 success, 1 the deploy did not succeed (or another error),
2 the request was refused (invalid descriptor, 422, policy, not found, bad usage),
3 authentication or permission error, 4 server unreachable,
124 --timeout elapsed while following (the deploy goes on).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.resolveGlobals(cmd)
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	pf.StringVar(&a.server, "server", client.DefaultServer, "manent server URL (env "+envServer+")")
	pf.StringVar(&a.token, "token", "", "API token (env "+envToken+")")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table, json or yaml")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })

	root.AddCommand(
		a.deploymentSubmitCmd(),
		a.deploymentValidateCmd(),
		a.deploymentGetCmd(),
		a.stepListCmd(),
		a.logListCmd(),
		a.deploymentListCmd(),
		a.activityListCmd(),
		a.deploymentCancelCmd(),
		a.deploymentApproveCmd(),
		a.deploymentRejectCmd(),
		a.approvalListCmd(),
		a.inventoryListCmd(),
		a.auditCmd(),
		a.doraGetCmd(),
		a.freezeListCmd(),
		a.releaseCmd(),
		a.scheduleCmd(),
		a.rollbackCmd(),
		a.deploymentPromoteCmd(),
		a.deploymentRedeployCmd(),
		a.rolloutCmd(),
		a.callbacksCmd(),
		a.viewerGetCmd(),
		a.loginCmd(),
		a.logoutCmd(),
		a.versionGetCmd(),
	)
	return root
}

// resolveGlobals applies the environment under the flags: a flag given on
// the command line wins, then the environment, then the default. The token
// never appears as a flag default, so help cannot print it.
func (a *app) resolveGlobals(cmd *cobra.Command) error {
	if !cmd.Flags().Changed("server") {
		if v := strings.TrimSpace(a.getenv(envServer)); v != "" {
			a.server = v
		}
	}
	if !cmd.Flags().Changed("token") {
		a.token = strings.TrimSpace(a.getenv(envToken))
	}
	f, err := parseFormat(a.output)
	if err != nil {
		return &usageError{err: err}
	}
	a.format = f
	if a.token == "" && cmd.Annotations[annotationNoLogin] == "" {
		// The stored login, when MANENT_TOKEN and --token say nothing. Its
		// errors are the command's own, not usage errors.
		tok, err := a.storedLogin(cmd.Context())
		if err != nil {
			a.started = true
			return err
		}
		a.token = tok
	}
	return nil
}

// runE marks the start of a command so its errors are not taken for usage
// errors.
func (a *app) runE(f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.started = true
		return f(cmd, args)
	}
}

func (a *app) client() *client.Client {
	return client.New(a.server, a.token, a.clientOptionsAll()...)
}

// progressf writes a human message to stderr (never to stdout, which holds
// the data a script reads), as one line: what it quotes of the server is
// escaped. A failed write is ignored: the message is for a person
// watching, and the command's result does not depend on it.
func (a *app) progressf(format string, args ...any) {
	_, _ = fmt.Fprintln(a.stderr, deploy.EscapeText(fmt.Sprintf(format, args...)))
}

// exactArgs is cobra.ExactArgs with a message that names the argument.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return &usageError{err: fmt.Errorf("expected %s, got %d argument(s)", strings.Join(names, " "), len(args))}
		}
		return nil
	}
}

func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageError{err: fmt.Errorf("unexpected argument %q", args[0])}
	}
	return nil
}
