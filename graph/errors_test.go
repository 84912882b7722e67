package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
)

func TestErrorCodes(t *testing.T) {
	secret := errors.New(`pq: relation "manent.deployments" does not exist`)
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"not found", deploy.Errorf(deploy.ENOTFOUND, "deployment d1 not found"), "NOT_FOUND", "deployment d1 not found"},
		{"forbidden", deploy.Errorf(deploy.EFORBIDDEN, "token:viewer may not cancel"), "FORBIDDEN", "token:viewer may not cancel"},
		{"conflict", deploy.Errorf(deploy.ECONFLICT, "deployment d1 already ended"), "CONFLICT", "deployment d1 already ended"},
		{"unauthenticated", deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required"), "UNAUTHENTICATED", "authentication required"},
		{"wrapped coded error", fmt.Errorf("cancel: %w", deploy.Errorf(deploy.ECONFLICT, "already ended")), "CONFLICT", "already ended"},
		{"plain error", fmt.Errorf("read deploy: %w", secret), "INTERNAL", "internal error"},
		{"coded internal error", &deploy.Error{Code: deploy.EINTERNAL, Message: secret.Error()}, "INTERNAL", "internal error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &fakeService{cancel: func(context.Context, string) (*deploy.Deployment, error) { return nil, tt.err }}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `mutation { cancelDeployment(id: "d1") { id } }`, nil)
			if len(resp.Errors) != 1 {
				t.Fatalf("errors = %+v, want one", resp.Errors)
			}
			e := resp.Errors[0]
			if e.Extensions["code"] != tt.wantCode || e.Message != tt.wantMsg {
				t.Errorf("got code %v message %q, want %s %q", e.Extensions["code"], e.Message, tt.wantCode, tt.wantMsg)
			}
			if len(e.Path) != 1 || e.Path[0] != "cancelDeployment" {
				t.Errorf("path = %v, want [cancelDeployment]", e.Path)
			}
			if tt.wantCode != "INTERNAL" {
				return
			}
			id, _ := e.Extensions["errorId"].(string)
			if id == "" {
				t.Fatalf("no errorId in %v", e.Extensions)
			}
			if logged := srv.logs.String(); !strings.Contains(logged, id) || !strings.Contains(logged, "does not exist") {
				t.Errorf("log does not hold the error ID %s and the error:\n%s", id, logged)
			}
		})
	}
}

func TestPanicIsAnInternalError(t *testing.T) {
	svc := &fakeService{get: func(context.Context, string) (*deploy.Deployment, error) { panic("nil map in store") }}
	srv := newTestServer(t, svc, newFakeEvents())
	resp := srv.query(t, "ci", `{ deployment(id: "d1") { id } }`, nil)
	if len(resp.Errors) != 1 {
		t.Fatalf("errors = %+v", resp.Errors)
	}
	e := resp.Errors[0]
	id, _ := e.Extensions["errorId"].(string)
	if e.Message != "internal error" || e.Extensions["code"] != "INTERNAL" || id == "" {
		t.Fatalf("got %+v", e)
	}
	if logged := srv.logs.String(); !strings.Contains(logged, id) || !strings.Contains(logged, "nil map in store") {
		t.Errorf("log does not hold the panic:\n%s", logged)
	}
}

func TestInvalidDescriptorReportsEveryError(t *testing.T) {
	fields := []deploy.FieldError{
		{Path: "application", Message: "is required"},
		{Path: "artifact.version", Message: "must not be empty"},
		{Path: "deploy.targets[2].host", Message: "unknown field"},
	}
	tests := []struct {
		name string
		err  error
		code string
	}{
		{"invalid descriptor", &deploy.Error{Code: deploy.EINVALID, Message: "invalid descriptor", Fields: fields}, "INVALID_DESCRIPTOR"},
		{"unprocessable", &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "refused by the environment configuration", Fields: fields}, "UNPROCESSABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got deploy.SubmitOptions
			svc := &fakeService{submit: func(_ context.Context, _ []byte, o deploy.SubmitOptions) (*deploy.Submission, error) {
				got = o
				return nil, tt.err
			}}
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", `mutation($d: String!) { submitDeployment(descriptor: $d, validateOnly: true) { created } }`,
				map[string]any{"d": "apiVersion: manent/v1\n"})
			if !got.ValidateOnly {
				t.Error("validateOnly did not reach the service")
			}
			if len(resp.Errors) != 1 {
				t.Fatalf("errors = %+v", resp.Errors)
			}
			e := resp.Errors[0]
			if e.Extensions["code"] != tt.code {
				t.Errorf("code = %v, want %s", e.Extensions["code"], tt.code)
			}
			list, _ := e.Extensions["errors"].([]any)
			if len(list) != len(fields) {
				t.Fatalf("extensions.errors = %v, want %d entries", e.Extensions["errors"], len(fields))
			}
			for i, f := range fields {
				item, _ := list[i].(map[string]any)
				if item["path"] != f.Path || item["message"] != f.Message {
					t.Errorf("errors[%d] = %v, want %+v", i, item, f)
				}
			}
			for _, f := range fields {
				if !strings.Contains(e.Message, f.Path) {
					t.Errorf("message %q does not name %s", e.Message, f.Path)
				}
			}
		})
	}
}

