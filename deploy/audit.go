package deploy

import (
	"context"
	"time"
)

// AuditFilter selects audit entries, newest first. Empty fields select all.
type AuditFilter struct {
	Tenant      string
	Application string
	Environment string
	// Actor is the identity that acted (token:<name>, oidc:<user>, system).
	Actor string
	// Action is an action (deployment.submit) or, ending in *, a prefix of
	// actions (rollout.*).
	Action string
	// Since and Until bound the entries' times: [Since, Until).
	Since, Until *time.Time
	// Readable keeps the entries it accepts; nil keeps all.
	Readable func(AuditEntry) bool
	First    int
	After    string
}

// AuditPage is one page of audit entries.
type AuditPage struct {
	Items []AuditEntry
	// Cursors are those of Items, one each, to pass as After.
	Cursors     []string
	EndCursor   string
	HasNextPage bool
}

// AuditReader reads the audit log.
type AuditReader interface {
	// ListAudit returns a page of entries, newest first, each with the
	// resources of its target (Resources). EUNPROCESSABLE (a bad cursor).
	ListAudit(ctx context.Context, f AuditFilter) (AuditPage, error)
}

// AuditService is the part of Service that reads the audit log.
type AuditService interface {
	// ListAudit returns the entries the caller may read that match f
	// (f.Readable is the service's). EUNAUTHENTICATED, EUNPROCESSABLE.
	ListAudit(ctx context.Context, f AuditFilter) (AuditPage, error)
}
