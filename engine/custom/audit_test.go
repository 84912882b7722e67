package custom

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/safehttp"
)

// TestAuditStartedBeforeTheRequest: the started entry is in the audit log
// while the request is at the API, before its answer, so that a worker
// killed then leaves a record of the request it sent; the entry of the
// outcome follows, with the same fields.
func TestAuditStartedBeforeTheRequest(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
	})
	spec := f.spec("/")
	done := make(chan error, 1)
	go func() { _, err := f.run(spec); done <- err }()
	<-arrived
	during := f.audit.all()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 || during[0].Details["outcome"] != OutcomeStarted {
		t.Fatalf("while the request is at the API, the audit holds %+v, want one started entry", during)
	}
	all := f.audit.all()
	if len(all) != 2 || all[1].Details["outcome"] != OutcomeSuccess {
		t.Fatalf("audit after the answer: %+v", all)
	}
	for _, k := range []string{"step", "operation", "type", "spec_hash", "targets", "dry_run", "attempt"} {
		if b, a := must(json.Marshal(all[0].Details[k])), must(json.Marshal(all[1].Details[k])); string(b) != string(a) {
			t.Errorf("%s: started %s, outcome %s", k, b, a)
		}
	}
	if all[0].Actor != "token:ci" || all[0].Target != "d-1" || all[0].Action != AuditAction {
		t.Errorf("started entry %+v", all[0])
	}
}

// failingAudit is an audit log that cannot be written.
type failingAudit struct{ calls atomic.Int32 }

func (a *failingAudit) AppendAudit(context.Context, deploy.AuditEntry) error {
	a.calls.Add(1)
	return errors.New("audit table is read-only")
}

// TestNoSideEffectWithoutItsAuditEntry: when the started entry cannot be
// written, nothing is sent, and the attempt fails temporarily (a later
// one may be recorded).
func TestNoSideEffectWithoutItsAuditEntry(t *testing.T) {
	var hit atomic.Bool
	f := newFixture(t, func(http.ResponseWriter, *http.Request) { hit.Store(true) })
	audit := &failingAudit{}
	f.kinds.o.Audit = audit
	_, err := f.run(f.spec("/"))
	if err == nil || deploy.IsPermanent(err) || !strings.Contains(err.Error(), "does not start without its entry") {
		t.Fatalf("run: %v, want a temporary error", err)
	}
	if hit.Load() {
		t.Fatal("the request was sent without its audit entry")
	}
	if audit.calls.Load() == 0 {
		t.Fatal("no entry was attempted")
	}
}

// TestOutputHoldingASecretFailsTheStep: an output that holds a secret of
// the step, in any form the log masks (an API that echoes its token), is
// never stored: the step fails permanently, without the value in its
// error or its audit entry. An output without one is kept.
func TestOutputHoldingASecretFailsTheStep(t *testing.T) {
	tests := []struct {
		name   string
		echo   func(token string) string
		secret bool
	}{
		{name: "as it is", echo: func(tok string) string { return tok }, secret: true},
		{name: "inside a longer value", echo: func(tok string) string { return "purge-" + tok + "-1" }, secret: true},
		{name: "base64", echo: func(tok string) string { return base64.StdEncoding.EncodeToString([]byte(tok)) }, secret: true},
		{name: "base64 url, unpadded, at an offset", echo: func(tok string) string {
			return base64.RawURLEncoding.EncodeToString([]byte("x:" + tok))
		}, secret: true},
		{name: "no secret", echo: func(string) string { return "p-3f9a" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				_ = json.NewEncoder(w).Encode(map[string]any{"result": map[string]any{"id": tt.echo(tok)}})
			})
			spec := f.spec("/")
			spec.Run.Auth = &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}
			spec.Outputs = map[string]deploy.OutputSpec{"purge_id": {Pattern: `[!-~]{1,128}`, Path: "$.result.id"}}
			res, err := f.run(spec)
			if !tt.secret {
				if err != nil || res.Output["purge_id"] != "p-3f9a" {
					t.Fatalf("an output without a secret: %v %v", res.Output, err)
				}
				return
			}
			if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "output purge_id holds a secret of the step") {
				t.Fatalf("run: %v %v, want a permanent error", res.Output, err)
			}
			if len(res.Output) != 0 {
				t.Errorf("outputs kept: %v", res.Output)
			}
			echoed := tt.echo(tokenValue)
			entries := f.audit.all()
			last := entries[len(entries)-1]
			b := string(must(json.Marshal(entries)))
			if last.Details["outcome"] != OutcomeFailed || strings.Contains(b, tokenValue) || strings.Contains(b, echoed) ||
				strings.Contains(err.Error(), echoed) {
				t.Errorf("error %q, audit %s", err, b)
			}
		})
	}
}

