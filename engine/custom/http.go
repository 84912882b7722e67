package custom

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/placeholder"
	"manent.dev/manent/internal/safehttp"
)

// MaxResponse is the most an HTTP step reads of an answer.
const MaxResponse = 1 << 20

// DefaultPollInterval is poll.interval when the step does not say.
const DefaultPollInterval = 10 * time.Second

// httpKind is the kind of type: http, a request sent from the worker.
type httpKind struct{ k *kinds }

func (h httpKind) Run(ctx context.Context, c *steps.Context) (steps.Result, error) {
	return h.k.operate(ctx, c, false, nil, h.send)
}

func (h httpKind) DryRun(ctx context.Context, c *steps.Context) (steps.Result, error) {
	return h.k.operate(ctx, c, true, nil, h.send)
}

// answer is what one request of the step got back.
type answer struct {
	status int
	// doc is the decoded JSON of the body; nil when it was not read.
	doc any
}

// send makes the step's request, waits for its operation when it polls,
// and reads the outputs.
func (h httpKind) send(ctx context.Context, cl *call) (map[string]string, error) {
	run := cl.run
	method := strings.ToUpper(cmp.Or(run.Method, http.MethodPost))
	if !slices.Contains([]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}, method) {
		return nil, deploy.Permanentf("step %s: method %s is not one of GET, POST, PUT, PATCH, DELETE", cl.c.Key.Step, method)
	}
	u, err := h.url(cl, run.URL, cl.values)
	if err != nil {
		return nil, err
	}
	var body []byte
	if run.JSON != nil {
		if body, err = placeholder.JSON(run.JSON, cl.values); err != nil {
			return nil, deploy.Permanent(fmt.Errorf("step %s: json: %w", cl.c.Key.Step, err))
		}
	}
	needJSON := run.Poll != nil || hasPaths(cl.spec.Outputs)
	if err := cl.started(ctx); err != nil {
		return nil, err
	}
	first, err := h.do(ctx, cl, method, u, body, needJSON, run.Expect)
	if err != nil {
		return nil, err
	}
	last := first.doc
	if run.Poll != nil {
		if last, err = h.poll(ctx, cl, first.doc); err != nil {
			return nil, err
		}
	}
	return readOutputs(cl.c.Key.Step, cl.spec.Outputs, first.doc, last)
}

// url renders a URL of the step and holds it to the outbound rules: https
// unless pipeline.custom.allow_http, never an address manent does not call.
func (h httpKind) url(cl *call, text string, v placeholder.Values) (*url.URL, error) {
	raw, err := placeholder.URL(text, v)
	if err != nil {
		return nil, deploy.Permanent(fmt.Errorf("step %s: url: %w", cl.c.Key.Step, err))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, deploy.Permanentf("step %s: url: not a URL", cl.c.Key.Step)
	}
	cl.urls = append(cl.urls, u)
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP(cl.c):
	case u.Scheme == "http":
		return nil, deploy.Permanentf("step %s: %s: http is refused: HTTP steps use https unless pipeline.custom.allow_http is set",
			cl.c.Key.Step, shownURL(u))
	default:
		return nil, deploy.Permanentf("step %s: url: the scheme must be https", cl.c.Key.Step)
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && safehttp.Refused(ip) {
		return nil, deploy.Permanent(fmt.Errorf("step %s: %s: %w (link-local and metadata addresses are never called)",
			cl.c.Key.Step, shownURL(u), safehttp.ErrAddressRefused))
	}
	return u, nil
}

