package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"manent.dev/manent/deploy"
)

// These tests drive the router with func-field fakes of the deploy
// interfaces: they pin the HTTP edge (statuses, bodies, SSE framing).
// main_test.go runs the same endpoints on the whole server.

type fakeService struct {
	deploy.Service // nil: a method a test did not set panics
	submit         func(ctx context.Context, b []byte, o deploy.SubmitOptions) (*deploy.Submission, error)
	get            func(ctx context.Context, id string) (*deploy.Deployment, error)
	logs           func(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error)
}

func (f *fakeService) Submit(ctx context.Context, b []byte, o deploy.SubmitOptions) (*deploy.Submission, error) {
	return f.submit(ctx, b, o)
}

func (f *fakeService) Get(ctx context.Context, id string) (*deploy.Deployment, error) {
	return f.get(ctx, id)
}

func (f *fakeService) Logs(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error) {
	if f.logs == nil {
		return nil, nil
	}
	return f.logs(ctx, id, after, limit)
}

type fakeAuth map[string]deploy.Identity

func (f fakeAuth) Authenticate(_ context.Context, token string) (deploy.Identity, error) {
	id, ok := f[token]
	if !ok {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "invalid token")
	}
	return id, nil
}

type fakeEvents struct {
	mu   sync.Mutex
	subs []chan deploy.Event
}

func (f *fakeEvents) Subscribe(ctx context.Context, _ string) <-chan deploy.Event {
	ch := make(chan deploy.Event, 16)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	return ch
}

func (f *fakeEvents) publish(e deploy.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		ch <- e
	}
}

func newRouterServer(t *testing.T, svc deploy.Service, events deploy.Events) *httptest.Server {
	t.Helper()
	a := &api{
		service: svc, events: events,
		auth:      fakeAuth{"ci": {Subject: "token:ci"}},
		log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		ready:     func(context.Context) error { return nil },
		spa:       fstest.MapFS{"index.html": {Data: []byte("<p>spa</p>")}, "app.js": {Data: []byte("1")}},
		heartbeat: time.Hour,
	}
	srv := httptest.NewServer(a.routes())
	t.Cleanup(srv.Close)
	return srv
}

// reply is what the request helpers keep of a response after reading and
// closing its body: handing back no body leaves none for a test to forget.
type reply struct {
	StatusCode int
	Header     http.Header
}

func newReply(resp *http.Response) reply {
	return reply{StatusCode: resp.StatusCode, Header: resp.Header}
}

func do(t *testing.T, method, url, token, body string, header ...string) (reply, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return newReply(resp), b
}

func TestRESTStatuses(t *testing.T) {
	fields := []deploy.FieldError{{Path: "application", Message: "is required"}, {Path: "artifact.source", Message: "not allowed"}}
	tests := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"invalid descriptor", &deploy.Error{Code: deploy.EINVALID, Message: "invalid descriptor", Fields: fields}, 422, "INVALID_DESCRIPTOR"},
		{"unprocessable", &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "no target", Fields: fields}, 422, "UNPROCESSABLE"},
		{"forbidden", deploy.Errorf(deploy.EFORBIDDEN, "token:ci may not submit"), 403, "FORBIDDEN"},
		{"conflict", deploy.Errorf(deploy.ECONFLICT, "conflict"), 409, "CONFLICT"},
		{"internal", io.ErrUnexpectedEOF, 500, "INTERNAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{submit: func(context.Context, []byte, deploy.SubmitOptions) (*deploy.Submission, error) {
				return nil, tt.err
			}}
			srv := newRouterServer(t, svc, &fakeEvents{})
			resp, body := do(t, "POST", srv.URL+"/api/v1/deployments", "ci", "apiVersion: manent/v1")
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			var got restError
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Error.Code != deploy.Code(tt.code) {
				t.Errorf("code = %s, want %s", got.Error.Code, tt.code)
			}
			if tt.status == 422 && len(got.Error.Errors) != len(fields) {
				t.Errorf("errors = %+v, want every field error", got.Error.Errors)
			}
			if tt.code == "INTERNAL" && (got.Error.ErrorID == "" || strings.Contains(string(body), "EOF")) {
				t.Errorf("internal error body = %s", body)
			}
		})
	}
}

