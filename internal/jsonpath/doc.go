// Package jsonpath reads the JSON paths custom steps write to find a value
// in a JSON response ($.result.id, $.items[0], $["a.b"]): member names and
// list indexes from the root only, no wildcards, filters or recursive
// descent, so a path names one value or none. manent.yml is checked with
// Parse, and the steps read responses with the Path it returns.
//
// It imports only the standard library.
package jsonpath
