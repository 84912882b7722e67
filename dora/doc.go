// Package dora computes the five dora.dev delivery metrics (deployment
// frequency, lead time for changes, change fail rate, failed deployment
// recovery time, deployment rework rate) from a list of deploy outcomes,
// in ISO weekly buckets (UTC), each figure carrying the deploys behind it.
//
// It is pure (no clock, no I/O).
//
// It imports only the standard library.
package dora
