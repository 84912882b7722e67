package deploy

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies an Error so that the edges (GraphQL, REST, CLI) can translate
// it once, in one place each.
type Code string

const (
	// EINVALID: the descriptor is malformed; Error.Fields lists every problem.
	EINVALID Code = "INVALID_DESCRIPTOR"
	// EUNAUTHENTICATED: no identity, or an unknown token.
	EUNAUTHENTICATED Code = "UNAUTHENTICATED"
	// EFORBIDDEN: the identity lacks the permission.
	EFORBIDDEN Code = "FORBIDDEN"
	// EGROUPSOVERAGE: an OIDC token whose groups the provider left out
	// (too many to fit, an Azure "overage"): refused, never taken for an
	// identity without groups.
	EGROUPSOVERAGE Code = "GROUPS_OVERAGE"
	// EUNPROCESSABLE: a well-formed request that policy or configuration refuses (the spec's 422).
	EUNPROCESSABLE Code = "UNPROCESSABLE"
	// ENOTFOUND: no such object, or not readable by the caller.
	ENOTFOUND Code = "NOT_FOUND"
	// ECONFLICT: the request conflicts with the current state (for example cancelling a finished deploy).
	ECONFLICT Code = "CONFLICT"
	// EINTERNAL: anything else; its message never reaches a client.
	EINTERNAL Code = "INTERNAL"
)

// FieldError is one problem of a descriptor or configuration, with its path
// (deploy.targets[2].host).
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (f FieldError) String() string {
	if f.Path == "" {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// Error is the coded error of the domain. Message is safe to show to the
// caller; Fields carries every descriptor error when Code is EINVALID (and
// the reasons of an EUNPROCESSABLE refusal when there are several).
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// Permanent marks an execution error that retrying cannot fix.
	Permanent bool
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	parts := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		parts = append(parts, f.String())
	}
	if e.Message == "" {
		return strings.Join(parts, "; ")
	}
	return e.Message + ": " + strings.Join(parts, "; ")
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// The errors of an object that is not there. A store answers them for a
// missing object and the service for one the caller may not read: both must
// be the same bytes, or the answer tells another team's objects from missing
// ones.

// DeploymentNotFound is the ENOTFOUND of a deploy.
func DeploymentNotFound(id string) *Error {
	return Errorf(ENOTFOUND, "deployment %q not found", id)
}

// ReleaseNotFound is the ENOTFOUND of a composite release.
func ReleaseNotFound(id string) *Error { return Errorf(ENOTFOUND, "release %q not found", id) }

// ScheduleNotFound is the ENOTFOUND of a recurring schedule.
func ScheduleNotFound(name string) *Error { return Errorf(ENOTFOUND, "schedule %q not found", name) }

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other error, and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err: the message of its
// *Error, or "internal error" for anything else.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return "internal error"
}

// PermanentError marks err as one that retrying cannot improve (a 4xx from a
// system, a policy refusal, a bad parameter): the step fails at once.
type PermanentError struct{ Err error }

func (p *PermanentError) Error() string { return p.Err.Error() }
func (p *PermanentError) Unwrap() error { return p.Err }

// Permanent wraps err so that IsPermanent reports true.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// Permanentf is Permanent(fmt.Errorf(...)).
func Permanentf(format string, args ...any) error {
	return Permanent(fmt.Errorf(format, args...))
}

// IsPermanent reports whether err, or an error it wraps, is permanent.
func IsPermanent(err error) bool {
	var p *PermanentError
	if errors.As(err, &p) {
		return true
	}
	var e *Error
	return errors.As(err, &e) && e.Permanent
}