func TestRequestErrorsAreShownAsTheyAre(t *testing.T) {
	svc := &fakeService{list: func(context.Context, deploy.ListFilter) (deploy.Page, error) { return deploy.Page{}, nil }}
	tests := []struct {
		name, query, want string
	}{
		{"unknown field", `{ deployments { nodes { nope } } }`, "Cannot query field"},
		{"bad time argument", `{ deployments(filter: {createdAfter: "yesterday"}) { nodes { id } } }`, "time should be RFC3339"},
		{"introspection not allowed", `{ __schema { types { name } } }`, "introspection is not allowed for token:ci"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, svc, newFakeEvents())
			resp := srv.query(t, "ci", tt.query, nil)
			if len(resp.Errors) == 0 || !strings.Contains(resp.Errors[0].Message, tt.want) {
				t.Fatalf("errors = %+v, want one containing %q", resp.Errors, tt.want)
			}
			if resp.Errors[0].Extensions["code"] == "INTERNAL" {
				t.Errorf("a request error was hidden as internal: %+v", resp.Errors[0])
			}
		})
	}
}

func TestLimits(t *testing.T) {
	svc := &fakeService{list: func(context.Context, deploy.ListFilter) (deploy.Page, error) { return deploy.Page{}, nil }}
	deep := `{ deployments { edges { node { effective { targets { name } } } } } }`
	tests := []struct {
		name  string
		tweak func(*HandlerOptions)
		query string
		code  string
	}{
		{"depth within the default", nil, deep, ""},
		{"depth over the limit", func(o *HandlerOptions) { o.DepthLimit = 4 }, deep, "DEPTH_LIMIT_EXCEEDED"},
		{"depth through fragments", func(o *HandlerOptions) { o.DepthLimit = 4 },
			`query { deployments { ...Page } } fragment Page on DeploymentConnection { edges { node { ... on Deployment { effective { targets { name } } } } } }`,
			"DEPTH_LIMIT_EXCEEDED"},
		{"complexity over the limit", func(o *HandlerOptions) { o.ComplexityLimit = 3 }, deep, "COMPLEXITY_LIMIT_EXCEEDED"},
		{"introspection allowed", func(o *HandlerOptions) { o.MayIntrospect = Everyone }, `{ __schema { queryType { name } } }`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tweaks []func(*HandlerOptions)
			if tt.tweak != nil {
				tweaks = append(tweaks, tt.tweak)
			}
			srv := newTestServer(t, svc, newFakeEvents(), tweaks...)
			resp := srv.query(t, "ci", tt.query, nil)
			switch {
			case tt.code == "" && len(resp.Errors) > 0:
				t.Fatalf("unexpected errors %+v", resp.Errors)
			case tt.code != "" && (len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != tt.code):
				t.Fatalf("errors = %+v, want code %s", resp.Errors, tt.code)
			}
		})
	}
}

func TestViewerNeedsAnIdentity(t *testing.T) {
	srv := newTestServer(t, &fakeService{}, newFakeEvents())
	resp := srv.query(t, "", `{ viewer { subject } }`, nil)
	if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != "UNAUTHENTICATED" {
		t.Fatalf("errors = %+v", resp.Errors)
	}
	resp = srv.query(t, "viewer", `{ viewer { subject groups } }`, nil)
	if len(resp.Errors) != 0 || string(resp.Data["viewer"]) != `{"subject":"token:viewer","groups":["viewers"]}` {
		t.Fatalf("got %s %+v", resp.Data["viewer"], resp.Errors)
	}
}
