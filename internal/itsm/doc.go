// Package itsm is the generic HTTP connector to an ITSM's change management:
// it opens a change ticket for a deploy, reads whether it was approved, and
// closes it with the deploy's outcome, all described by configuration.
//
// It imports deploy, internal/jsonpath, internal/safehttp and the standard
// library.
package itsm
