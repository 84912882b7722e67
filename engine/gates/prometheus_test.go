package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

func ptr(v float64) *float64 { return &v }

// success is Prometheus's answer of an instant query.
func success(resultType, result string) string {
	return fmt.Sprintf(`{"status":"success","data":{"resultType":%q,"result":%s}}`, resultType, result)
}

func vector(samples ...string) string {
	return success("vector", "["+strings.Join(samples, ",")+"]")
}

// series is one sample of a vector: labels as "k=v,k=v", value as
// Prometheus writes it.
func series(labels, value string) string {
	var parts []string
	for kv := range strings.SplitSeq(labels, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			kj, _ := json.Marshal(k)
			vj, _ := json.Marshal(v)
			parts = append(parts, string(kj)+":"+string(vj))
		}
	}
	return fmt.Sprintf(`{"metric":{%s},"value":[1700000000.123,%q]}`, strings.Join(parts, ","), value)
}

// answering is a Prometheus that answers every query with status and body.
func answering(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestPrometheusGate(t *testing.T) {
	huge := vector(series("instance=a", "1")) + strings.Repeat(" ", 5<<20)
	tests := []struct {
		name     string
		status   int
		body     string
		min, max *float64
		want     deploy.GateResult
		value    *float64
		detail   string
	}{
		{name: "one series within bounds", status: 200, body: vector(series("__name__=up,job=hello", "0.004")), max: ptr(0.01),
			want: deploy.GatePass, value: ptr(0.004), detail: `0.004 up{job="hello"} (max 0.01)`},
		{name: "one series above max", status: 200, body: vector(series("job=hello", "0.5")), max: ptr(0.01),
			want: deploy.GateFail, value: ptr(0.5), detail: `0.5 {job="hello"} is above max 0.01`},
		{name: "one series below min", status: 200, body: vector(series("job=hello", "0.2")), min: ptr(0.9),
			want: deploy.GateFail, value: ptr(0.2), detail: "is below min 0.9"},
		{name: "max is inclusive", status: 200, body: vector(series("", "0.01")), max: ptr(0.01),
			want: deploy.GatePass, value: ptr(0.01)},
		{name: "min is inclusive", status: 200, body: vector(series("", "0.9")), min: ptr(0.9), max: ptr(1),
			want: deploy.GatePass, value: ptr(0.9), detail: "(within 0.9..1)"},
		{name: "an empty vector has no data", status: 200, body: vector(), max: ptr(1),
			want: deploy.GateNoData, detail: "no series"},
		{name: "several series, one out of bounds: fail, the worst named", status: 200, max: ptr(0.01),
			body: vector(series("instance=a", "0.001"), series("instance=b", "0.2"), series("instance=c", "0.05")),
			want: deploy.GateFail, value: ptr(0.2), detail: `0.2 {instance="b"} is above max 0.01 (2 of 3 series)`},
		{name: "several series within bounds: the value is the nearest a bound", status: 200, min: ptr(0), max: ptr(1),
			body: vector(series("instance=a", "0.5"), series("instance=b", "0.95"), series("instance=c", "0.1")),
			want: deploy.GatePass, value: ptr(0.95), detail: `worst of 3 series: 0.95 {instance="b"}`},
		{name: "a scalar", status: 200, body: success("scalar", `[1700000000,"3"]`), min: ptr(1),
			want: deploy.GatePass, value: ptr(3)},
		{name: "NaN has no data", status: 200, body: vector(series("job=x", "NaN")), max: ptr(1),
			want: deploy.GateNoData, detail: `NaN {job="x"}: no value`},
		{name: "+Inf has no data", status: 200, body: vector(series("job=x", "+Inf")), max: ptr(1),
			want: deploy.GateNoData, detail: "+Inf"},
		{name: "-Inf has no data", status: 200, body: success("scalar", `[1700000000,"-Inf"]`), min: ptr(0),
			want: deploy.GateNoData, detail: "-Inf"},
		{name: "a NaN series among good ones has no data", status: 200, max: ptr(1),
			body: vector(series("instance=a", "0.5"), series("instance=b", "NaN")),
			want: deploy.GateNoData, detail: `NaN {instance="b"}`},
		{name: "a NaN series beside a bad one fails", status: 200, max: ptr(1),
			body: vector(series("instance=a", "NaN"), series("instance=b", "7")),
			want: deploy.GateFail, value: ptr(7), detail: `7 {instance="b"} is above max 1`},
		{name: "a string result", status: 200, body: success("string", `[1700000000,"hello"]`), max: ptr(1),
			want: deploy.GateInconclusive, detail: "a string, not a number"},
		{name: "a range vector", status: 200, max: ptr(1),
			body: success("matrix", `[{"metric":{},"values":[[1700000000,"1"],[1700000015,"2"]]}]`),
			want: deploy.GateInconclusive, detail: "range vector"},
		{name: "a query error", status: 400, max: ptr(1),
			body: `{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected \"}\""}`,
			want: deploy.GateInconclusive, detail: `query refused: bad_data: 1:5: parse error: unexpected "}"`},
		{name: "an execution timeout", status: 503, max: ptr(1),
			body: `{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}`,
			want: deploy.GateInconclusive, detail: "query refused: timeout"},
		{name: "a 500 without JSON", status: 500, body: "internal error\n", max: ptr(1),
			want: deploy.GateInconclusive, detail: "answered HTTP 500"},
		{name: "a 502 of a proxy with a JSON body", status: 502, body: `{"message":"bad gateway"}`, max: ptr(1),
			want: deploy.GateInconclusive, detail: "answered HTTP 502"},
		{name: "garbage", status: 200, body: "<html><body>login</body></html>", max: ptr(1),
			want: deploy.GateInconclusive, detail: "not Prometheus's query API JSON"},
		{name: "JSON that is not an answer", status: 200, body: `{"status":"success"}`, max: ptr(1),
			want: deploy.GateInconclusive, detail: "not Prometheus's query API JSON"},
		{name: "an unknown result type", status: 200, body: success("histogram", `[]`), max: ptr(1),
			want: deploy.GateInconclusive, detail: `unknown result type "histogram"`},
		{name: "a value that is not a number", status: 200, body: vector(series("", "many")), max: ptr(1),
			want: deploy.GateInconclusive, detail: `value "many" is not a number`},
		{name: "a sample that is not a pair", status: 200, body: success("vector", `[{"metric":{},"value":[1]}]`), max: ptr(1),
			want: deploy.GateInconclusive, detail: "not a [time, value] pair"},
		{name: "a huge answer", status: 200, body: huge, max: ptr(1),
			want: deploy.GateInconclusive, detail: "answer larger than 4 MiB"},
		{name: "control characters in labels are escaped", status: 200, body: vector(series("job=a\x1b[2Jb", "5")), max: ptr(1),
			want: deploy.GateFail, value: ptr(5), detail: `\x1b[2Jb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := deploy.GateSpec{Prometheus: &deploy.PrometheusGate{
				URL: answering(t, tt.status, tt.body), Query: "up", Min: tt.min, Max: tt.max, Timeout: 5 * time.Second,
			}}
			r := Check(context.Background(), gate, WaveInput{})
			if r.State != tt.want || r.Name != "prometheus" {
				t.Fatalf("state %s (name %q), want %s: %s", r.State, r.Name, tt.want, r.Detail)
			}
			switch {
			case tt.value == nil && r.Value != nil:
				t.Errorf("value %v, want none", *r.Value)
			case tt.value != nil && (r.Value == nil || *r.Value != *tt.value):
				t.Errorf("value %s, want %v", r.ValueText(), *tt.value)
			}
			if !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("detail %q, want it to hold %q", r.Detail, tt.detail)
			}
			if strings.ContainsAny(r.Detail, "\x1b\n") {
				t.Errorf("detail %q holds a control character", r.Detail)
			}
			if len(r.Detail) > maxDetail {
				t.Errorf("detail of %d bytes, more than %d", len(r.Detail), maxDetail)
			}
		})
	}
}

// TestPrometheusGateRequest: an instant query at the checker's time, the
// query as a parameter under the configured path, basic authentication
// with the password its secret holds, resolved when the gate is checked;
// neither the password nor the query string is ever shown.
func TestPrometheusGateRequest(t *testing.T) {
	type seen struct {
		method, path, user, password, token string
		query                               url.Values
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, password, _ := r.BasicAuth()
		got <- seen{r.Method, r.URL.Path, user, password, r.URL.Query().Get("token"), r.URL.Query()}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + "/prom/?token=t0ken"
	at := time.Date(2025, 3, 1, 12, 0, 0, 250e6, time.UTC)
	query := `sum(rate(http_requests_total{code=~"5..", path="/a b?c"}[1m])) / sum(rate(http_requests_total[1m]))`
	var asked []string
	c := Checker{Now: func() time.Time { return at }, Secret: func(_ context.Context, name string) (string, error) {
		asked = append(asked, name)
		return "pa55word", nil
	}}
	r := c.Check(context.Background(), deploy.GateSpec{Name: "errors", Prometheus: &deploy.PrometheusGate{
		URL: base, Query: query, Max: ptr(0.01), Timeout: 1500 * time.Millisecond,
		BasicAuth: &deploy.GateBasicAuth{Username: "reader", PasswordSecret: "prom"},
	}}, WaveInput{})
	s := <-got
	if s.method != http.MethodGet || s.path != "/prom/api/v1/query" || s.user != "reader" || s.password != "pa55word" || s.token != "t0ken" {
		t.Errorf("request %+v", s)
	}
	if !slices.Equal(asked, []string{"prom"}) {
		t.Errorf("secrets resolved %v, want [prom]", asked)
	}
	if s.query.Get("query") != query || s.query.Get("time") != "1740830400.250" || s.query.Get("timeout") != "1.5" {
		t.Errorf("parameters %v", s.query)
	}
	if r.Name != "errors" || r.State != deploy.GateInconclusive || !r.CheckedAt.Equal(at) {
		t.Errorf("result %+v", r)
	}
	for _, secret := range []string{"pa55word", "t0ken"} {
		if strings.Contains(r.Detail, secret) {
			t.Errorf("detail %q shows %q", r.Detail, secret)
		}
	}
	if !strings.Contains(r.Detail, strings.TrimPrefix(srv.URL, "http://")+"/prom/") {
		t.Errorf("detail %q does not say which Prometheus", r.Detail)
	}
}

// TestPrometheusGateCredentials: a bearer secret is sent as
// Authorization: Bearer; a secret that cannot be resolved, or a checker
// that resolves none, leaves the gate inconclusive without a request,
// naming the secret; a URL with user info (an effective deploy stored by an
// earlier version) is never called and its user info never shown.
func TestPrometheusGateCredentials(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"scalar","result":[1,"0.001"]}}`)
	}))
	t.Cleanup(srv.Close)
	secrets := map[string]string{"token": "t0k3n", "bad": "t0k\r\nX-Evil: 1"}
	resolve := func(_ context.Context, name string) (string, error) {
		if v, ok := secrets[name]; ok {
			return v, nil
		}
		return "", deploy.Permanentf("a secret of the environment configuration is missing: %s, for step gates", name)
	}
	tests := []struct {
		name   string
		gate   deploy.PrometheusGate
		secret func(context.Context, string) (string, error)
		state  deploy.GateResult
		detail string
		auth   string
	}{
		{name: "bearer", gate: deploy.PrometheusGate{URL: srv.URL, BearerSecret: "token"}, secret: resolve,
			state: deploy.GatePass, auth: "Bearer t0k3n"},
		{name: "a secret missing", gate: deploy.PrometheusGate{URL: srv.URL, BasicAuth: &deploy.GateBasicAuth{Username: "reader", PasswordSecret: "gone"}},
			secret: resolve, state: deploy.GateInconclusive, detail: "a secret of the environment configuration is missing: gone, for step gates"},
		{name: "a token that breaks the header", gate: deploy.PrometheusGate{URL: srv.URL, BearerSecret: "bad"}, secret: resolve,
			state: deploy.GateInconclusive, detail: "secret bad is not a token: empty, or with a control character"},
		{name: "no resolver", gate: deploy.PrometheusGate{URL: srv.URL, BearerSecret: "token"},
			state: deploy.GateInconclusive, detail: "secret token cannot be resolved here"},
		{name: "user info in the url", gate: deploy.PrometheusGate{URL: strings.Replace(srv.URL, "http://", "http://reader:pa55word@", 1)},
			secret: resolve, state: deploy.GateInconclusive, detail: "prometheus url holds credentials (user:password@), which manent no longer sends: give basic_auth in the environment configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			auths = nil
			mu.Unlock()
			g := tt.gate
			g.Query, g.Max, g.Timeout = "up", ptr(0.01), 5*time.Second
			r := Checker{Secret: tt.secret}.Check(context.Background(), deploy.GateSpec{Prometheus: &g}, WaveInput{})
			if r.State != tt.state || !strings.Contains(r.Detail, tt.detail) {
				t.Fatalf("%s %q, want %s with %q", r.State, r.Detail, tt.state, tt.detail)
			}
			for _, secret := range []string{"pa55word", "t0k3n", "X-Evil"} {
				if strings.Contains(r.Detail, secret) {
					t.Errorf("detail %q shows %q", r.Detail, secret)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case tt.auth != "" && !slices.Equal(auths, []string{tt.auth}):
				t.Errorf("authorization %q, want %q", auths, tt.auth)
			case tt.auth == "" && len(auths) > 0:
				t.Errorf("Prometheus was called (%q) by a gate that could not authenticate", auths)
			}
		})
	}
}