func TestRESTNeedsAToken(t *testing.T) {
	srv := newRouterServer(t, &fakeService{}, &fakeEvents{})
	for _, token := range []string{"", "wrong"} {
		resp, body := do(t, "GET", srv.URL+"/api/v1/deployments/x", token, "")
		if resp.StatusCode != 401 || !strings.Contains(string(body), "UNAUTHENTICATED") || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("token %q: %d %s", token, resp.StatusCode, body)
		}
	}
	resp, body := do(t, "POST", srv.URL+"/graphql", "wrong", `{"query":"{ viewer { subject } }"}`, "Content-Type", "application/json")
	var gql struct {
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(body, &gql)
	if resp.StatusCode != 401 || len(gql.Errors) != 1 || gql.Errors[0].Extensions["code"] != "UNAUTHENTICATED" {
		t.Errorf("graphql: %d %s", resp.StatusCode, body)
	}
}

func TestSubmitAndValidate(t *testing.T) {
	var gotOpts []deploy.SubmitOptions
	d := deploy.Deployment{ID: "hello-1", State: deploy.StateEnqueued, Tenant: "demo",
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{{Name: "config", Type: "standard", Timeout: time.Minute}}}}
	svc := &fakeService{submit: func(_ context.Context, b []byte, o deploy.SubmitOptions) (*deploy.Submission, error) {
		gotOpts = append(gotOpts, o)
		return &deploy.Submission{Deployment: d, Created: !o.ValidateOnly, Validated: o.ValidateOnly}, nil
	}}
	srv := newRouterServer(t, svc, &fakeEvents{})
	resp, body := do(t, "POST", srv.URL+"/api/v1/deployments", "ci", "x")
	if resp.StatusCode != 202 || resp.Header.Get("Location") != "/api/v1/deployments/hello-1" {
		t.Fatalf("submit: %d %s", resp.StatusCode, body)
	}
	var sub submitted
	_ = json.Unmarshal(body, &sub)
	if sub.ID != "hello-1" || sub.State != deploy.StateEnqueued || !sub.Created {
		t.Errorf("submit body = %s", body)
	}
	for _, path := range []string{"/api/v1/deployments?validate=true", "/api/v1/deployments/plan"} {
		resp, body = do(t, "POST", srv.URL+path, "ci", "x")
		var p planned
		_ = json.Unmarshal(body, &p)
		if resp.StatusCode != 200 || !p.Validated || len(p.Plan) != 1 || p.Plan[0].TimeoutSeconds != 60 {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	if len(gotOpts) != 3 || gotOpts[0].ValidateOnly || !gotOpts[1].ValidateOnly || !gotOpts[2].ValidateOnly {
		t.Errorf("options = %+v", gotOpts)
	}
}

type sseEvent struct{ id, name, data string }

func readSSE(t *testing.T, r *bufio.Reader) (sseEvent, bool) {
	t.Helper()
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ev, false
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.name != "" {
				return ev, true
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		}
	}
}

