package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/oidc/login"
)

// Ways manent login signs in.
const (
	flowAuto   = "auto"
	flowDevice = "device"
	flowCode   = "code"
)

// codeFlowTimeout bounds the wait for the browser to come back to the
// loopback callback.
const codeFlowTimeout = 10 * time.Minute

// annotationNoLogin marks the commands that never use the stored login.
const annotationNoLogin = "manent/no-stored-login"

func (a *app) loginCmd() *cobra.Command {
	var flow string
	var browser, insecure bool
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign in with the server's identity provider (single sign-on)",
		Long: `login signs in with the identity provider of the server's auth.oidc and stores the tokens
for this server, so that later commands need no MANENT_TOKEN (which, like --token, still wins).

It uses the device authorization grant when the provider has one: it prints an address of the
provider and a code to type there, from any browser (even on another machine). Otherwise, or with
--flow code, it prints an address to open in a browser on this machine, which comes back to the CLI
on 127.0.0.1. --browser opens the address itself. In auto mode, a provider whose device page is
on another host than its issuer (Microsoft Entra ID, Google) signs in with the browser instead.

A server reached over plain http:// is refused unless it is on this machine or --insecure is
given: the sign-in's tokens would cross the network in the clear. The identity provider the server
names must be https (http only on this machine), whatever --insecure says.

The tokens are kept in $XDG_CONFIG_HOME/manent (~/.config/manent), readable by you alone, and are
refreshed when they expire. manent logout removes them.`,
		Args:        noArgs,
		Annotations: map[string]string{annotationNoLogin: "true"},
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			if flow != flowAuto && flow != flowDevice && flow != flowCode {
				return &usageError{err: fmt.Errorf("--flow must be auto, device or code, not %q", flow)}
			}
			return a.login(cmd.Context(), flow, browser, insecure)
		}),
	}
	cmd.Flags().StringVar(&flow, "flow", flowAuto, "how to sign in: auto (device when the provider has it), device, or code (a browser on this machine)")
	cmd.Flags().BoolVar(&browser, "browser", false, "open the sign-in address in a browser")
	cmd.Flags().BoolVar(&insecure, "insecure", false, "allow a server on another machine over plain http:// (tokens in the clear)")
	return cmd
}

func (a *app) login(ctx context.Context, flow string, browser, insecure bool) error {
	store, err := a.loginStore()
	if err != nil {
		return err
	}
	c := client.New(a.server, "", a.clientOptionsAll()...)
	if err := plainHTTPProblem(c.BaseURL(), insecure); err != nil {
		return err
	}
	settings, err := c.LoginSettings(ctx)
	if err != nil {
		return err
	}
	prov, err := login.Discover(ctx, *settings, a.loginHTTP, a.loginNow)
	if err != nil {
		return loginError(err)
	}
	auto := flow == flowAuto
	if auto {
		flow = flowCode
		if prov.HasDeviceFlow() {
			flow = flowDevice
		}
	}
	issuerHost := hostOf(prov.Issuer())
	f := login.Flow{Sleep: a.sleep, Prompt: func(p login.Prompt) error { return a.showPrompt(flow, issuerHost, p, browser) }}
	var tok *login.Tokens
	if flow == flowDevice {
		if !prov.HasDeviceFlow() {
			return &exitError{code: exitRefused, msg: fmt.Sprintf("the identity provider %s has no device authorization grant: use manent login --flow code", deploy.EscapeText(prov.Issuer()))}
		}
		tok, err = prov.Device(ctx, f)
		// Entra and Google have their device page on another host than
		// their issuer: never shown (it could be a look-alike), but in auto
		// mode the browser flow, whose address is the issuer's own, works.
		var host *login.VerificationHostError
		if auto && errors.As(err, &host) {
			a.progressf("The identity provider's device sign-in page is on %s, not on the issuer's host %s: signing in with a browser on this machine instead (--flow code).",
				deploy.EscapeText(host.URLHost), deploy.EscapeText(host.IssuerHost))
			flow = flowCode
		}
	}
	if flow == flowCode {
		wait, cancel := context.WithTimeout(ctx, codeFlowTimeout)
		tok, err = prov.AuthCode(wait, f)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = &exitError{code: exitAuth, msg: "no answer from the browser within 10 minutes: run manent login again"}
		}
	}
	if err != nil {
		return loginError(err)
	}
	tok.Server = c.BaseURL()
	a.token = tok.Bearer() // redacted from anything printed from now on
	// The server says who the tokens make the user before they are kept: a
	// provider whose tokens the server refuses (an audience missing from
	// auth.oidc.audiences) stores nothing.
	v, err := client.New(a.server, tok.Bearer(), a.clientOptionsAll()...).Viewer(ctx)
	if err != nil {
		var api *client.APIError
		if errors.As(err, &api) && api.Code == deploy.EUNAUTHENTICATED {
			return &exitError{code: exitAuth, msg: "the server refused the tokens of the sign-in (" + deploy.EscapeText(api.Message) +
				"): its auth.oidc.audiences may lack the audience of the provider's tokens; nothing was stored"}
		}
		return err
	}
	if err := store.Save(tok); err != nil {
		return err
	}
	view := viewerView{Subject: v.Subject, Groups: nonNilStrings(v.Groups), Server: c.Server(), Credentials: credentialsLogin}
	a.progressf("Signed in to %s as %s%s.", c.Server(), v.Subject, groupsSuffix(view.Groups))
	if a.getenv(envToken) != "" {
		a.progressf("Note: %s is set, and wins over this sign-in until it is unset.", envToken)
	}
	if a.format == formatTable {
		return nil
	}
	return a.emit(view, nil)
}