// TestPrometheusGateUnreachable: what keeps the query from being answered
// leaves the gate inconclusive, and says why without the URL's query.
func TestPrometheusGateUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/?k=secret"
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(slow.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://login.example/", http.StatusFound)
	}))
	t.Cleanup(redirect.Close)
	tests := []struct {
		name, url, query, detail string
	}{
		{"nothing listens", closed, "up", "connection refused"},
		{"slower than the timeout", slow.URL, "up", "timed out after 200ms"},
		{"a redirect", redirect.URL, "up", "answered 302 (redirects are not followed)"},
		{"not an http URL", "ftp://prometheus/", "up", "must be an absolute http:// or https:// URL"},
		{"a relative URL", "/api/v1/query", "up", "must be an absolute http:// or https:// URL"},
		{"a metadata address", "http://169.254.169.254/", "up", "destination address refused"},
		{"no query", slow.URL, " ", "no query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check(context.Background(), deploy.GateSpec{Prometheus: &deploy.PrometheusGate{
				URL: tt.url, Query: tt.query, Max: ptr(1), Timeout: 200 * time.Millisecond,
			}}, WaveInput{})
			if r.State != deploy.GateInconclusive || r.Value != nil {
				t.Fatalf("state %s value %s, want inconclusive without a value: %s", r.State, r.ValueText(), r.Detail)
			}
			if !strings.Contains(r.Detail, tt.detail) || strings.Contains(r.Detail, "secret") {
				t.Errorf("detail %q, want it to hold %q and no secret", r.Detail, tt.detail)
			}
		})
	}
}

func TestQueryURL(t *testing.T) {
	at := time.Unix(1700000000, 0)
	tests := []struct{ base, wantPath, wantQuery string }{
		{"http://prom:9090", "/api/v1/query", ""},
		{"http://prom:9090/", "/api/v1/query", ""},
		{"https://metrics.example/prometheus", "/prometheus/api/v1/query", ""},
		{"http://prom/api/v1/query", "/api/v1/query", ""},
		{"http://prom/api/v1/query/", "/api/v1/query", ""},
		{"http://prom/select/0/prometheus?tenant=a", "/select/0/prometheus/api/v1/query", "a"},
	}
	for _, tt := range tests {
		raw, err := queryURL(tt.base, `up{job="a/b"}`, at, 10*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tt.base, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if u.Path != tt.wantPath || q.Get("tenant") != tt.wantQuery || q.Get("query") != `up{job="a/b"}` ||
			q.Get("time") != "1700000000.000" || q.Get("timeout") != "10" {
			t.Errorf("%s: %s", tt.base, raw)
		}
	}
}
