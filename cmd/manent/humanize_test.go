package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

func TestHumanize(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		// contains are fragments the message must hold, in order.
		contains []string
	}{
		{name: "nil", err: nil, code: 0},
		{
			name: "invalid descriptor lists every field",
			err: &client.APIError{Code: deploy.EINVALID, Message: "invalid descriptor: application: is required; artifact.version: is required",
				Fields: []deploy.FieldError{{Path: "application", Message: "is required"}, {Path: "artifact.version", Message: "is required"}}},
			code:     2,
			contains: []string{"invalid descriptor:", "\n  application: is required", "\n  artifact.version: is required"},
		},
		{name: "unprocessable", err: &client.APIError{Code: deploy.EUNPROCESSABLE, Message: "no target"}, code: 2, contains: []string{"refused: no target"}},
		{name: "unauthenticated", err: &client.APIError{Code: deploy.EUNAUTHENTICATED, Message: "unknown token"}, code: 3, contains: []string{"not authenticated: unknown token", "MANENT_TOKEN"}},
		{name: "forbidden", err: &client.APIError{Code: deploy.EFORBIDDEN, Message: "token:viewer may not submit"}, code: 3, contains: []string{"permission denied: token:viewer may not submit"}},
		{name: "groups overage", err: &client.APIError{Code: deploy.EGROUPSOVERAGE, Message: "token refused: the identity provider left out the groups claim"},
			code: 3, contains: []string{"permission denied: token refused: the identity provider left out the groups claim", "\nAsk the identity provider's administrator"}},
		{name: "not found", err: &client.APIError{Code: deploy.ENOTFOUND, Message: "deployment x not found"}, code: 2, contains: []string{"deployment x not found"}},
		{name: "conflict", err: &client.APIError{Code: deploy.ECONFLICT, Message: "already ended"}, code: 2, contains: []string{"conflict: already ended"}},
		{name: "internal", err: &client.APIError{Code: deploy.EINTERNAL, Message: "internal error", ErrorID: "ab12"}, code: 1, contains: []string{"error ID ab12"}},
		{name: "other code", err: &client.APIError{Code: "GRAPHQL_VALIDATION_FAILED", Message: "Cannot query field"}, code: 1, contains: []string{"Cannot query field"}},
		{
			name:     "unreachable, wrapped",
			err:      fmt.Errorf("list: %w", &client.UnreachableError{Server: "http://10.0.0.9:8080", Err: errors.New("connection refused")}),
			code:     4,
			contains: []string{"http://10.0.0.9:8080", "MANENT_SERVER"},
		},
		{name: "usage", err: &usageError{err: errors.New("unknown flag: --frob")}, code: 2, contains: []string{"unknown flag: --frob", "--help"}},
		{name: "decided by the command", err: &exitError{code: 124, msg: "timed out"}, code: 124, contains: []string{"timed out"}},
		{name: "deadline", err: fmt.Errorf("follow: %w", context.DeadlineExceeded), code: 124},
		{name: "interrupted", err: context.Canceled, code: 130},
		{name: "anything else", err: errors.New("disk full"), code: 1, contains: []string{"disk full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, code := humanize(tt.err)
			if code != tt.code {
				t.Fatalf("code = %d, want %d (message %q)", code, tt.code, msg)
			}
			rest := msg
			for _, c := range tt.contains {
				i := strings.Index(rest, c)
				if i < 0 {
					t.Fatalf("message %q lacks %q", msg, c)
				}
				rest = rest[i+len(c):]
			}
		})
	}
}

// The message of an invalid descriptor prints each field once, even though
// the server's message already lists them.
func TestHumanizePrintsFieldsOnce(t *testing.T) {
	msg, _ := humanize(&client.APIError{Code: deploy.EINVALID, Message: "invalid descriptor: kind: unknown",
		Fields: []deploy.FieldError{{Path: "kind", Message: "unknown"}}})
	if strings.Count(msg, "kind: unknown") != 1 {
		t.Fatalf("message %q", msg)
	}
}