func groupsSuffix(groups []string) string {
	if len(groups) == 0 {
		return ""
	}
	return " (groups " + strings.Join(groups, ", ") + ")"
}

// plainHTTPProblem refuses to sign in to a server on another machine over
// plain http unless insecure: the tokens of the sign-in, and the issuer the
// CLI is told to trust, would cross the network in the clear.
func plainHTTPProblem(server string, insecure bool) error {
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "http" || insecure || login.Loopback(u.Hostname()) {
		return nil // an unusable address is the client's to report
	}
	return &exitError{code: exitRefused, msg: fmt.Sprintf("refused: %s is plain http:// on another machine, so the sign-in's tokens would cross "+
		"the network in the clear: use its https:// address, or --insecure if you accept that", deploy.EscapeText(server))}
}

// hostOf is the host of an issuer URL, for the prompt: the user sees
// whose page they are asked to sign in at.
func hostOf(issuer string) string {
	if u, err := url.Parse(issuer); err == nil && u.Host != "" {
		return deploy.EscapeText(u.Host)
	}
	return deploy.EscapeText(issuer)
}

// showPrompt tells the user what to do, on stderr; only addresses on the
// issuer's host get here (login checks them first).
func (a *app) showPrompt(flow, issuerHost string, p login.Prompt, browser bool) error {
	open := p.URL
	a.progressf("The server's identity provider is %s.", issuerHost)
	if flow == flowDevice {
		a.progressf("To sign in, open %s and enter the code %s", p.URL, p.UserCode)
		if p.CompleteURL != "" {
			a.progressf("(or open %s, which holds the code)", p.CompleteURL)
			open = p.CompleteURL
		}
		a.progressf("Waiting for the sign-in to be approved (the code expires at %s)...", p.Expires.UTC().Format("15:04:05 UTC"))
	} else {
		a.progressf("To sign in, open this address in a browser on this machine:\n  %s", p.URL)
		a.progressf("Waiting for the browser to come back to 127.0.0.1 (Ctrl-C to give up)...")
	}
	if browser {
		if err := a.openURL(open); err != nil {
			a.progressf("Could not open a browser (%v): open the address yourself.", err)
		}
	}
	return nil
}

func (a *app) openURL(u string) error {
	if a.openBrowser != nil {
		return a.openBrowser(u)
	}
	name, args := "xdg-open", []string{u}
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", u}
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// loginStore is where the logins are kept.
func (a *app) loginStore() (login.Store, error) {
	dir, err := login.DefaultDir(a.getenv)
	if err != nil {
		return login.Store{}, err
	}
	return login.Store{Dir: dir}, nil
}

// storedLogin is the token of the stored login for the server, refreshed
// when it expires: "" when there is none (or no home to keep one in). The
// clients of the run then ask the login again at each request and
// websocket connection, so that a deploy followed for longer than a token
// lives goes on with a refreshed one.
func (a *app) storedLogin(ctx context.Context) (string, error) {
	store, err := a.loginStore()
	if err != nil {
		return "", nil
	}
	server := client.New(a.server, "").BaseURL()
	tok, err := store.Current(ctx, server, a.loginHTTP, a.loginNow)
	if errors.Is(err, login.ErrNotSignedIn) {
		return "", nil
	}
	if err != nil {
		return "", loginError(err)
	}
	a.fromLogin = true
	a.tokenSource = func(ctx context.Context) (string, error) {
		t, err := store.Current(ctx, server, a.loginHTTP, a.loginNow)
		if err != nil {
			return "", loginError(err)
		}
		bearer := t.Bearer()
		a.refreshedMu.Lock()
		if bearer != a.token && !slices.Contains(a.refreshed, bearer) {
			a.refreshed = append(a.refreshed, bearer)
		}
		a.refreshedMu.Unlock()
		return bearer, nil
	}
	return tok.Bearer(), nil
}

// loginError gives the errors of the sign-in flows their exit code: what
// the user must act on is an authentication error (3), a provider out of
// reach is unreachable (4).
func loginError(err error) error {
	var provErr *login.ProviderError
	var host *login.VerificationHostError
	var insecure *login.InsecureFileError
	var insecureIssuer *login.InsecureIssuerError
	var netErr net.Error
	var ex *exitError
	switch {
	case errors.As(err, &ex):
		return err
	case errors.Is(err, login.ErrExpired), errors.Is(err, login.ErrDenied), errors.Is(err, login.ErrSignInAgain),
		errors.As(err, &host), errors.As(err, &insecure), errors.As(err, &insecureIssuer):
		return &exitError{code: exitAuth, msg: deploy.EscapeText(err.Error())}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &provErr) && errors.As(err, &netErr):
		return &exitError{code: exitUnreachable, msg: "cannot reach the " + deploy.EscapeText(err.Error())}
	}
	return &exitError{code: exitAuth, msg: "sign-in failed: " + deploy.EscapeText(err.Error())}
}

// clientOptionsAll are the options of every client of the app.
func (a *app) clientOptionsAll() []client.Option {
	opts := append([]client.Option{client.WithUserAgent("manent-cli/" + buildVersion())}, a.clientOptions...)
	if a.tokenSource != nil {
		opts = append(opts, client.WithTokenSource(a.tokenSource))
	}
	return opts
}
