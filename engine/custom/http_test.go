package custom

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/specsig"
)

// TestExpectAndStatuses: the answer's status against run.expect (any 2xx
// by default); outside it, 5xx, 408 and 429 are temporary and the others
// permanent.
func TestExpectAndStatuses(t *testing.T) {
	tests := []struct {
		status    int
		expect    []int
		ok        bool
		permanent bool
	}{
		{status: 200, ok: true},
		{status: 202, ok: true},
		{status: 204, ok: true},
		{status: 299, ok: true},
		{status: 500},
		{status: 502},
		{status: 503},
		{status: 408},
		{status: 429},
		{status: 400, permanent: true},
		{status: 401, permanent: true},
		{status: 404, permanent: true},
		{status: 409, permanent: true},
		{status: 422, permanent: true},
		{status: 302, permanent: true},
		{status: 201, expect: []int{201}, ok: true},
		{status: 200, expect: []int{201}, permanent: true},
		{status: 404, expect: []int{200, 404}, ok: true},
		{status: 503, expect: []int{201}},
		{status: 409, expect: []int{201}, permanent: true},
		{status: 302, expect: []int{302}, ok: true},
	}
	for _, tt := range tests {
		f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
			if tt.status == http.StatusFound {
				w.Header().Set("Location", "/elsewhere")
			}
			w.WriteHeader(tt.status)
		})
		spec := f.spec("/status")
		spec.Run.Expect = tt.expect
		_, err := f.run(spec)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%d (expect %v): %v", tt.status, tt.expect, err)
		case !tt.ok && err == nil:
			t.Errorf("%d (expect %v): succeeded", tt.status, tt.expect)
		case !tt.ok && deploy.IsPermanent(err) != tt.permanent:
			t.Errorf("%d (expect %v): permanent=%v, want %v (%v)", tt.status, tt.expect, deploy.IsPermanent(err), tt.permanent, err)
		}
	}
}

// TestRequest: the method (POST by default), the headers rendered, the
// credential of each auth type, the JSON body with its content type, and
// the idempotency key.
func TestRequest(t *testing.T) {
	tests := []struct {
		name   string
		method string
		auth   *deploy.HTTPAuth
		check  func(r *http.Request) string
	}{
		{name: "bearer", auth: &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}, check: func(r *http.Request) string {
			if r.Header.Get("Authorization") != "Bearer "+tokenValue {
				return "Authorization " + r.Header.Get("Authorization")
			}
			return ""
		}},
		{name: "basic", method: "PUT", auth: &deploy.HTTPAuth{Type: "basic", Secret: "cdn-token", Username: "deployer"}, check: func(r *http.Request) string {
			if u, p, ok := r.BasicAuth(); !ok || u != "deployer" || p != tokenValue {
				return "basic auth " + u
			}
			return ""
		}},
		{name: "header", method: "patch", auth: &deploy.HTTPAuth{Type: "header", Secret: "cdn-token", Header: "x-api-key"}, check: func(r *http.Request) string {
			if r.Header.Get("X-Api-Key") != tokenValue || r.Header.Get("Authorization") != "" {
				return "X-Api-Key " + r.Header.Get("X-Api-Key")
			}
			return ""
		}},
		{name: "none", method: "DELETE", check: func(r *http.Request) string {
			if r.Header.Get("Authorization") != "" {
				return "an Authorization header without auth"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *http.Request
			var body []byte
			f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
				got, body = r, must(io.ReadAll(r.Body))
			})
			spec := f.spec("/zones/{{ .Params.zone }}/purge?v={{ .Version }}")
			spec.Run.Method = tt.method
			spec.Run.Auth = tt.auth
			spec.Run.Headers = map[string]string{"X-Release": "{{ .Application }}@{{ .Version }}"}
			spec.Run.JSON = map[string]any{"tags": []any{"{{ .Application }}"}, "dry": false}
			if _, err := f.run(spec); err != nil {
				t.Fatal(err)
			}
			want := strings.ToUpper(tt.method)
			if want == "" {
				want = http.MethodPost
			}
			switch {
			case got.Method != want:
				t.Errorf("method %s, want %s", got.Method, want)
			case got.URL.Path != "/zones/z1/purge" || got.URL.Query().Get("v") != "1.0.0":
				t.Errorf("url %s", got.URL)
			case got.Header.Get("X-Release") != "shop@1.0.0":
				t.Errorf("X-Release %q", got.Header.Get("X-Release"))
			case got.Header.Get("Content-Type") != "application/json":
				t.Errorf("Content-Type %q", got.Header.Get("Content-Type"))
			case string(body) != `{"dry":false,"tags":["shop"]}`:
				t.Errorf("body %s", body)
			case got.Header.Get("Idempotency-Key") != "d-1:cdn-purge":
				t.Errorf("Idempotency-Key %q", got.Header.Get("Idempotency-Key"))
			}
			if msg := tt.check(got); msg != "" {
				t.Error(msg)
			}
			// The log has the method, host, path and status: never the
			// query or the body.
			log := f.log()
			u, _ := url.Parse(f.srv.URL)
			if !strings.Contains(log, want+" "+u.Host+"/zones/z1/purge: 200") || strings.Contains(log, "v=1.0.0") ||
				strings.Contains(log, "tags") {
				t.Errorf("log:\n%s", log)
			}
		})
	}
}

