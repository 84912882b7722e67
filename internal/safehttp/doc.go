// Package safehttp is the outbound HTTP client of manent: artifact downloads,
// health checks and later callbacks and ITSM calls. It never follows
// redirects, caps response sizes, has timeouts, and refuses link-local and
// cloud metadata addresses unless told otherwise.
//
// It imports only the standard library.
package safehttp
