package itsm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/jsonpath"
	"manent.dev/manent/internal/safehttp"
)

// MaxResponseBytes caps an ITSM answer: a ticket is a few kilobytes.
const MaxResponseBytes = 1 << 20

// Change is what a ticket is opened for.
type Change struct {
	DeploymentID string
	Application  string
	Environment  string
	Version      string
	Requester    string
	Description  string
}

// Ticket is an opened change: ID addresses it in the ITSM's API, Number is
// what people see (CHG0030001), when the answer has one.
type Ticket struct {
	ID     string `json:"id"`
	Number string `json:"number,omitempty"`
}

// State is the approval state of a ticket.
type State string

// States.
const (
	StatePending  State = "pending"
	StateApproved State = "approved"
	StateRejected State = "rejected"
)

// Connector talks to one configured ITSM. It is safe for concurrent use.
type Connector struct {
	cfg       Config
	base      string
	resolve   func(ctx context.Context, ref string) (string, error)
	client    *http.Client
	openBody  *bodyTemplate
	closeBody *bodyTemplate
	idPath    jsonpath.Path
	number    *jsonpath.Path
	state     jsonpath.Path
}

// New checks cfg and returns its connector. resolve turns cfg.Auth.Secret
// into the credential at each request. client defaults to a safehttp client;
// whichever is used, redirects are never followed.
// A configuration error is a permanent *deploy.Error listing every problem.
func New(cfg Config, resolve func(ctx context.Context, ref string) (string, error), client *http.Client) (*Connector, error) {
	cfg.SetDefaults()
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid itsm connector", Fields: errs, Permanent: true}
	}
	if resolve == nil {
		return nil, errors.New("itsm: a secret resolver is required")
	}
	if client == nil {
		client = safehttp.New(safehttp.Options{Timeout: cfg.Timeout})
	}
	noRedirect := *client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Connector{
		cfg:     cfg,
		base:    strings.TrimSuffix(cfg.BaseURL, "/"),
		resolve: resolve,
		client:  &noRedirect,
	}
	// Validate parsed all of these already: errors cannot happen here.
	c.openBody, _ = parseBody(cfg.Open.Body, openVars)
	if cfg.Close.Body != "" {
		c.closeBody, _ = parseBody(cfg.Close.Body, closeVars)
	}
	c.idPath, _ = jsonpath.Parse(cfg.Open.IDPath)
	if cfg.Open.NumberPath != "" {
		p, _ := jsonpath.Parse(cfg.Open.NumberPath)
		c.number = &p
	}
	c.state, _ = jsonpath.Parse(cfg.Status.StatePath)
	return c, nil
}

// Open creates the ticket for ch. It sends Idempotency-Key
// <deploy>:change:open so an ITSM that honours it does not create a second
// ticket when the step is retried.
// Errors: permanent for a 4xx (other than 408 and 429), a redirect, an
// answer that is not JSON or has no id; temporary otherwise.
func (c *Connector) Open(ctx context.Context, ch Change) (Ticket, error) {
	vars := map[string]string{
		"DeploymentID": ch.DeploymentID,
		"Application":  ch.Application,
		"Environment":  ch.Environment,
		"Version":      ch.Version,
		"Requester":    ch.Requester,
		"Description":  ch.Description,
	}
	body, err := c.openBody.render(vars)
	if err != nil {
		return Ticket{}, deploy.Permanent(fmt.Errorf("open change ticket: render body: %w", err))
	}
	doc, err := c.call(ctx, c.cfg.Open.Method, expandPath(c.cfg.Open.Path, vars), body, ch.DeploymentID+":change:open", true)
	if err != nil {
		return Ticket{}, fmt.Errorf("open change ticket: %w", err)
	}
	v, found := c.idPath.Lookup(doc)
	id, scalar := scalarString(v)
	if !found || !scalar || id == "" {
		return Ticket{}, deploy.Permanentf("open change ticket: the answer has no ticket id at %s", c.idPath)
	}
	t := Ticket{ID: id}
	if c.number != nil {
		// The ticket exists by now: a missing number is not worth losing it for.
		if v, ok := c.number.Lookup(doc); ok {
			t.Number, _ = scalarString(v)
		}
	}
	return t, nil
}

