package postgres

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// Page sizes of List.
const (
	defaultPageSize = 50
	maxPageSize     = deploy.MaxPageSize
	// maxScanned bounds the rows one List call reads while filtering with
	// Readable: past it the page ends short but its cursor skips what was
	// read, so no deploy is ever skipped or listed twice.
	maxScanned = 5000
)

// cursor is the position of a deploy in the newest-first order.
type cursor struct {
	createdAt time.Time
	id        string
}

func (c cursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.createdAt.UTC().Format(time.RFC3339Nano) + "|" + c.id))
}

func decodeCursor(s string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, deploy.Errorf(deploy.EUNPROCESSABLE, "invalid cursor")
	}
	at, id, ok := strings.Cut(string(b), "|")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || id == "" {
		return cursor{}, deploy.Errorf(deploy.EUNPROCESSABLE, "invalid cursor")
	}
	return cursor{createdAt: t, id: id}, nil
}

// List implements deploy.Store: keyset pagination on (created_at, id), newest
// first. Readable is applied here, on rows read in batches until the page is
// full, so a caller who may read few deploys still gets full pages.
func (s *Store) List(ctx context.Context, f deploy.ListFilter) (deploy.Page, error) {
	first := f.First
	if first <= 0 {
		first = defaultPageSize
	}
	first = min(first, maxPageSize)
	var after *cursor
	if f.After != "" {
		c, err := decodeCursor(f.After)
		if err != nil {
			return deploy.Page{}, err
		}
		after = &c
	}
	batch := first + 1
	if f.Readable != nil {
		batch = max(2*batch, 100)
	}
	var kept []*deploymentRow
	scanned, truncated := 0, false
scan:
	for {
		rows, err := s.listBatch(ctx, f, after, batch)
		if err != nil {
			return deploy.Page{}, wrap("list deployments", err)
		}
		for _, r := range rows {
			scanned++
			after = &cursor{createdAt: r.CreatedAt, id: r.ID}
			if f.Readable == nil || f.Readable(deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}) {
				kept = append(kept, r)
				if len(kept) > first {
					break scan
				}
			}
		}
		if len(rows) < batch {
			break
		}
		if scanned >= maxScanned {
			truncated = true
			break
		}
	}
	page := deploy.Page{HasNextPage: len(kept) > first || truncated}
	if len(kept) > first {
		kept = kept[:first]
	}
	switch {
	case truncated:
		page.EndCursor = after.encode()
	case len(kept) > 0:
		last := kept[len(kept)-1]
		page.EndCursor = cursor{createdAt: last.CreatedAt, id: last.ID}.encode()
	}
	if len(kept) == 0 {
		return page, nil
	}
	ids := make([]string, len(kept))
	for i, r := range kept {
		ids[i] = r.ID
	}
	steps, err := s.steps(ctx, ids...)
	if err != nil {
		return deploy.Page{}, err
	}
	page.Items = make([]deploy.Deployment, len(kept))
	page.Cursors = make([]string, len(kept))
	for i, r := range kept {
		page.Items[i] = fromDeploymentRow(r)
		page.Items[i].Steps = steps[r.ID]
		page.Cursors[i] = cursor{createdAt: r.CreatedAt, id: r.ID}.encode()
	}
	if err := s.loadWaits(ctx, page.Items); err != nil {
		return deploy.Page{}, err
	}
	return page, nil
}

// loadWaits reads the approvals (the deploy's own and its waves') and the
// dependency states of a page of deploys, as Get does for one, in one query
// each: a list shows the same approval, rollout and after sections as the
// status of each deploy.
func (s *Store) loadWaits(ctx context.Context, ds []deploy.Deployment) error {
	var approvalIDs, rolloutIDs, after []string
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Decision.Approvals != nil {
			approvalIDs = append(approvalIDs, d.ID)
		}
		if d.Effective.Rollout != nil {
			rolloutIDs = append(rolloutIDs, d.ID)
		}
		for _, dep := range d.Descriptor.After {
			if !seen[dep] {
				seen[dep] = true
				after = append(after, dep)
			}
		}
	}
	if len(approvalIDs) > 0 {
		approvals, err := s.approvalsOf(ctx, approvalIDs...)
		if err != nil {
			return err
		}
		for i := range ds {
			if ds[i].Decision.Approvals != nil {
				ds[i].Approvals = nonNil(approvals[ds[i].ID])
			}
		}
	}
	if len(rolloutIDs) > 0 {
		approvals, err := s.waveApprovalsOf(ctx, rolloutIDs...)
		if err != nil {
			return err
		}
		for i := range ds {
			if ds[i].Effective.Rollout != nil {
				ds[i].WaveApprovals = nonNil(approvals[ds[i].ID])
			}
		}
	}
	if len(after) == 0 {
		return nil
	}
	states, err := s.dependencyStates(ctx, after)
	if err != nil {
		return err
	}
	byID := make(map[string]deploy.Dependency, len(states))
	for _, dep := range states {
		byID[dep.ID] = dep
	}
	for i := range ds {
		if len(ds[i].Descriptor.After) == 0 {
			continue
		}
		ds[i].Dependencies = make([]deploy.Dependency, len(ds[i].Descriptor.After))
		for j, id := range ds[i].Descriptor.After {
			ds[i].Dependencies[j] = byID[id]
		}
	}
	return nil
}

func (s *Store) listBatch(ctx context.Context, f deploy.ListFilter, after *cursor, limit int) ([]*deploymentRow, error) {
	var rows []*deploymentRow
	q := s.db.NewSelect().Model(&rows)
	for _, eq := range []struct{ col, val string }{
		{"d.tenant", f.Tenant}, {"d.application", f.Application},
		{"d.environment", f.Environment}, {"d.requester", f.Requester},
	} {
		if eq.val != "" {
			q = q.Where("? = ?", bun.Safe(eq.col), eq.val)
		}
	}
	if len(f.States) > 0 {
		q = q.Where("d.state IN (?)", bun.List(f.States))
	}
	if f.ActiveOnly {
		q = q.Where("d.state IN (?)", bun.List(activeStates))
	}
	if f.AwaitingApproval {
		// What deploy.Deployment.WaveAwaitingApproval reads from the steps:
		// a running deploy whose rollout's approval record is running.
		q = q.Where(`(d.state = ? OR (d.state = ? AND EXISTS (SELECT 1 FROM manent.deployment_steps s
			WHERE s.deployment_id = d.id AND s.name = ? AND s.kind = ? AND s.state = ?)))`,
			deploy.StateAwaitingApproval, deploy.StatePending, deploy.StepApproval, deploy.KindRun, deploy.StepRunning)
	}
	if f.CreatedAfter != nil {
		q = q.Where("d.created_at > ?", *f.CreatedAfter)
	}
	if f.CreatedBefore != nil {
		q = q.Where("d.created_at < ?", *f.CreatedBefore)
	}
	if after != nil {
		q = q.Where("(d.created_at, d.id) < (?, ?)", after.createdAt, after.id)
	}
	err := q.OrderExpr("d.created_at DESC, d.id DESC").Limit(int64(limit)).Scan(ctx)
	return rows, err
}

// nonNil is list, or an empty list for none: a deploy read with its
// answers has a list of them, as Get gives it.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
