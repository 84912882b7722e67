package graph

import (
	"strconv"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

func toAuditFilter(f *model.AuditFilter, first *int, after *string) deploy.AuditFilter {
	out := deploy.AuditFilter{First: deref(first), After: deref(after)}
	if f != nil {
		out.Tenant, out.Application, out.Environment = deref(f.Tenant), deref(f.Application), deref(f.Environment)
		out.Actor, out.Action = deref(f.Actor), deref(f.Action)
		out.Since, out.Until = f.Since, f.Until
	}
	return out
}

func toModelAuditConnection(p deploy.AuditPage) *model.AuditConnection {
	conn := &model.AuditConnection{
		Edges:    make([]model.AuditEdge, len(p.Items)),
		Nodes:    make([]model.AuditEntry, len(p.Items)),
		PageInfo: &model.PageInfo{HasNextPage: p.HasNextPage, EndCursor: optional(p.EndCursor)},
	}
	for i, e := range p.Items {
		details := e.Details
		if details == nil {
			details = map[string]any{}
		}
		res := make([]model.AuditResource, len(e.Resources))
		for j, r := range e.Resources {
			res[j] = model.AuditResource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}
		}
		conn.Nodes[i] = model.AuditEntry{ID: strconv.FormatInt(e.ID, 10), Time: e.Time, Actor: e.Actor, Action: e.Action,
			Target: e.Target, Details: details, Resources: res}
		cursor := ""
		if i < len(p.Cursors) {
			cursor = p.Cursors[i]
		}
		conn.Edges[i] = model.AuditEdge{Cursor: cursor, Node: &conn.Nodes[i]}
	}
	return conn
}