// Status reads the approval state of the ticket. A state that is neither
// approved nor rejected is pending.
// Errors: as Open; an answer without a value at state_path is permanent.
func (c *Connector) Status(ctx context.Context, ticketID string) (State, error) {
	if ticketID == "" {
		return "", deploy.Permanentf("change ticket status: empty ticket id")
	}
	vars := map[string]string{"TicketID": ticketID}
	doc, err := c.call(ctx, c.cfg.Status.Method, expandPath(c.cfg.Status.Path, vars), nil, "", true)
	if err != nil {
		return "", fmt.Errorf("change ticket %s status: %w", ticketID, err)
	}
	v, found := c.state.Lookup(doc)
	s, scalar := scalarString(v)
	if !found || !scalar {
		return "", deploy.Permanentf("change ticket %s status: the answer has no state at %s", ticketID, c.state)
	}
	switch {
	case contains(c.cfg.Status.ApprovedValues, s):
		return StateApproved, nil
	case contains(c.cfg.Status.RejectedValues, s):
		return StateRejected, nil
	}
	return StatePending, nil
}

// Close closes the ticket with outcome (success, error or cancelled), sending
// Idempotency-Key <deploy>:change:close. The deploy's id is a parameter
// because the key needs it and the ticket alone does not carry it.
// Errors: as Open; an unknown outcome is permanent.
func (c *Connector) Close(ctx context.Context, deploymentID, ticketID, outcome string) error {
	if outcome != OutcomeSuccess && outcome != OutcomeError && outcome != OutcomeCancelled {
		return deploy.Permanentf("close change ticket %s: unknown outcome %q", ticketID, outcome)
	}
	if ticketID == "" {
		return deploy.Permanentf("close change ticket: empty ticket id")
	}
	value := outcome
	if w, ok := c.cfg.Close.OutcomeValues[outcome]; ok {
		value = w
	}
	vars := map[string]string{"DeploymentID": deploymentID, "TicketID": ticketID, "Outcome": outcome, "OutcomeValue": value}
	var body []byte
	if c.closeBody != nil {
		var err error
		if body, err = c.closeBody.render(vars); err != nil {
			return deploy.Permanent(fmt.Errorf("close change ticket %s: render body: %w", ticketID, err))
		}
	}
	if _, err := c.call(ctx, c.cfg.Close.Method, expandPath(c.cfg.Close.Path, vars), body, deploymentID+":change:close", false); err != nil {
		return fmt.Errorf("close change ticket %s: %w", ticketID, err)
	}
	return nil
}

func contains(vals []string, s string) bool {
	for _, v := range vals {
		if v == s {
			return true
		}
	}
	return false
}

