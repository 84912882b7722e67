package server

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph"
)

// This file is the REST error writer: with graph's error presenter, the only
// place where error codes become something a client sees. (writeGraphQLError
// answers the GraphQL requests refused before gqlgen, in the presenter's
// shape.)

// httpStatus is the HTTP status of a domain error code.
func httpStatus(code deploy.Code) int {
	switch code {
	case deploy.EINVALID, deploy.EUNPROCESSABLE:
		return http.StatusUnprocessableEntity
	case deploy.EUNAUTHENTICATED:
		return http.StatusUnauthorized
	case deploy.EFORBIDDEN, deploy.EGROUPSOVERAGE:
		return http.StatusForbidden
	case deploy.ENOTFOUND:
		return http.StatusNotFound
	case deploy.ECONFLICT:
		return http.StatusConflict
	default:
		return http.StatusInternalServerError
	}
}

// restError is the body of every REST error.
type restError struct {
	Error restErrorBody `json:"error"`
}

type restErrorBody struct {
	Code    deploy.Code         `json:"code"`
	Message string              `json:"message"`
	Errors  []deploy.FieldError `json:"errors,omitempty"`
	ErrorID string              `json:"error_id,omitempty"`
}

// writeError answers a REST request with err: a coded error with its
// status, code, message and field errors; anything else as a 500 whose
// body holds only an error ID, logged with the real error.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var coded *deploy.Error
	body := restErrorBody{Code: deploy.EINTERNAL, Message: "internal error"}
	if errors.As(err, &coded) && coded.Code != deploy.EINTERNAL {
		body = restErrorBody{Code: coded.Code, Message: coded.Error(), Errors: coded.Fields}
		if coded.Code == deploy.EINVALID || coded.Code == deploy.EUNPROCESSABLE {
			body.Errors = graph.FieldErrors(coded.Fields)
		}
	} else {
		body.ErrorID = graph.NewErrorID()
		log.ErrorContext(r.Context(), "request failed", "error_id", body.ErrorID,
			"method", r.Method, "path", r.URL.Path, "error", err)
	}
	if body.Code == deploy.EUNAUTHENTICATED {
		w.Header().Set("WWW-Authenticate", `Bearer realm="manent"`)
	}
	writeJSON(w, httpStatus(body.Code), restError{Error: body})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeGraphQLError answers a GraphQL request refused before it reached
// gqlgen, in the GraphQL error shape (genqlient reads it on any status).
func writeGraphQLError(w http.ResponseWriter, r *http.Request, log *slog.Logger, status int, err error) {
	var coded *deploy.Error
	var gerr any
	if errors.As(err, &coded) && coded.Code != deploy.EINTERNAL {
		gerr = graph.CodedError(coded)
		if coded.Code == deploy.EUNAUTHENTICATED {
			w.Header().Set("WWW-Authenticate", `Bearer realm="manent"`)
		}
	} else {
		id := graph.NewErrorID()
		log.ErrorContext(r.Context(), "request failed", "error_id", id, "path", r.URL.Path, "error", err)
		status = http.StatusInternalServerError
		gerr = map[string]any{"message": "internal error",
			"extensions": map[string]any{"code": deploy.EINTERNAL, "errorId": id}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []any{gerr}})
}