// TestIdempotencyKey: <deploy>:<step> for a step that runs once, the
// engine's key with the pass, batch and kind for one that runs once per
// batch; the same on every attempt.
func TestIdempotencyKey(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var calls atomic.Int32
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	spec := f.spec("/")
	c := f.context(spec)
	if _, err := (httpKind{f.kinds}).Run(context.Background(), c); err == nil || deploy.IsPermanent(err) {
		t.Fatalf("first attempt: %v, want a temporary error", err)
	}
	c.Attempt = 2
	if _, err := (httpKind{f.kinds}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	c.Key = deploy.StepKey{Step: spec.Name, Pass: 2, Batch: 3, Kind: deploy.KindRun}
	if _, err := (httpKind{f.kinds}).Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{"d-1:cdn-purge", "d-1:cdn-purge", "d-1:cdn-purge:p2:b3:run"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("keys %q, want %q", keys, want)
	}
}

// TestRedirectRefused: a 3xx is never followed, and fails the step
// permanently unless expect lists it.
func TestRedirectRefused(t *testing.T) {
	var followed atomic.Bool
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/there" {
			followed.Store(true)
			return
		}
		http.Redirect(w, r, "/there", http.StatusTemporaryRedirect)
	})
	_, err := f.run(f.spec("/moved?token=abc"))
	if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "redirects are not followed") ||
		strings.Contains(err.Error(), "token=abc") {
		t.Fatalf("error %v", err)
	}
	if followed.Load() {
		t.Fatal("the redirect was followed")
	}
}

// TestResponseCap: an answer is read up to 1 MiB; a larger one fails the
// step permanently.
func TestResponseCap(t *testing.T) {
	for _, tt := range []struct {
		size int
		ok   bool
	}{{MaxResponse, true}, {MaxResponse + 1, false}} {
		f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
			pad := strings.Repeat("x", tt.size-len(`{"id":"p-1","pad":""}`))
			_, _ = io.WriteString(w, `{"id":"p-1","pad":"`+pad+`"}`)
		})
		spec := f.spec("/")
		spec.Outputs = map[string]deploy.OutputSpec{"id": {Pattern: "p-[0-9]+", Path: "$.id"}}
		res, err := f.run(spec)
		switch {
		case tt.ok && (err != nil || res.Output["id"] != "p-1"):
			t.Errorf("%d bytes: %v %v", tt.size, res.Output, err)
		case !tt.ok && (err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "larger than 1048576 bytes")):
			t.Errorf("%d bytes: %v", tt.size, err)
		}
	}
}

// TestHTTPRefusedWithoutAllowHTTP: an http:// URL is refused before any
// request unless pipeline.custom.allow_http.
func TestHTTPRefusedWithoutAllowHTTP(t *testing.T) {
	var hit atomic.Bool
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit.Store(true) }))
	defer plain.Close()
	f := newFixture(t, nil)
	spec := f.spec("/")
	spec.Run.URL = plain.URL + "/hook"
	_, err := f.run(spec)
	if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "allow_http") || hit.Load() {
		t.Fatalf("error %v, request sent %v", err, hit.Load())
	}
	f.cfg.Pipeline.Custom.AllowHTTP = true
	if _, err := f.run(spec); err != nil || !hit.Load() {
		t.Fatalf("with allow_http: %v, request sent %v", err, hit.Load())
	}
}

// TestRefusedAddresses: link-local and metadata addresses are refused
// before anything is sent, and permanently.
func TestRefusedAddresses(t *testing.T) {
	f := newFixture(t, nil)
	for _, host := range []string{"169.254.169.254", "169.254.0.23", "[fe80::1]", "[fd00:ec2::254]", "100.100.100.200",
		"168.63.129.16", "192.0.0.192", "[::ffff:169.254.169.254]", "0.0.0.0"} {
		spec := f.spec("/")
		spec.Run.URL = "https://" + host + "/latest/meta-data"
		_, err := f.run(spec)
		if !errors.Is(err, safehttp.ErrAddressRefused) || !deploy.IsPermanent(err) {
			t.Errorf("%s: %v", host, err)
		}
	}
}

