package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"manent.dev/manent/client"
	"manent.dev/manent/deploy"
)

// Exit codes of DESIGN.md §3.
const (
	exitOK          = 0
	exitFailed      = 1
	exitRefused     = 2
	exitAuth        = 3
	exitUnreachable = 4
	exitTimeout     = 124
	exitInterrupted = 130
)

// exitError is an outcome a command decided itself (a deploy that ended in
// ERROR, a --timeout): its message is printed as is, possibly empty when
// the command already said everything.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError is a command line the CLI cannot run.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// humanize is the one place where an error becomes what the user reads and
// the exit code a script branches on.
func humanize(err error) (message string, exitCode int) {
	var ex *exitError
	var usage *usageError
	var unreachable *client.UnreachableError
	var api *client.APIError
	switch {
	case err == nil:
		return "", exitOK
	case errors.As(err, &ex):
		return ex.msg, ex.code
	case errors.As(err, &usage):
		return usage.Error() + "\nRun 'manent --help' for usage.", exitRefused
	case errors.As(err, &unreachable):
		return fmt.Sprintf("%s\nIs the server running, and is %s (or --server) right?", unreachable.Error(), envServer), exitUnreachable
	case errors.As(err, &api):
		return humanizeAPI(api)
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out", exitTimeout
	case errors.Is(err, context.Canceled):
		return "interrupted", exitInterrupted
	}
	return err.Error(), exitFailed
}

// humanizeAPI escapes what the server said: its message and fields are
// one line each, inside the lines of the CLI's own.
func humanizeAPI(api *client.APIError) (string, int) {
	shown := *api
	shown.Message = deploy.EscapeText(api.Message)
	shown.ErrorID = deploy.EscapeText(api.ErrorID)
	shown.Fields = make([]deploy.FieldError, len(api.Fields))
	for i, f := range api.Fields {
		shown.Fields[i] = deploy.FieldError{Path: deploy.EscapeText(f.Path), Message: deploy.EscapeText(f.Message)}
	}
	api = &shown
	switch api.Code {
	case deploy.EINVALID:
		return withFields("invalid descriptor", api), exitRefused
	case deploy.EUNPROCESSABLE:
		return withFields("refused", api), exitRefused
	case deploy.EUNAUTHENTICATED:
		return fmt.Sprintf("not authenticated: %s\nSet %s (or --token) to a valid token, or sign in with manent login.", api.Message, envToken), exitAuth
	case deploy.EFORBIDDEN:
		return "permission denied: " + api.Message, exitAuth
	case deploy.EGROUPSOVERAGE:
		return "permission denied: " + api.Message + "\nAsk the identity provider's administrator to send only the groups manent needs.", exitAuth
	case deploy.ENOTFOUND:
		return api.Message, exitRefused
	case deploy.ECONFLICT:
		return "conflict: " + api.Message, exitRefused
	case deploy.EINTERNAL:
		if api.ErrorID != "" {
			return fmt.Sprintf("the server failed (error ID %s): an operator finds the cause in its logs", api.ErrorID), exitFailed
		}
		return "the server failed: " + api.Message, exitFailed
	}
	if api.Code != "" {
		return fmt.Sprintf("%s (%s)", api.Message, api.Code), exitFailed
	}
	return api.Message, exitFailed
}

// withFields prints every problem on its own line, "path: message", so a
// descriptor with five mistakes is fixed in one go.
func withFields(title string, api *client.APIError) string {
	if len(api.Fields) == 0 {
		if api.Message == "" {
			return title
		}
		return title + ": " + api.Message
	}
	var b strings.Builder
	b.WriteString(title + ":")
	for _, f := range api.Fields {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}
