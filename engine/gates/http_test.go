package gates

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// server is a target answering status (302 redirects to /elsewhere).
func server(t *testing.T, status int) deploy.Target {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status == http.StatusFound {
			http.Redirect(w, r, "/elsewhere", status)
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return targetOf(t, srv.URL)
}

// hanging is a target that answers only once the request is given up.
func hanging(t *testing.T) deploy.Target {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return targetOf(t, srv.URL)
}

// refusing is a target on a port nothing listens on any more.
func refusing(t *testing.T) deploy.Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return targetOf(t, "http://"+addr)
}

func targetOf(t *testing.T, raw string) deploy.Target {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return deploy.Target{Host: u.Hostname(), Port: port, Path: "/srv/" + u.Port()}
}

const hostURL = "http://{{ .Target.Host }}:{{ .Target.Port }}/health?token=s3cret"

func TestHTTPGate(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		expect  int
		targets func(t *testing.T) []deploy.Target
		want    deploy.GateResult
		// per target, in order
		states   []deploy.GateResult
		statuses []int
		detail   string
	}{
		{
			name: "every target answers 2xx", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				return []deploy.Target{server(t, 200), server(t, 204), server(t, 200)}
			},
			want: deploy.GatePass, states: []deploy.GateResult{"pass", "pass", "pass"}, statuses: []int{200, 204, 200},
			detail: "3 targets answered 2xx",
		},
		{
			name: "the expected status", url: hostURL, expect: 204,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 204)} },
			want:    deploy.GatePass, states: []deploy.GateResult{"pass"}, statuses: []int{204}, detail: "1 target answered 204",
		},
		{
			name: "a 2xx that is not the expected status", url: hostURL, expect: 204,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 204), server(t, 200)} },
			want:    deploy.GateFail, states: []deploy.GateResult{"pass", "fail"}, statuses: []int{204, 200},
			detail: "answered 200, want 204",
		},
		{
			name: "one target answers 503", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				return []deploy.Target{server(t, 200), server(t, 503), server(t, 200)}
			},
			want: deploy.GateFail, states: []deploy.GateResult{"pass", "fail", "pass"}, statuses: []int{200, 503, 200},
			detail: ": answered 503, want 2xx",
		},
		{
			name: "several fail: the first named, the others counted", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				return []deploy.Target{server(t, 500), server(t, 200), server(t, 404)}
			},
			want: deploy.GateFail, states: []deploy.GateResult{"fail", "pass", "fail"}, statuses: []int{500, 200, 404},
			detail: "answered 500, want 2xx (and 1 more of 3)",
		},
		{
			name: "a redirect is not followed", url: hostURL,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 302)} },
			want:    deploy.GateFail, states: []deploy.GateResult{"fail"}, statuses: []int{302},
			detail: "answered 302, want 2xx (redirects are not followed)",
		},
		{
			name: "a redirect expected", url: hostURL, expect: 302,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 302)} },
			want:    deploy.GatePass, states: []deploy.GateResult{"pass"}, statuses: []int{302},
		},
		{
			name: "a refused connection is an unhealthy target", url: hostURL,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 200), refusing(t)} },
			want:    deploy.GateFail, states: []deploy.GateResult{"pass", "fail"}, statuses: []int{200, 0},
			detail: "no answer: connection refused",
		},
		{
			name: "no answer within the timeout is an unhealthy target", url: hostURL,
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{hanging(t)} },
			want:    deploy.GateFail, states: []deploy.GateResult{"fail"}, statuses: []int{0},
			detail: "no answer: timed out after 150ms",
		},
		{
			name: "a URL that cannot be filled for a target is inconclusive", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				noPort := server(t, 200)
				noPort.Port = 0
				return []deploy.Target{server(t, 200), noPort}
			},
			want: deploy.GateInconclusive, states: []deploy.GateResult{"pass", "inconclusive"}, statuses: []int{200, 0},
			detail: "url: no value for {{ .Target.Port }}",
		},
		{
			name: "a failure outweighs an inconclusive target", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				noPort := server(t, 200)
				noPort.Port = 0
				return []deploy.Target{noPort, server(t, 503)}
			},
			want: deploy.GateFail, states: []deploy.GateResult{"inconclusive", "fail"}, statuses: []int{0, 503},
			detail: "answered 503",
		},
		{
			name: "a host value that would leave the host is inconclusive", url: hostURL,
			targets: func(t *testing.T) []deploy.Target {
				evil := server(t, 200)
				evil.Host = "evil.example@" + evil.Host
				return []deploy.Target{evil}
			},
			want: deploy.GateInconclusive, states: []deploy.GateResult{"inconclusive"}, statuses: []int{0},
			detail: "not a host name or an IP address",
		},
		{
			name: "a metadata address is refused, never called", url: hostURL,
			targets: func(*testing.T) []deploy.Target {
				return []deploy.Target{{Host: "169.254.169.254", Port: 80}}
			},
			want: deploy.GateInconclusive, states: []deploy.GateResult{"inconclusive"}, statuses: []int{0},
			detail: "address refused",
		},
		{
			name: "a template that cannot be parsed is inconclusive", url: "{{ .Target.Host }}://x/",
			targets: func(t *testing.T) []deploy.Target { return []deploy.Target{server(t, 200)} },
			want:    deploy.GateInconclusive, detail: "url: template: a placeholder may not stand in the scheme",
		},
		{
			name: "a wave without targets has no data", url: hostURL,
			targets: func(*testing.T) []deploy.Target { return nil },
			want:    deploy.GateNoData, detail: "no target to call",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets := tt.targets(t)
			gate := deploy.GateSpec{HTTP: &deploy.HTTPGate{URL: tt.url, ExpectStatus: tt.expect, Timeout: 150 * time.Millisecond}}
			r := Check(context.Background(), gate, WaveInput{Targets: targets, Version: "1.0.0"})
			if r.State != tt.want || r.Name != "http" {
				t.Fatalf("state %s (name %q), want %s: %s", r.State, r.Name, tt.want, r.Detail)
			}
			if !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("detail %q, want it to hold %q", r.Detail, tt.detail)
			}
			if strings.Contains(r.Detail, "s3cret") {
				t.Errorf("detail %q shows the URL's query", r.Detail)
			}
			if r.Value != nil {
				t.Errorf("an HTTP gate has no value, got %v", *r.Value)
			}
			if tt.states == nil {
				if len(r.Targets) != 0 {
					t.Errorf("targets %+v, want none", r.Targets)
				}
				return
			}
			if len(r.Targets) != len(targets) {
				t.Fatalf("%d target checks, want %d", len(r.Targets), len(targets))
			}
			for i, tc := range r.Targets {
				if tc.Target != targets[i].Name() || tc.State != tt.states[i] || tc.Status != tt.statuses[i] {
					t.Errorf("target %d: %+v, want %s %s %d", i, tc, targets[i].Name(), tt.states[i], tt.statuses[i])
				}
				if strings.Contains(tc.Detail, "s3cret") {
					t.Errorf("target %d: detail %q shows the URL's query", i, tc.Detail)
				}
			}
			if tt.want == deploy.GateFail && !strings.Contains(r.Detail, targets[firstFailed(r.Targets)].Name()) {
				t.Errorf("detail %q does not name the failed target", r.Detail)
			}
		})
	}
}

