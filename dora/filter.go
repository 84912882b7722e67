package dora

import "time"

// Scope is one application in one environment of one tenant; "" fields
// in a Filter select any.
type Scope struct{ Tenant, Application, Environment string }

// Filter selects the outcomes a computation reads.
type Filter struct {
	// Since bounds the deploys read to those finished at or after it.
	Since time.Time
	Scope
	// Readable, when set, keeps only the deploys the reader may read.
	Readable func(Scope) bool
}

// Query is what the metrics are asked for; zero fields take the service's
// defaults (To now, From four weeks before To, DefaultFailureWindow).
type Query struct {
	Scope
	From, To      time.Time
	FailureWindow time.Duration
}
