package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/Khan/genqlient/graphql"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"manent.dev/manent/deploy"
)

// APIError is an error the server answered with: its extensions.code, the
// caller-safe message and, for INVALID_DESCRIPTOR (and multi-reason
// UNPROCESSABLE), every problem with its path.
type APIError struct {
	// Code is extensions.code: one of the deploy codes, or a GraphQL one
	// (GRAPHQL_VALIDATION_FAILED...) when the request itself was malformed;
	// empty when the server gave none.
	Code    deploy.Code
	Message string
	Fields  []deploy.FieldError
	// ErrorID is extensions.errorId of an INTERNAL error: what an operator
	// greps the server logs for.
	ErrorID string
}

func (e *APIError) Error() string {
	msg := e.Message
	// manent's server already spells the fields out in its message; another
	// server may not.
	var missing []string
	for _, f := range e.Fields {
		if !strings.Contains(msg, f.String()) {
			missing = append(missing, f.String())
		}
	}
	if len(missing) > 0 {
		if msg != "" {
			msg += ": "
		}
		msg += strings.Join(missing, "; ")
	}
	if e.Code == "" {
		return msg
	}
	return string(e.Code) + ": " + msg
}

// UnreachableError says the server could not be reached: connection refused,
// unknown host, timeout, connection dropped, a proxy answering that the
// server is down, or an address that is not a URL.
type UnreachableError struct {
	// Server is the address as configured, without any userinfo.
	Server string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the manent server at %s: %s", e.Server, e.Reason())
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Reason says in a few words why the server could not be reached
// ("connection refused", "timed out").
func (e *UnreachableError) Reason() string { return unreachableReason(e.Err) }

// Code returns the extensions.code of the APIError in err's chain, "" when
// there is none.
func Code(err error) deploy.Code {
	var api *APIError
	if errors.As(err, &api) {
		return api.Code
	}
	return ""
}

// mapError turns what genqlient and net/http return into APIError or
// UnreachableError, leaving the caller's own cancellation untouched so that
// errors.Is(err, context.DeadlineExceeded) still tells a --timeout.
func (c *Client) mapError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var source *tokenSourceError
	if errors.As(err, &source) {
		return source.err
	}
	var list gqlerror.List
	if errors.As(err, &list) {
		return apiErrorFrom(list)
	}
	var httpErr *graphql.HTTPError
	if errors.As(err, &httpErr) {
		return c.httpStatusError(httpErr.StatusCode, httpErr.Response.Errors)
	}
	if isUnreachable(err) {
		return &UnreachableError{Server: c.server, Err: err}
	}
	return fmt.Errorf("request to %s: %w", c.server, err)
}

// httpStatusError maps a non-200 answer: the GraphQL errors it carries when
// it has some, else what its status says.
func (c *Client) httpStatusError(status int, errs gqlerror.List) error {
	if api := apiErrorFrom(errs); api.Code != "" {
		return api
	}
	switch status {
	case http.StatusUnauthorized:
		return &APIError{Code: deploy.EUNAUTHENTICATED, Message: "the server refused the credentials"}
	case http.StatusForbidden:
		return &APIError{Code: deploy.EFORBIDDEN, Message: "permission denied"}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return &UnreachableError{Server: c.server, Err: fmt.Errorf("HTTP %d %s", status, http.StatusText(status))}
	case http.StatusNotFound:
		return fmt.Errorf("%s has no GraphQL endpoint at %s (HTTP 404): is it a manent server?", c.server, c.endpointPath)
	}
	return fmt.Errorf("server at %s answered HTTP %d %s", c.server, status, http.StatusText(status))
}

// apiErrorFrom picks the first coded error: a server answers one coded
// error per refusal, and INVALID_DESCRIPTOR carries all its problems in
// extensions.errors. Uncoded errors (a schema mismatch) are joined.
func apiErrorFrom(list gqlerror.List) *APIError {
	var msgs []string
	for _, e := range list {
		if e == nil {
			continue
		}
		code, _ := e.Extensions["code"].(string)
		if code == "" {
			msgs = append(msgs, e.Message)
			continue
		}
		api := &APIError{Code: deploy.Code(code), Message: e.Message}
		api.ErrorID, _ = e.Extensions["errorId"].(string)
		api.Fields = fieldErrors(e.Extensions["errors"])
		return api
	}
	return &APIError{Message: strings.Join(msgs, "; ")}
}

// fieldErrors reads extensions.errors: a list of {path, message}.
func fieldErrors(v any) []deploy.FieldError {
	items, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]deploy.FieldError, 0, len(items))
	for _, it := range items {
		switch m := it.(type) {
		case map[string]any:
			path, _ := m["path"].(string)
			msg, _ := m["message"].(string)
			out = append(out, deploy.FieldError{Path: path, Message: msg})
		case string:
			out = append(out, deploy.FieldError{Message: m})
		}
	}
	return out
}

// isUnreachable reports whether err means no server answered: the cases
// where checking the address (MANENT_SERVER) is the useful advice.
func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr), errors.As(err, &opErr):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, syscall.EPIPE):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// The server closed the connection without answering: it died or
		// restarted under us.
		return true
	}
	var ce *websocket.CloseError
	return errors.As(err, &ce) && droppedCodes[ce.Code]
}

// droppedCodes are the websocket closes of a server that went away: killed
// (1006, no close frame), shutting down (1001) or restarting (1012, 1013).
var droppedCodes = map[int]bool{
	websocket.CloseAbnormalClosure: true, websocket.CloseGoingAway: true,
	websocket.CloseServiceRestart: true, websocket.CloseTryAgainLater: true,
}

// unreachableReason says in a few words why: the full net error repeats the
// URL and the dial details.
func unreachableReason(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case err == nil:
		return "unknown error"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "unknown host " + dnsErr.Name
		}
		return "cannot resolve " + dnsErr.Name
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		websocket.IsCloseError(err, websocket.CloseAbnormalClosure):
		return "the connection was closed by the server"
	case websocket.IsCloseError(err, websocket.CloseGoingAway, websocket.CloseServiceRestart, websocket.CloseTryAgainLater):
		return "the server is shutting down or restarting"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host"
	}
	return err.Error()
}