func firstFailed(checks []TargetCheck) int {
	for i, c := range checks {
		if c.State == deploy.GateFail {
			return i
		}
	}
	return -1
}

// TestHTTPGatePlaceholders: each target's request is filled with its own
// host, port, user and path and the deploy's values, each percent-encoded.
func TestHTTPGatePlaceholders(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	var targets []deploy.Target
	for _, user := range []string{"app", "a&b"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Host] = r.URL.RequestURI()
			mu.Unlock()
		}))
		t.Cleanup(srv.Close)
		tg := targetOf(t, srv.URL)
		tg.User, tg.Path = user, "/srv/my app"
		targets = append(targets, tg)
	}
	gate := deploy.GateSpec{Name: "health", HTTP: &deploy.HTTPGate{
		URL: "http://{{ .Target.Host }}:{{ .Target.Port }}/{{ .Application }}/{{ .Version }}/{{ .Target.Path }}" +
			"?user={{ .Target.User }}&env={{ .Environment }}&tenant={{ .Tenant }}",
	}}
	wave := WaveInput{Targets: targets, Version: "2.0.0+b/1", Application: "hello", Environment: "prod eu", Tenant: "acme"}
	r := Check(context.Background(), gate, wave)
	if r.State != deploy.GatePass || r.Name != "health" {
		t.Fatalf("state %s (name %q): %s", r.State, r.Name, r.Detail)
	}
	want := map[string]string{
		targets[0].Host + ":" + strconv.Itoa(targets[0].Port): "/hello/2.0.0+b%2F1/%2Fsrv%2Fmy%20app?user=app&env=prod+eu&tenant=acme",
		targets[1].Host + ":" + strconv.Itoa(targets[1].Port): "/hello/2.0.0+b%2F1/%2Fsrv%2Fmy%20app?user=a%26b&env=prod+eu&tenant=acme",
	}
	for host, uri := range want {
		if seen[host] != uri {
			t.Errorf("%s was asked %q, want %q", host, seen[host], uri)
		}
	}
}

