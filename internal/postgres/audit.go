package postgres

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

var _ deploy.AuditReader = (*Store)(nil)

type auditListRow struct {
	ID        int64           `bun:"id"`
	Time      time.Time       `bun:"time"`
	Actor     string          `bun:"actor"`
	Action    string          `bun:"action"`
	Target    string          `bun:"target"`
	Details   json.RawMessage `bun:"details"`
	Resources json.RawMessage `bun:"resources"`
}

type auditResource struct {
	Tenant      string `json:"tenant"`
	Application string `json:"application"`
	Environment string `json:"environment"`
}

func encodeAuditCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("audit|" + strconv.FormatInt(id, 10)))
}

func decodeAuditCursor(s string) (int64, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		if rest, ok := strings.CutPrefix(string(b), "audit|"); ok {
			if id, err := strconv.ParseInt(rest, 10, 64); err == nil && id > 0 {
				return id, nil
			}
		}
	}
	return 0, deploy.Errorf(deploy.EUNPROCESSABLE, "invalid cursor")
}

// ListAudit implements deploy.AuditReader. An entry's resources are those
// recorded when it was written (manent.audit_fill_resources), never what
// holds its target's ID or name now: a reused ID or schedule name brings no
// old entry along, and a removed deploy's entries keep their resource. The
// filters on the resources are applied in the database (an entry matches
// when one of its resources does); Readable in batches, like the lists of deploys, so a page never
// reads the whole log and its cursor skips what was read.
func (s *Store) ListAudit(ctx context.Context, f deploy.AuditFilter) (deploy.AuditPage, error) {
	first := f.First
	if first <= 0 {
		first = defaultPageSize
	}
	first = min(first, maxPageSize)
	var after int64
	if f.After != "" {
		id, err := decodeAuditCursor(f.After)
		if err != nil {
			return deploy.AuditPage{}, err
		}
		after = id
	}
	match := map[string]string{}
	for k, v := range map[string]string{"tenant": f.Tenant, "application": f.Application, "environment": f.Environment} {
		if v != "" {
			match[k] = v
		}
	}
	var page deploy.AuditPage
	scanned := 0
	const batch = 200
	for {
		q := s.db.NewSelect().TableExpr("manent.audit AS a").
			ColumnExpr("a.id, a.time, a.actor, a.action, a.target, a.details").
			ColumnExpr("COALESCE(a.resources, '[]'::jsonb) AS resources").
			OrderExpr("a.id DESC").Limit(batch)
		if after > 0 {
			q = q.Where("a.id < ?", after)
		}
		if f.Actor != "" {
			q = q.Where("a.actor = ?", f.Actor)
		}
		if prefix, ok := strings.CutSuffix(f.Action, "*"); ok {
			q = q.Where("starts_with(a.action, ?)", prefix)
		} else if f.Action != "" {
			q = q.Where("a.action = ?", f.Action)
		}
		if f.Since != nil {
			q = q.Where("a.time >= ?", f.Since.UTC())
		}
		if f.Until != nil {
			q = q.Where("a.time < ?", f.Until.UTC())
		}
		if len(match) > 0 {
			b, err := json.Marshal([]map[string]string{match})
			if err != nil {
				return deploy.AuditPage{}, err
			}
			q = q.Where("a.resources @> ?::jsonb", string(b))
		}
		var rows []auditListRow
		if err := q.Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return deploy.AuditPage{}, wrap("list audit entries", err)
		}
		for _, r := range rows {
			e, err := fromAuditListRow(r)
			if err != nil {
				return deploy.AuditPage{}, err
			}
			scanned++
			if f.Readable == nil || f.Readable(e) {
				if len(page.Items) == first {
					page.HasNextPage = true
					return page, nil
				}
				page.Items = append(page.Items, e)
				page.EndCursor = encodeAuditCursor(e.ID)
				page.Cursors = append(page.Cursors, page.EndCursor)
			}
			after = e.ID
			if scanned >= maxScanned {
				// The page ends short; its cursor skips what was read.
				page.EndCursor, page.HasNextPage = encodeAuditCursor(after), true
				return page, nil
			}
		}
		if len(rows) < batch {
			return page, nil
		}
	}
}

func fromAuditListRow(r auditListRow) (deploy.AuditEntry, error) {
	e := deploy.AuditEntry{ID: r.ID, Time: r.Time.UTC(), Actor: r.Actor, Action: r.Action, Target: r.Target}
	if err := json.Unmarshal(r.Details, &e.Details); err != nil {
		return e, wrap("read audit entry details", err)
	}
	var res []auditResource
	if err := json.Unmarshal(r.Resources, &res); err != nil {
		return e, wrap("read audit entry resources", err)
	}
	for _, x := range res {
		e.Resources = append(e.Resources, deploy.Resource{Tenant: x.Tenant, Application: x.Application, Environment: x.Environment})
	}
	return e, nil
}
