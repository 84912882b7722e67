package client

import (
	"context"
	"time"
)

// AuditFilter selects audit entries; empty fields match everything.
type AuditFilter struct {
	Tenant, Application, Environment string
	// Actor is the identity that acted; Action an action or a prefix
	// ending in *.
	Actor, Action string
	Since, Until  *time.Time
}

// Audit returns up to limit audit entries matching f, newest first,
// following the cursor across pages; limit <= 0 reads every page.
func (c *Client) Audit(ctx context.Context, f AuditFilter, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	after := ""
	for limit <= 0 || len(out) < limit {
		size := maxPage
		if limit > 0 {
			size = min(limit-len(out), maxPage)
		}
		resp, err := ListAuditEntries(ctx, c.gql, f.Tenant, f.Application, f.Environment, f.Actor, f.Action,
			f.Since, f.Until, size, after)
		if err != nil {
			return nil, err
		}
		out = append(out, resp.AuditEntries.Nodes...)
		if !resp.AuditEntries.PageInfo.HasNextPage {
			break
		}
		after = resp.AuditEntries.PageInfo.EndCursor
	}
	return out, nil
}