// TestHTTPGateIPv6Target: an IPv6 host is written in brackets.
func TestHTTPGateIPv6Target(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	port := ln.Addr().(*net.TCPAddr).Port
	gate := deploy.GateSpec{HTTP: &deploy.HTTPGate{URL: hostURL}}
	r := Check(context.Background(), gate, WaveInput{Targets: []deploy.Target{{Host: "::1", Port: port}}})
	if r.State != deploy.GatePass {
		t.Fatalf("state %s: %s", r.State, r.Detail)
	}
}

// TestHTTPGateBoundsRequestsInFlight: no more than Parallel targets are
// called at once, and that many are.
func TestHTTPGateBoundsRequestsInFlight(t *testing.T) {
	const parallel, n = 3, 9
	var mu sync.Mutex
	inFlight, most := 0, 0
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		arrived <- struct{}{}
		<-release
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	targets := make([]deploy.Target, n)
	for i := range targets {
		targets[i] = targetOf(t, srv.URL)
	}
	done := make(chan Result)
	go func() {
		c := Checker{Parallel: parallel}
		done <- c.Check(context.Background(), deploy.GateSpec{HTTP: &deploy.HTTPGate{URL: hostURL, Timeout: time.Minute}},
			WaveInput{Targets: targets})
	}()
	// The first requests are held until as many as the bound arrived.
	for range parallel {
		<-arrived
	}
	close(release)
	r := <-done
	if r.State != deploy.GatePass {
		t.Fatalf("state %s: %s", r.State, r.Detail)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != parallel {
		t.Fatalf("%d requests in flight at most, want %d", most, parallel)
	}
}

// TestCheckInterrupted: a check whose context ends is inconclusive, never
// a pass or a fail the caller would record.
func TestCheckInterrupted(t *testing.T) {
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	// One target has failed already when the check is interrupted.
	targets := []deploy.Target{server(t, 503), targetOf(t, srv.URL)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() {
		done <- Check(ctx, deploy.GateSpec{HTTP: &deploy.HTTPGate{URL: hostURL, Timeout: time.Minute}},
			WaveInput{Targets: targets})
	}()
	<-arrived
	cancel()
	r := <-done
	if r.State != deploy.GateInconclusive || r.Detail != "check interrupted" {
		t.Fatalf("state %s: %s, want inconclusive: check interrupted", r.State, r.Detail)
	}
}