// TestOutputsByPath: the declared outputs read at their paths, held to
// their patterns; a missing one, a non-scalar or a mismatch fails the step
// without showing the value.
func TestOutputsByPath(t *testing.T) {
	const answer = `{"result": {"id": "p-42", "n": 7, "ok": true, "obj": {}, "bad": "x; rm -rf /"},
		"list": [{"id": "first"}], "a.b": "dotted"}`
	tests := []struct {
		outputs map[string]deploy.OutputSpec
		want    map[string]string
		err     string
	}{
		{outputs: map[string]deploy.OutputSpec{
			"id":     {Pattern: "p-[0-9]+", Path: "$.result.id"},
			"n":      {Pattern: "[0-9]+", Path: "$.result.n"},
			"ok":     {Pattern: "true|false", Path: "$.result.ok"},
			"first":  {Pattern: "[a-z]+", Path: "$.list[0].id"},
			"dotted": {Pattern: "[a-z]+", Path: `$["a.b"]`},
		}, want: map[string]string{"id": "p-42", "n": "7", "ok": "true", "first": "first", "dotted": "dotted"}},
		{outputs: map[string]deploy.OutputSpec{"bad": {Pattern: "[a-z]+", Path: "$.result.bad"}}, err: "does not match its pattern"},
		{outputs: map[string]deploy.OutputSpec{"id": {Pattern: "p-[0-9]", Path: "$.result.id"}}, err: "does not match its pattern"},
		{outputs: map[string]deploy.OutputSpec{"none": {Pattern: ".*", Path: "$.result.none"}}, err: "nothing at $.result.none"},
		{outputs: map[string]deploy.OutputSpec{"obj": {Pattern: ".*", Path: "$.result.obj"}}, err: "not a string, a number or a boolean"},
		{outputs: map[string]deploy.OutputSpec{"all": {Pattern: ".*", Path: "$..id"}}, err: "must name one value"},
	}
	for i, tt := range tests {
		f := newFixture(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, answer) })
		spec := f.spec("/")
		spec.Outputs = tt.outputs
		res, err := f.run(spec)
		if tt.err != "" {
			if err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), tt.err) ||
				strings.Contains(err.Error(), "rm -rf") {
				t.Errorf("%d: error %v, want %q", i, err, tt.err)
			}
			continue
		}
		if err != nil || len(res.Output) != len(tt.want) {
			t.Fatalf("%d: %v %v", i, res.Output, err)
		}
		for k, v := range tt.want {
			if res.Output[k] != v {
				t.Errorf("%d: output %s = %q, want %q", i, k, res.Output[k], v)
			}
		}
	}
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "<html>") })
	spec := f.spec("/")
	spec.Outputs = map[string]deploy.OutputSpec{"id": {Pattern: ".*", Path: "$.id"}}
	if _, err := f.run(spec); err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("an answer that is not JSON: %v", err)
	}
}

// TestSecretsNeverLogged: a secret that reaches a line of the log or an
// error (here through a parameter in the URL's path, as written and in
// base64) is masked there, and never in the audit entry.
func TestSecretsNeverLogged(t *testing.T) {
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) })
	spec := f.spec("/zones/{{ .Params.zone }}/{{ .Params.encoded }}")
	spec.Params["encoded"] = deploy.ParamSpec{Pattern: "[A-Za-z0-9_=-]+"}
	spec.Params["zone"] = deploy.ParamSpec{Pattern: "[a-z0-9-]+"}
	spec.Run.Auth = &deploy.HTTPAuth{Type: "bearer", Secret: "cdn-token"}
	c := f.context(spec)
	c.Effective.StepParams[spec.Name] = map[string]string{"zone": tokenValue,
		"encoded": base64.URLEncoding.EncodeToString([]byte("x" + tokenValue))}
	_, err := httpKind{f.kinds}.Run(context.Background(), c)
	if err == nil || !deploy.IsPermanent(err) {
		t.Fatalf("error %v", err)
	}
	all := f.log() + "\n" + err.Error()
	entries, _ := json.Marshal(f.audit.all())
	for _, leak := range []string{tokenValue, base64.URLEncoding.EncodeToString([]byte("x" + tokenValue))} {
		if strings.Contains(all, leak) || strings.Contains(string(entries), leak) {
			t.Errorf("%q shown:\n%s\n%s", leak, all, entries)
		}
	}
	if !strings.Contains(all, "***") {
		t.Errorf("nothing masked:\n%s", all)
	}
}

