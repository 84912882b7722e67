package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"manent.dev/manent/deploy"
)

// This file is the only place where errors become GraphQL errors (the REST
// writer of the server is the only other place codes reach the wire).
//
// Three kinds of errors reach the presenter: the coded *deploy.Error of the
// domain (shown with its code), gqlgen's own errors about the request
// (parse, validation, argument coercion, limits: shown as they are), and
// anything else a resolver returned, which may hold SQL or file paths and is
// replaced by "internal error" with an ID that is logged with the full error.

// resolverError marks what a resolver returned, so that the presenter can
// tell it from gqlgen's errors about the request: both arrive wrapped in a
// *gqlerror.Error.
type resolverError struct{ err error }

func (e *resolverError) Error() string { return e.err.Error() }
func (e *resolverError) Unwrap() error { return e.err }

// markResolverErrors is a field middleware: it wraps every error one of our
// resolvers returns in resolverError. Introspection fields are gqlgen's and
// their errors ("introspection disabled") are about the request.
func markResolverErrors(ctx context.Context, next graphql.Resolver) (any, error) {
	res, err := next(ctx)
	if err == nil {
		return res, nil
	}
	if fc := graphql.GetFieldContext(ctx); fc != nil && strings.HasPrefix(fc.Field.Name, "__") {
		return res, err
	}
	return res, &resolverError{err: err}
}

// ErrorPresenter turns an error into the GraphQL error the client sees.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		var coded *deploy.Error
		if errors.As(err, &coded) && coded.Code != deploy.EINTERNAL {
			out := CodedError(coded)
			out.Path, out.Locations = gerr.Path, gerr.Locations
			return out
		}
		var fromResolver *resolverError
		if !errors.As(err, &fromResolver) && coded == nil {
			return gerr
		}
		id := NewErrorID()
		log.ErrorContext(ctx, "graphql request failed", "error_id", id, "path", gerr.Path.String(), "error", err)
		out := internalError(id)
		out.Path, out.Locations = gerr.Path, gerr.Locations
		return out
	}
}

// CodedError is the GraphQL form of a domain error: its caller-safe message,
// extensions.code, and extensions.errors with every field error.
func CodedError(e *deploy.Error) *gqlerror.Error {
	ext := map[string]any{"code": string(e.Code)}
	if len(e.Fields) > 0 {
		ext["errors"] = FieldErrors(e.Fields)
	}
	return &gqlerror.Error{Message: e.Error(), Extensions: ext}
}

// FieldErrors returns fields as a non-nil list (the wire form of
// extensions.errors and of the REST errors array).
func FieldErrors(fields []deploy.FieldError) []deploy.FieldError {
	if fields == nil {
		return []deploy.FieldError{}
	}
	return fields
}

func internalError(id string) *gqlerror.Error {
	return &gqlerror.Error{
		Message:    "internal error",
		Extensions: map[string]any{"code": string(deploy.EINTERNAL), "errorId": id},
	}
}

// Recover handles a panic in a resolver like an internal error: the client
// gets an error ID, the log gets the panic and its stack.
func Recover(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		id := NewErrorID()
		log.ErrorContext(ctx, "graphql resolver panicked", "error_id", id,
			"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return internalError(id)
	}
}

// NewErrorID returns a random ID that ties an "internal error" seen by a
// client to the log line that holds the real error.
func NewErrorID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