// call performs one request and decodes the JSON answer when wantJSON.
// Every error it returns has been scrubbed of the credential.
func (c *Connector) call(ctx context.Context, method, path string, body []byte, idemKey string, wantJSON bool) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	secret, err := c.resolve(ctx, c.cfg.Auth.Secret)
	if err != nil {
		// The reference (a variable's or a file's name) is configuration
		// the readers of a deploy are not shown; the resolver's caller
		// logs it for the operator.
		if deploy.IsPermanent(err) {
			return nil, deploy.Permanentf("a secret of the server configuration is missing: the credential of the change connector")
		}
		return nil, errors.New("a secret of the server configuration cannot be read now: the credential of the change connector")
	}
	if secret == "" {
		return nil, deploy.Permanentf("a secret of the server configuration is empty: the credential of the change connector")
	}
	target := c.base + path
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, deploy.Permanentf("%s %s: invalid request", method, path)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "manent")
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	authHeader, token := c.authorization(secret)
	req.Header.Set("Authorization", authHeader)
	// An ITSM may echo a request back in an error page: longest forms first.
	quoted, _ := json.Marshal(secret)
	scrub := strings.NewReplacer(authHeader, "[redacted]", token, "[redacted]",
		string(quoted[1:len(quoted)-1]), "[redacted]", secret, "[redacted]")

	// Without the query and user info, which may carry a token.
	what := method + " " + deploy.RedactURL(req.URL.String())
	start := time.Now()
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, transportError(what, err, time.Since(start), scrub)
	}
	// The body is read to the end or to the limit before it is closed, so a
	// failed Close cannot change the answer.
	defer func() { _ = resp.Body.Close() }()
	data, readErr := readLimited(resp.Body, MaxResponseBytes)
	if err := statusError(what, resp.StatusCode, data, scrub); err != nil {
		return nil, err
	}
	if readErr != nil {
		if errors.Is(readErr, safehttp.ErrTooLarge) {
			return nil, deploy.Permanentf("%s: answer larger than %d bytes", what, MaxResponseBytes)
		}
		return nil, transportError(what, readErr, time.Since(start), scrub)
	}
	if !wantJSON {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, deploy.Permanentf("%s: the answer is not JSON: %s", what, scrub.Replace(err.Error()))
	}
	return doc, nil
}

// authorization returns the Authorization header and its credential part.
func (c *Connector) authorization(secret string) (header, token string) {
	if c.cfg.Auth.Type == AuthBasic {
		token = base64.StdEncoding.EncodeToString([]byte(c.cfg.Auth.Username + ":" + secret))
		return "Basic " + token, token
	}
	return "Bearer " + secret, secret
}

// transportError classifies a failure to get an answer. Timeouts, refused
// and reset connections and DNS failures may pass; a refused destination
// address or an untrusted certificate will not. The cause stays in the chain
// (errors.Is(err, context.DeadlineExceeded) holds), behind a scrubbed text.
func transportError(what string, err error, took time.Duration, scrub *strings.Replacer) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err // its text repeats the URL, which what already has
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(err, safehttp.ErrAddressRefused),
		errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return deploy.Permanent(&scrubbed{msg: what + ": " + scrub.Replace(err.Error()), err: err})
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return &scrubbed{msg: fmt.Sprintf("%s: no answer after %s (timeout)", what, took.Round(time.Millisecond)), err: err}
	}
	return &scrubbed{msg: what + ": " + scrub.Replace(err.Error()), err: err}
}

// scrubbed shows a text cleaned of the credential and unwraps to the cause.
type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// statusError classifies an HTTP status: 2xx is success; 408, 429 and 5xx
// may pass; a redirect (never followed) and other 4xx will not. A short,
// scrubbed excerpt of the answer helps whoever reads the failed step.
func statusError(what string, code int, body []byte, scrub *strings.Replacer) error {
	if code >= 200 && code < 300 {
		return nil
	}
	err := fmt.Errorf("%s: answered %d%s", what, code, excerpt(body, scrub))
	switch {
	case code >= 300 && code < 400:
		return deploy.Permanent(fmt.Errorf("%w: %w", err, safehttp.ErrRedirect))
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests, code >= 500:
		return err
	}
	return deploy.Permanent(err)
}

const excerptBytes = 200

func excerpt(body []byte, scrub *strings.Replacer) string {
	s := strings.TrimSpace(scrub.Replace(string(body)))
	if s == "" {
		return ""
	}
	if len(s) > excerptBytes {
		s = strings.ToValidUTF8(s[:excerptBytes], "") + "..."
	}
	return ": " + s
}

// readLimited reads at most max bytes, failing with safehttp.ErrTooLarge past
// it, as safehttp.Get does for downloads.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return data, err
	}
	if int64(len(data)) > max {
		return data[:max], safehttp.ErrTooLarge
	}
	return data, nil
}
