//go:build tools

// Package tools pins the code generators in go.mod, so `go run` uses the
// version the committed generated code was made with.
package tools

import (
	_ "github.com/99designs/gqlgen"
)