// TestAuditErrorsNameHostsNotPaths: the step's error (the status, the log)
// names a request's method, host, path and status, as the log rule
// allows; its audit entry keeps the method, the host and the status only:
// the path, where the deploy's parameters stand, is left out.
func TestAuditErrorsNameHostsNotPaths(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		poll    bool
		status  int
		allow   bool
		http    bool
		shown   string // in the step's error, after the host
		audited string // in the audit entry's error, after the host
	}{
		{name: "a status outside expect", path: "/zones/z1/purge?token=q", status: http.StatusForbidden,
			shown: "/zones/z1/purge: answered 403", audited: ": answered 403"},
		{name: "a poll's status", path: "/purges/z1", poll: true, status: http.StatusNotFound,
			shown: "/purges/z1: answered 404", audited: ": answered 404"},
		{name: "http refused", path: "/zones/z1/purge", http: true,
			shown: "/zones/z1/purge: http is refused", audited: ": http is refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.poll && r.Method == http.MethodPost {
					_, _ = io.WriteString(w, `{"id": "z1"}`)
					return
				}
				w.WriteHeader(tt.status)
			})
			spec := f.spec(tt.path)
			if tt.poll {
				spec.Run.URL = f.srv.URL + "/zones/{{ .Params.zone }}/purge"
				spec.Run.Poll = &deploy.HTTPPoll{URL: f.srv.URL + "/purges/{{ .Response.id }}", Interval: time.Second,
					Until: &deploy.PollMatch{Path: "$.s", In: []string{"done"}}}
			}
			if tt.http {
				spec.Run.URL = strings.Replace(spec.Run.URL, "https://", "http://", 1)
			}
			_, err := f.run(spec)
			if err == nil {
				t.Fatal("succeeded")
			}
			host := must(url.Parse(f.srv.URL)).Host
			entries := f.audit.all()
			audited, _ := entries[len(entries)-1].Details["error"].(string)
			if !strings.Contains(err.Error(), host+tt.shown) {
				t.Errorf("step error %q, want %q", err, host+tt.shown)
			}
			if !strings.Contains(audited, host+tt.audited) || strings.Contains(audited, "/zones") ||
				strings.Contains(audited, "/purges") || strings.Contains(audited, "token") {
				t.Errorf("audit error %q, want %q and no path", audited, host+tt.audited)
			}
		})
	}
}

// TestHTTPStepsHaveTheirOwnClient: a request of an HTTP step is bounded by
// the step's timeout, not by the deadline of the client the other steps
// share (Env.HTTP, five minutes in the engine): a request slower than that
// deadline, which the step allows, is answered, not cut and sent again.
func TestHTTPStepsHaveTheirOwnClient(t *testing.T) {
	var calls atomic.Int32
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		// A slow API: longer than the shared client's deadline below.
		time.Sleep(500 * time.Millisecond)
		_, _ = io.WriteString(w, `{}`)
	})
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	reg := steps.NewRegistry()
	Register(reg, Options{Audit: f.audit, RootCAs: pool})
	spec := f.spec("/")
	c := f.context(spec)
	c.Env.HTTP = safehttp.New(safehttp.Options{Timeout: 50 * time.Millisecond, RootCAs: pool})
	kind, ok := reg.Lookup(c.Step)
	if !ok {
		t.Fatal("no http kind")
	}
	if _, err := kind.Run(context.Background(), c); err != nil {
		t.Fatalf("a request the step's timeout allows was cut: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}
