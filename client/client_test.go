package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/client"
	"manent.dev/manent/client/clienttest"
	"manent.dev/manent/deploy"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	// Generous: the machine is shared and loaded; nothing here should take
	// more than a fraction of it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func detail(id string, state client.DeploymentState, steps ...client.StepDetail) client.DeploymentDetail {
	return client.DeploymentDetail{
		Id: id, Tenant: "acme", Application: "hello", Environment: "dev", State: state,
		Requester: "token:ci", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Artifact: client.ArtifactDetail{Type: "tarball", Name: "hello", Version: "1.0.0", Source: "file:///a.tgz"},
		Steps:    steps,
		Status:   []byte(`{"id":"` + id + `","state":"` + string(state) + `"}`),
	}
}

func TestQuerySendsTokenAndDecodes(t *testing.T) {
	srv := clienttest.New(t)
	srv.Token = "s3cret"
	srv.Handle("GetDeployment", func(r clienttest.Request) (any, *clienttest.Error) {
		if r.Variables["id"] != "d1" {
			return nil, &clienttest.Error{Message: "bad id", Code: "NOT_FOUND"}
		}
		return map[string]any{"deployment": detail("d1", client.DeploymentStateSuccess,
			client.StepDetail{Name: "config", State: client.StepStateSuccess, Attempts: 1, DurationMs: 1200})}, nil
	})
	c := client.New(srv.URL, "s3cret")
	d, err := c.Deployment(testContext(t), "d1")
	if err != nil {
		t.Fatal(err)
	}
	if d.Id != "d1" || d.State != client.DeploymentStateSuccess || len(d.Steps) != 1 || d.Steps[0].DurationMs != 1200 {
		t.Fatalf("decoded %+v", d)
	}
	if string(d.Status) != `{"id":"d1","state":"SUCCESS"}` {
		t.Fatalf("status JSON = %s", d.Status)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Authorization != "Bearer s3cret" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestNullDeploymentIsNotFound(t *testing.T) {
	srv := clienttest.New(t)
	srv.Handle("GetDeployment", func(clienttest.Request) (any, *clienttest.Error) {
		return map[string]any{"deployment": nil}, nil
	})
	_, err := client.New(srv.URL, "").Deployment(testContext(t), "nope")
	if client.Code(err) != deploy.ENOTFOUND {
		t.Fatalf("err = %v, want NOT_FOUND", err)
	}
}

func TestAPIErrors(t *testing.T) {
	tests := []struct {
		name   string
		token  string
		answer *clienttest.Error
		want   client.APIError
	}{
		{
			name: "invalid descriptor lists every field",
			answer: &clienttest.Error{Message: "invalid descriptor", Code: "INVALID_DESCRIPTOR", Fields: []clienttest.Field{
				{Path: "application", Message: "is required"},
				{Path: "deploy.targets[2].host", Message: "is not a host name"},
			}},
			want: client.APIError{Code: deploy.EINVALID, Message: "invalid descriptor", Fields: []deploy.FieldError{
				{Path: "application", Message: "is required"},
				{Path: "deploy.targets[2].host", Message: "is not a host name"},
			}},
		},
		{
			name:   "forbidden",
			answer: &clienttest.Error{Message: "token:viewer may not deployment.submit", Code: "FORBIDDEN"},
			want:   client.APIError{Code: deploy.EFORBIDDEN, Message: "token:viewer may not deployment.submit"},
		},
		{
			name:   "internal keeps the error id",
			answer: &clienttest.Error{Message: "internal error", Code: "INTERNAL", ErrorID: "e-42"},
			want:   client.APIError{Code: deploy.EINTERNAL, Message: "internal error", ErrorID: "e-42"},
		},
		{
			name:  "wrong token",
			token: "wrong",
			want:  client.APIError{Code: deploy.EUNAUTHENTICATED, Message: "unknown token"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := clienttest.New(t)
			srv.Token = "right"
			srv.Handle("SubmitDeployment", func(clienttest.Request) (any, *clienttest.Error) { return nil, tt.answer })
			token := tt.token
			if token == "" {
				token = "right"
			}
			_, err := client.New(srv.URL, token).Submit(testContext(t), []byte("kind: Deployment"), false)
			var api *client.APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %T %v, want *APIError", err, err)
			}
			if api.Code != tt.want.Code || api.Message != tt.want.Message || api.ErrorID != tt.want.ErrorID ||
				len(api.Fields) != len(tt.want.Fields) {
				t.Fatalf("got %+v, want %+v", api, tt.want)
			}
			for i := range api.Fields {
				if api.Fields[i] != tt.want.Fields[i] {
					t.Fatalf("field %d = %+v, want %+v", i, api.Fields[i], tt.want.Fields[i])
				}
			}
		})
	}
}

func TestHTTPStatuses(t *testing.T) {
	tests := []struct {
		status      int
		body        string
		code        deploy.Code
		unreachable bool
	}{
		{status: http.StatusUnauthorized, code: deploy.EUNAUTHENTICATED},
		{status: http.StatusForbidden, code: deploy.EFORBIDDEN},
		{status: http.StatusUnprocessableEntity, body: `{"errors":[{"message":"frozen","extensions":{"code":"UNPROCESSABLE"}}]}`, code: deploy.EUNPROCESSABLE},
		{status: http.StatusServiceUnavailable, unreachable: true},
		{status: http.StatusBadGateway, unreachable: true},
		{status: http.StatusNotFound},
		{status: http.StatusTeapot},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			t.Cleanup(srv.Close)
			_, err := client.New(srv.URL, "t").Viewer(testContext(t))
			if err == nil {
				t.Fatal("no error")
			}
			var u *client.UnreachableError
			if errors.As(err, &u) != tt.unreachable {
				t.Fatalf("err = %T %v, unreachable want %v", err, err, tt.unreachable)
			}
			if client.Code(err) != tt.code {
				t.Fatalf("code = %q, want %q (%v)", client.Code(err), tt.code, err)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	addr := dead.URL
	dead.Close()

	tests := []struct {
		name   string
		server string
		reason string
	}{
		{name: "connection refused", server: addr, reason: "connection refused"},
		{name: "not a URL", server: "ftp://example.test", reason: "not an http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.New(tt.server, "t0ken").Viewer(testContext(t))
			var u *client.UnreachableError
			if !errors.As(err, &u) {
				t.Fatalf("err = %T %v, want *UnreachableError", err, err)
			}
			if !strings.Contains(err.Error(), tt.reason) || strings.Contains(err.Error(), "t0ken") {
				t.Fatalf("message %q", err.Error())
			}
		})
	}
}

func TestCallerDeadlineIsNotUnreachable(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(block); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := client.New(srv.URL, "").Viewer(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %T %v, want context.DeadlineExceeded", err, err)
	}
}

func TestDeploymentsPaginates(t *testing.T) {
	srv := clienttest.New(t)
	const total = 7
	srv.Handle("ListDeployments", func(r clienttest.Request) (any, *clienttest.Error) {
		start := 0
		if after, ok := r.Variables["after"].(string); ok {
			start = len(after) // cursors are "c", "cc", ...: their length is the offset
		}
		first := clienttest.Int(r.Variables["first"])
		var edges []map[string]any
		end := min(start+min(first, 3), total)
		for i := start; i < end; i++ {
			edges = append(edges, map[string]any{"cursor": strings.Repeat("c", i+1),
				"node": map[string]any{"id": "d" + string(rune('0'+i)), "state": "SUCCESS"}})
		}
		return map[string]any{"deployments": map[string]any{
			"edges":    edges,
			"pageInfo": map[string]any{"hasNextPage": end < total, "endCursor": strings.Repeat("c", end)},
		}}, nil
	})
	c := client.New(srv.URL, "")
	since := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := c.Deployments(testContext(t), client.ListFilter{Environment: "dev",
		States: []client.DeploymentState{client.DeploymentStateError}, CreatedAfter: &since}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0].Id != "d0" || got[4].Id != "d4" {
		t.Fatalf("got %d: %+v", len(got), got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	v := reqs[0].Variables
	if v["environment"] != "dev" || v["createdAfter"] != "2025-01-01T00:00:00Z" || v["tenant"] != nil {
		t.Fatalf("variables of the first page = %v", v)
	}
	if clienttest.Int(reqs[1].Variables["first"]) != 2 || reqs[1].Variables["after"] != "ccc" {
		t.Fatalf("variables of the second page = %v", reqs[1].Variables)
	}

	all, err := c.Deployments(testContext(t), client.ListFilter{}, 0)
	if err != nil || len(all) != total {
		t.Fatalf("all = %d, %v", len(all), err)
	}
}