// TestAuditEntries: every operation appends step.custom.run with the
// requester, the step, the specification's hash, the targets and the
// outcome, failed attempts too, never the outputs: one entry when it
// starts, one when it ends.
func TestAuditEntries(t *testing.T) {
	var calls atomic.Int32
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, `{"id": "p-secret-output-1"}`)
	})
	spec := f.spec("/")
	spec.Outputs = map[string]deploy.OutputSpec{"id": {Pattern: "[a-z0-9-]+", Path: "$.id"}}
	for range 2 {
		_, _ = f.run(spec)
	}
	entries := f.audit.all()
	if len(entries) != 4 {
		t.Fatalf("%d entries, want 4", len(entries))
	}
	for i, want := range []string{OutcomeStarted, OutcomeFailed, OutcomeStarted, OutcomeSuccess} {
		e := entries[i]
		d := e.Details
		targets, _ := d["targets"].([]string)
		if e.Action != AuditAction || e.Actor != "token:ci" || e.Target != "d-1" || d["step"] != "cdn-purge" ||
			d["spec_hash"] != must(specsig.Hash(spec)) || d["outcome"] != want || strings.Join(targets, ",") != "web-1,web-2" {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if d := entries[1].Details; d["permanent"] != false || !strings.Contains(d["error"].(string), "answered 502") {
		t.Errorf("failed entry: %+v", d)
	}
	if b, _ := json.Marshal(entries); strings.Contains(string(b), "p-secret-output-1") {
		t.Errorf("an output in the audit: %s", b)
	}
}

// TestVersionAndVerify: a version outside the specification's pattern and
// a specification the verifier refuses fail the step permanently, before
// anything is sent.
func TestVersionAndVerify(t *testing.T) {
	var hit atomic.Bool
	f := newFixture(t, func(http.ResponseWriter, *http.Request) { hit.Store(true) })
	spec := f.spec("/")
	c := f.context(spec)
	c.Effective.Artifact.Version = "1.0/../../x"
	if _, err := (httpKind{f.kinds}).Run(context.Background(), c); err == nil || !deploy.IsPermanent(err) {
		t.Fatalf("version: %v", err)
	}
	// The keyring of the process: a specification changed after the plan
	// captured it is refused.
	c = f.context(spec)
	spec.Run.URL = "https://attacker.example/"
	if _, err := (httpKind{f.kinds}).Run(context.Background(), c); !errors.Is(err, specsig.ErrTampered) || !deploy.IsPermanent(err) {
		t.Fatalf("a tampered specification: %v", err)
	}
	f.kinds.o.Verify = verifierFunc(func(deploy.PlannedStep) error { return errors.New("spec_hash mismatch") })
	if _, err := f.run(spec); err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("verify: %v", err)
	}
	if hit.Load() {
		t.Fatal("a request was sent")
	}
	if e := f.audit.all(); len(e) != 3 || e[2].Details["outcome"] != OutcomeFailed {
		t.Fatalf("audit %+v", e)
	}
}

type verifierFunc func(deploy.PlannedStep) error

func (f verifierFunc) Verify(s deploy.PlannedStep) error { return f(s) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestManagedHeaders: a stored plan that sets a header manent writes
// itself is refused before anything is sent; Accept and User-Agent are
// manent's unless the step gives its own.
func TestManagedHeaders(t *testing.T) {
	var got atomic.Pointer[http.Request]
	f := newFixture(t, func(w http.ResponseWriter, r *http.Request) { got.Store(r) })
	for _, h := range []string{"Content-Type", "idempotency-key", "Authorization", "Host", "Transfer-Encoding"} {
		spec := f.spec("/")
		spec.Run.Headers = map[string]string{h: "x"}
		if _, err := f.run(spec); err == nil || !deploy.IsPermanent(err) || !strings.Contains(err.Error(), "set by manent") {
			t.Errorf("%s: %v", h, err)
		}
	}
	if got.Load() != nil {
		t.Fatal("a request was sent")
	}
	spec := f.spec("/")
	if _, err := f.run(spec); err != nil {
		t.Fatal(err)
	}
	if r := got.Load(); r.Header.Get("Accept") != "application/json" || r.Header.Get("User-Agent") != "manent" {
		t.Fatalf("headers %v", r.Header)
	}
	spec.Run.Headers = map[string]string{"Accept": "application/vnd.api+json", "User-Agent": "deployer/1"}
	if _, err := f.run(spec); err != nil {
		t.Fatal(err)
	}
	if r := got.Load(); r.Header.Get("Accept") != "application/vnd.api+json" || r.Header.Get("User-Agent") != "deployer/1" {
		t.Fatalf("headers %v", r.Header)
	}
}
