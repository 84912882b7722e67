package gates

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/urltemplate"
)

// maxHTTPBody is how much of a target's answer is read: only its status
// counts, the rest lets the connection be reused.
const maxHTTPBody = 64 << 10

// checkHTTP calls g's URL once per target of the wave. A target that
// answers another status, or does not answer at all (refused, reset, timed
// out), is unhealthy: the gate fails. A gate that cannot be evaluated for a
// target (its URL cannot be filled, the address is one manent refuses to
// call) is inconclusive for it. A failure outweighs an inconclusive target,
// which outweighs a pass; a wave without targets has no data.
func (c Checker) checkHTTP(ctx context.Context, g deploy.HTTPGate, w WaveInput) Result {
	tpl, err := urltemplate.ParseHost(g.URL, deploy.GatePlaceholders, deploy.GateHostPlaceholders)
	if err != nil {
		return inconclusive("url: " + err.Error())
	}
	if len(w.Targets) == 0 {
		return Result{State: deploy.GateNoData, Detail: "no target to call"}
	}
	timeout := timeoutOf(g.Timeout)
	client, done := c.client(timeout)
	defer done()
	parallel := c.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	checks := make([]TargetCheck, len(w.Targets))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, t := range w.Targets {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			checks[i] = callTarget(ctx, client, tpl, g, timeout, w, t)
		})
	}
	wg.Wait()
	return httpResult(checks, g.ExpectStatus)
}

// httpResult sums the targets' answers up.
func httpResult(checks []TargetCheck, expect int) Result {
	var failed, unknown []string
	for _, c := range checks {
		switch c.State {
		case deploy.GatePass:
		case deploy.GateFail:
			failed = append(failed, c.Target+": "+c.Detail)
		default:
			unknown = append(unknown, c.Target+": "+c.Detail)
		}
	}
	r := Result{Targets: checks}
	switch {
	case len(failed) > 0:
		r.State, r.Detail = deploy.GateFail, joinDetail(failed, len(checks))
	case len(unknown) > 0:
		r.State, r.Detail = deploy.GateInconclusive, joinDetail(unknown, len(checks))
	default:
		r.State, r.Detail = deploy.GatePass, fmt.Sprintf("%s answered %s", plural(len(checks), "target"), wantText(expect))
	}
	r.Detail = short(r.Detail)
	return r
}

// callTarget makes the request of one target.
func callTarget(ctx context.Context, client *http.Client, tpl *urltemplate.Template, g deploy.HTTPGate,
	timeout time.Duration, w WaveInput, t deploy.Target) TargetCheck {
	tc := TargetCheck{Target: t.Name()}
	u, err := tpl.Render(placeholders(w, t))
	if err != nil {
		tc.State, tc.Detail = deploy.GateInconclusive, short("url: "+err.Error())
		return tc
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := safehttp.Get(rctx, client, u, maxHTTPBody)
	var redirect *safehttp.RedirectError
	switch {
	case errors.As(err, &redirect):
		tc.Status = redirect.Status
	case err != nil:
		tc.State, tc.Detail = unanswered(ctx, err, timeout)
		return tc
	default:
		tc.Status = resp.StatusCode
		// Drained (up to the cap) so the connection can be reused.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	if expected(tc.Status, g.ExpectStatus) {
		tc.State, tc.Detail = deploy.GatePass, "answered "+strconv.Itoa(tc.Status)
		return tc
	}
	tc.State = deploy.GateFail
	tc.Detail = fmt.Sprintf("answered %d, want %s", tc.Status, wantText(g.ExpectStatus))
	if redirect != nil {
		tc.Detail += " (redirects are not followed)"
	}
	return tc
}

// placeholders are the values of the URL of target t.
func placeholders(w WaveInput, t deploy.Target) map[string]string {
	v := map[string]string{
		"Version": w.Version, "Application": w.Application, "Environment": w.Environment, "Tenant": w.Tenant,
		"Target.Host": t.Host, "Target.User": t.User, "Target.Path": t.Path,
	}
	// No port is no value: a URL that needs one cannot be filled.
	if t.Port != 0 {
		v["Target.Port"] = strconv.Itoa(t.Port)
	}
	return v
}

func expected(status, expect int) bool {
	if expect == 0 {
		return status >= 200 && status < 300
	}
	return status == expect
}

func wantText(expect int) string {
	if expect == 0 {
		return "2xx"
	}
	return strconv.Itoa(expect)
}

// unanswered is how a request without an answer counts. A target that does
// not answer is unhealthy (fail); the check itself failing, or manent
// refusing the address, leaves the target's health unknown (inconclusive).
func unanswered(ctx context.Context, err error, timeout time.Duration) (deploy.GateResult, string) {
	switch {
	case ctx.Err() != nil:
		return deploy.GateInconclusive, "check interrupted"
	case errors.Is(err, safehttp.ErrAddressRefused):
		return deploy.GateInconclusive, "address refused (link-local or metadata addresses are never called)"
	}
	return deploy.GateFail, short("no answer: " + reason(err, timeout))
}

// reason says in a few words why a request got no answer, without the URL
// the client's error quotes (its query or user info may carry a token).
func reason(err error, timeout time.Duration) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out after " + timeout.String()
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before an answer"
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "no such host " + dns.Name
		}
		return "name lookup of " + dns.Name + " failed"
	case errors.As(err, &cert), errors.As(err, &unknownAuthority):
		return "TLS certificate refused"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