// do sends one request of the step and reads its answer: the status must
// be one of expect (any 2xx when empty); outside it, 5xx, 408 and 429 are
// temporary, the others permanent. The log shows the method, host, path
// and status, never the query nor a body.
func (h httpKind) do(ctx context.Context, cl *call, method string, u *url.URL, body []byte, needJSON bool, expect []int) (answer, error) {
	req, err := h.request(ctx, cl, method, u, body)
	if err != nil {
		return answer{}, err
	}
	what := method + " " + shownURL(u)
	resp, err := safehttp.Do(h.client(), req, MaxResponse)
	var redirect *safehttp.RedirectError
	switch {
	case errors.As(err, &redirect):
		cl.logf("info", "%s: %d", what, redirect.Status)
		if accepted(redirect.Status, expect) {
			return answer{status: redirect.Status}, nil
		}
		return answer{}, deploy.Permanentf("%s: answered %d, a redirect: redirects are not followed", what, redirect.Status)
	case err != nil:
		return answer{}, transportError(what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	a := answer{status: resp.StatusCode}
	cl.logf("info", "%s: %d", what, resp.StatusCode)
	data, readErr := io.ReadAll(resp.Body)
	if !accepted(resp.StatusCode, expect) {
		return a, statusError(what, resp.StatusCode, expect)
	}
	switch {
	case errors.Is(readErr, safehttp.ErrTooLarge):
		return a, deploy.Permanentf("%s: the answer is larger than %d bytes", what, MaxResponse)
	case readErr != nil:
		return a, transportError(what, readErr)
	case !needJSON:
		return a, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&a.doc); err != nil {
		return a, deploy.Permanentf("%s: the answer is not JSON, and the step reads it (poll, outputs)", what)
	}
	return a, nil
}

// request builds a request of the step: its headers, its authentication,
// the JSON body, and the idempotency key, the same on every attempt.
func (h httpKind) request(ctx context.Context, cl *call, method string, u *url.URL, body []byte) (*http.Request, error) {
	step := cl.c.Key.Step
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, deploy.Permanentf("step %s: the request cannot be made", step)
	}
	for _, name := range sortedKeys(cl.run.Headers) {
		canonical := textproto.CanonicalMIMEHeaderKey(name)
		if config.ManagedHeader(canonical) {
			return nil, deploy.Permanentf("step %s: header %s is set by manent, not by run.headers", step, canonical)
		}
		v, err := placeholder.Header(cl.run.Headers[name], cl.values)
		if err != nil {
			return nil, deploy.Permanent(fmt.Errorf("step %s: header %s: %w", step, canonical, err))
		}
		req.Header.Set(canonical, v)
	}
	if err := cl.authenticate(req); err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// An API that wants another Accept or User-Agent gets the step's.
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "manent")
	}
	req.Header.Set("Idempotency-Key", idempotencyKey(cl.c))
	return req, nil
}

// authenticate sets the credential of run.auth, a secret of the step's.
func (cl *call) authenticate(req *http.Request) error {
	a := cl.run.Auth
	if a == nil {
		return nil
	}
	v, err := cl.secret(a.Secret)
	if err != nil {
		return err
	}
	switch a.Type {
	case "bearer":
		req.Header.Set("Authorization", "Bearer "+v)
	case "basic":
		req.SetBasicAuth(a.Username, v)
	case "header":
		name := textproto.CanonicalMIMEHeaderKey(a.Header)
		if name == "" || config.ManagedHeader(name) && name != "Authorization" {
			return deploy.Permanentf("step %s: auth.header %q cannot carry the credential", cl.c.Key.Step, a.Header)
		}
		req.Header.Set(name, v)
	default:
		return deploy.Permanentf("step %s: auth.type %q is not bearer, basic or header", cl.c.Key.Step, a.Type)
	}
	return nil
}

// client is Options.HTTP, never the steps' shared Env.HTTP: see Options.
func (h httpKind) client() *http.Client { return h.k.o.HTTP }

// accepted reports whether status is one of expect, any 2xx when empty.
func accepted(status int, expect []int) bool {
	if len(expect) == 0 {
		return status >= 200 && status < 300
	}
	return slices.Contains(expect, status)
}

// statusError is the error of a status outside expect: temporary for 5xx,
// 408 and 429, which a later attempt may not get, permanent otherwise.
func statusError(what string, status int, expect []int) error {
	want := "2xx"
	if len(expect) > 0 {
		parts := make([]string, len(expect))
		for i, s := range expect {
			parts[i] = strconv.Itoa(s)
		}
		want = strings.Join(parts, ", ")
	}
	err := fmt.Errorf("%s: answered %d, expected %s", what, status, want)
	if temporaryStatus(status) {
		return err
	}
	return deploy.Permanent(err)
}

func temporaryStatus(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}

// transportError is a request without an answer: temporary (a timeout, a
// refused or reset connection) unless trying again cannot change it (a
// refused address, a name that does not exist, an untrusted certificate).
// Its text is the request's method, host and path and the cause, without
// the URL the client's error quotes (its query may carry a token).
func transportError(what string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &unknownCA) || errors.As(err, &hostErr) {
		return deploy.Permanent(fmt.Errorf("%s: %w", what, err))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer in time: %w", what, err)
	}
	return steps.ClassifyHTTPError(fmt.Errorf("%s: %w", what, err))
}

// shownURL is a URL as the log shows it: host and path, never the query,
// the fragment or user info.
func shownURL(u *url.URL) string {
	return u.Host + u.EscapedPath()
}

func hasPaths(outputs map[string]deploy.OutputSpec) bool {
	for _, o := range outputs {
		if o.Path != "" {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
