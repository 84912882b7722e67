// Package jsonpath reads the JSON paths that custom steps and the ITSM
// connector write to find a value in a JSON answer ($.result.id,
// $.items[0], $["a.b"]): RFC 9535's syntax, parsed by the theory/jsonpath
// library, held to its singular queries (member names and indexes, no
// wildcards, slices, filters or descendants), so a path names one value or
// none. manent.yml is checked with Parse, and the answers are read with
// the Path it returns.
//
// It imports theory/jsonpath and the standard library.
package jsonpath