func TestSSEStream(t *testing.T) {
	var mu sync.Mutex
	d := deploy.Deployment{ID: "hello-1", State: deploy.StatePending,
		Plan: deploy.Plan{Steps: []deploy.PlannedStep{{Name: "deploy", Type: "standard"}}}}
	lines := []deploy.LogLine{{Seq: 1, Message: "one"}, {Seq: 2, Message: "two"}}
	svc := &fakeService{
		get: func(context.Context, string) (*deploy.Deployment, error) {
			mu.Lock()
			defer mu.Unlock()
			c := d
			c.Steps = append([]deploy.Step(nil), d.Steps...)
			return &c, nil
		},
		logs: func(_ context.Context, _ string, after int64, _ int) ([]deploy.LogLine, error) {
			mu.Lock()
			defer mu.Unlock()
			var out []deploy.LogLine
			for _, l := range lines {
				if l.Seq > after {
					out = append(out, l)
				}
			}
			return out, nil
		},
	}
	events := &fakeEvents{}
	srv := newRouterServer(t, svc, events)
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/deployments/hello-1/events", nil)
	req.Header.Set("Authorization", "Bearer ci")
	req.Header.Set("Last-Event-ID", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := bufio.NewReader(resp.Body)
	expect := func(name, id, contains string) {
		t.Helper()
		ev, ok := readSSE(t, r)
		if !ok || ev.name != name || ev.id != id || !strings.Contains(ev.data, contains) {
			t.Fatalf("got %+v (ok %v), want %s id %q containing %q", ev, ok, name, id, contains)
		}
	}
	// The snapshot first, then the lines after Last-Event-ID.
	expect("state", "", `"state":"PENDING"`)
	expect("log", "2", `"message":"two"`)

	now := time.Now()
	mu.Lock()
	d.CurrentStep = "deploy"
	d.Steps = []deploy.Step{{Name: "deploy", Type: "standard", State: deploy.StepRunning, Attempts: 1, StartedAt: &now}}
	mu.Unlock()
	events.publish(deploy.Event{Kind: deploy.EventStep, DeploymentID: "hello-1"})
	expect("step", "", `"state":"RUNNING"`)

	mu.Lock()
	d.State = deploy.StateSuccess
	d.Steps[0].State = deploy.StepSuccess
	lines = append(lines, deploy.LogLine{Seq: 3, Message: "done"})
	mu.Unlock()
	events.publish(deploy.Event{Kind: deploy.EventDeployment, DeploymentID: "hello-1"})
	expect("log", "3", `"message":"done"`)
	expect("state", "", `"state":"SUCCESS"`)
	if ev, ok := readSSE(t, r); ok {
		t.Fatalf("stream goes on after SUCCESS: %+v", ev)
	}
}

func TestWebsocketOrigin(t *testing.T) {
	a := &api{publicURL: "https://manent.example.com"}
	tests := []struct {
		origin, host string
		ok           bool
	}{
		{"", "127.0.0.1:8080", true},
		{"http://127.0.0.1:8080", "127.0.0.1:8080", true},
		{"https://manent.example.com", "10.0.0.5:8080", true},
		{"http://manent.example.com", "10.0.0.5:8080", false},
		{"https://evil.example.com", "127.0.0.1:8080", false},
		{"null", "127.0.0.1:8080", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "http://"+tt.host+"/graphql", nil)
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		if got := a.checkOrigin(r); got != tt.ok {
			t.Errorf("origin %q on %s: %v, want %v", tt.origin, tt.host, got, tt.ok)
		}
	}
}

func TestSPAAndHealth(t *testing.T) {
	srv := newRouterServer(t, &fakeService{}, &fakeEvents{})
	tests := []struct {
		path     string
		status   int
		contains string
	}{
		{"/", 200, "<p>spa</p>"},
		{"/deployments/abc", 200, "<p>spa</p>"},
		{"/app.js", 200, "1"},
		{"/missing.js", 404, ""},
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ok"},
		{"/api/v1/nope", 404, "NOT_FOUND"},
	}
	for _, tt := range tests {
		resp, body := do(t, "GET", srv.URL+tt.path, "", "")
		if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.contains) {
			t.Errorf("%s: %d %s", tt.path, resp.StatusCode, body)
		}
	}
}

func TestSPANotBuilt(t *testing.T) {
	srv := httptest.NewServer(spaHandler(fstest.MapFS{"assets/x.js": {Data: []byte("1")}}))
	defer srv.Close()
	resp, body := do(t, "GET", srv.URL+"/deployments/abc", "", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "not built") || !strings.Contains(string(body), `href="/graphql"`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, "POST", srv.URL+"/", "", ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", resp.StatusCode)
	}
}

// TestReadersSeeURLsWithoutSecrets: the plan and the status show where a
// health check or an artifact goes, never the user info or query that may
// carry a token.
func TestReadersSeeURLsWithoutSecrets(t *testing.T) {
	d := deploy.Deployment{ID: "hello-1", State: deploy.StateEnqueued, Tenant: "demo",
		Artifact: deploy.Artifact{Name: "hello", Version: "1.0.0", Source: "https://repo.example/hello.tgz?X-Signature=s3cret"},
		Effective: deploy.Effective{
			Artifact: deploy.Artifact{Name: "hello", Version: "1.0.0", Source: "https://repo.example/hello.tgz?X-Signature=s3cret"},
			Health:   []deploy.HealthCheck{{URL: "http://user:pass@hello.example/{{ .Version }}/ready?token=s3cret"}},
		}}
	svc := &fakeService{
		submit: func(context.Context, []byte, deploy.SubmitOptions) (*deploy.Submission, error) {
			return &deploy.Submission{Deployment: d, Validated: true}, nil
		},
		get: func(context.Context, string) (*deploy.Deployment, error) { return &d, nil },
	}
	srv := newRouterServer(t, svc, &fakeEvents{})
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/api/v1/deployments/plan", `"url": "http://hello.example/{{ .Version }}/ready"`},
		{"POST", "/api/v1/deployments/plan", `"source": "https://repo.example/hello.tgz"`},
		{"GET", "/api/v1/deployments/hello-1", `"source": "https://repo.example/hello.tgz"`},
	} {
		resp, body := do(t, c.method, srv.URL+c.path, "ci", "x")
		if resp.StatusCode != 200 || !strings.Contains(string(body), c.want) {
			t.Errorf("%s %s: %d, want %s in %s", c.method, c.path, resp.StatusCode, c.want, body)
		}
		for _, secret := range []string{"s3cret", "user:pass", "pass@"} {
			if strings.Contains(string(body), secret) {
				t.Errorf("%s %s shows %q: %s", c.method, c.path, secret, body)
			}
		}
	}
}
