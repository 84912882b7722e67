package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

const auditReleaseFinish = "release.finish"

func releaseNotFound(id string) error {
	return deploy.ReleaseNotFound(id)
}

// CreateRelease implements deploy.Store.
func (s *Store) CreateRelease(ctx context.Context, r deploy.Release, enqueue func(tx any) error) (*deploy.Release, bool, error) {
	if r.ID == "" {
		return nil, false, errors.New("create release: no ID")
	}
	desc, err := json.Marshal(r.Descriptor)
	if err != nil {
		return nil, false, wrap("create release", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, wrap("create release", err)
	}
	defer func() { _ = tx.Rollback() }()
	// ON CONFLICT waits for a concurrent insert of the same ID: of two
	// submits of one release exactly one inserts.
	res, err := tx.ExecContext(ctx, `INSERT INTO manent.releases (id, requester, on_failure, state, descriptor)
		VALUES (?, ?, ?, ?, ?::jsonb) ON CONFLICT (id) DO NOTHING`,
		r.ID, r.Requester, r.OnFailure, deploy.ReleasePending, string(desc))
	if err != nil {
		return nil, false, wrap("create release", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		_ = tx.Rollback()
		existing, err := s.GetRelease(ctx, r.ID)
		if err != nil {
			return nil, false, wrap("read existing release", err)
		}
		return existing, false, nil
	}
	for i, m := range r.Deploys {
		after, err := json.Marshal(nonNilStrings(m.After))
		if err != nil {
			return nil, false, err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO manent.release_deploys
			(release_id, name, position, deployment_id, tenant, application, environment, after)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
			r.ID, m.Name, i, m.DeploymentID, m.Tenant, m.Application, m.Environment, string(after))
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return nil, false, deploy.Errorf(deploy.ECONFLICT, "deploy ID %q already belongs to another release", m.DeploymentID)
		}
		if err != nil {
			return nil, false, wrap("create release deploy", err)
		}
	}
	ids := make([]string, len(r.Deploys))
	for i, m := range r.Deploys {
		ids[i] = m.DeploymentID
	}
	// Audited in the transaction that stores it, like a deploy's submission.
	if err := insertAudit(ctx, tx, deploy.AuditEntry{Actor: r.Requester, Action: "release.submit", Target: r.ID,
		Details: map[string]any{"on_failure": r.OnFailure, "deploys": ids}}); err != nil {
		return nil, false, wrap("audit release submission", err)
	}
	if err := notify(ctx, tx, deploy.EventRelease, r.ID); err != nil {
		return nil, false, err
	}
	if enqueue != nil {
		if err := enqueue(tx.Tx); err != nil {
			return nil, false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, false, wrap("create release", err)
	}
	got, err := s.GetRelease(ctx, r.ID)
	if err != nil {
		return nil, false, err
	}
	return got, true, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// releaseQuery reads releases with their deploys, the deploys' states and
// their rollbacks' states: one row per deploy of a release.
const releaseQuery = `SELECT r.id, r.requester, r.on_failure, r.state, r.descriptor::text AS descriptor,
		r.created_at, r.finished_at, r.updated_at, r.error,
		m.name, m.deployment_id, m.tenant, m.application, m.environment, m.after::text AS after,
		-- A deploy accepted with its release shows ENQUEUED until the release
		-- workflow has queued it (its row does not exist before).
		COALESCE(d.state, NULLIF(m.state, ''), CASE WHEN r.state = 'PENDING' THEN 'ENQUEUED' ELSE '' END) AS member_state,
		CASE WHEN m.error <> '' THEN m.error ELSE COALESCE(d.error, '') END AS member_error,
		m.rollback_deployment_id,
		CASE WHEN m.rollback_deployment_id <> '' THEN COALESCE(rb.state, m.rollback_state) ELSE m.rollback_state END AS rollback_state,
		CASE WHEN m.rollback_error <> '' THEN m.rollback_error ELSE COALESCE(rb.error, '') END AS rollback_error
	FROM manent.releases AS r
	JOIN manent.release_deploys AS m ON m.release_id = r.id
	LEFT JOIN manent.deployments AS d ON d.id = m.deployment_id AND d.release = r.id
	-- Only the rollback deploy of this release and deploy: never another
	-- deploy that holds its ID.
	LEFT JOIN manent.deployments AS rb ON rb.id = m.rollback_deployment_id AND rb.release = r.id
		AND rb.rollback_of = m.deployment_id`

type releaseRow struct {
	ID                   string     `bun:"id"`
	Requester            string     `bun:"requester"`
	OnFailure            string     `bun:"on_failure"`
	State                string     `bun:"state"`
	Descriptor           string     `bun:"descriptor"`
	CreatedAt            time.Time  `bun:"created_at"`
	FinishedAt           *time.Time `bun:"finished_at"`
	UpdatedAt            time.Time  `bun:"updated_at"`
	Error                string     `bun:"error"`
	Name                 string     `bun:"name"`
	DeploymentID         string     `bun:"deployment_id"`
	Tenant               string     `bun:"tenant"`
	Application          string     `bun:"application"`
	Environment          string     `bun:"environment"`
	After                string     `bun:"after"`
	MemberState          string     `bun:"member_state"`
	MemberError          string     `bun:"member_error"`
	RollbackDeploymentID string     `bun:"rollback_deployment_id"`
	RollbackState        string     `bun:"rollback_state"`
	RollbackError        string     `bun:"rollback_error"`
}

// fromReleaseRows groups rows (ordered by release, then position) into releases.
func fromReleaseRows(rows []releaseRow) ([]deploy.Release, error) {
	var out []deploy.Release
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r.ID {
			rel := deploy.Release{
				ID: r.ID, Requester: r.Requester, OnFailure: r.OnFailure, State: deploy.ReleaseState(r.State),
				CreatedAt: r.CreatedAt.UTC(), FinishedAt: utcPtr(r.FinishedAt), UpdatedAt: r.UpdatedAt.UTC(), Error: r.Error,
			}
			if err := json.Unmarshal([]byte(r.Descriptor), &rel.Descriptor); err != nil {
				return nil, wrap("decode release descriptor", err)
			}
			out = append(out, rel)
		}
		m := deploy.ReleaseDeploy{
			Name: r.Name, DeploymentID: r.DeploymentID, Tenant: r.Tenant, Application: r.Application,
			Environment: r.Environment, State: deploy.State(r.MemberState), Error: r.MemberError,
			RollbackDeploymentID: r.RollbackDeploymentID, RollbackState: r.RollbackState, RollbackError: r.RollbackError,
		}
		if err := json.Unmarshal([]byte(r.After), &m.After); err != nil {
			return nil, wrap("decode release dependencies", err)
		}
		last := &out[len(out)-1]
		last.Deploys = append(last.Deploys, m)
	}
	return out, nil
}

// GetRelease implements deploy.Store.
func (s *Store) GetRelease(ctx context.Context, id string) (*deploy.Release, error) {
	var rows []releaseRow
	err := s.db.NewRaw(releaseQuery+` WHERE r.id = ? ORDER BY m.position`, id).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get release", err)
	}
	rels, err := fromReleaseRows(rows)
	if err != nil {
		return nil, err
	}
	if len(rels) == 0 {
		return nil, releaseNotFound(id)
	}
	return &rels[0], nil
}

// ListReleases implements deploy.Store: keyset pagination on (created_at,
// id), newest first, with Readable applied on batches read until the page
// is full (bounded by maxScanned, as List).
func (s *Store) ListReleases(ctx context.Context, f deploy.ReleaseFilter) (deploy.ReleasePage, error) {
	first := f.First
	if first <= 0 {
		first = defaultPageSize
	}
	first = min(first, maxPageSize)
	var after *cursor
	if f.After != "" {
		c, err := decodeCursor(f.After)
		if err != nil {
			return deploy.ReleasePage{}, err
		}
		after = &c
	}
	var page deploy.ReleasePage
	scanned := 0
	var last *cursor
	for {
		batch := 200
		var ids []struct {
			ID        string    `bun:"id"`
			CreatedAt time.Time `bun:"created_at"`
		}
		q := s.db.NewSelect().Table("manent.releases").Column("id", "created_at").
			OrderExpr("created_at DESC, id DESC").Limit(int64(batch))
		if after != nil {
			q = q.Where("(created_at, id) < (?, ?)", after.createdAt, after.id)
		}
		if err := q.Scan(ctx, &ids); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return deploy.ReleasePage{}, wrap("list releases", err)
		}
		if len(ids) == 0 {
			return page, nil
		}
		list := make([]string, len(ids))
		for i, r := range ids {
			list[i] = r.ID
		}
		var rows []releaseRow
		err := s.db.NewRaw(releaseQuery+` WHERE r.id IN (?) ORDER BY r.created_at DESC, r.id DESC, m.position`, bun.List(list)).Scan(ctx, &rows)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return deploy.ReleasePage{}, wrap("list releases", err)
		}
		rels, err := fromReleaseRows(rows)
		if err != nil {
			return deploy.ReleasePage{}, err
		}
		for i := range rels {
			r := rels[i]
			c := cursor{createdAt: r.CreatedAt, id: r.ID}
			scanned++
			if readableRelease(r, f.Readable) {
				if len(page.Items) == first {
					page.HasNextPage = true
					return page, nil
				}
				page.Items = append(page.Items, r)
				page.EndCursor = c.encode()
			}
			last = &c
			if scanned >= maxScanned {
				// The page ends short; its cursor skips what was read.
				page.EndCursor, page.HasNextPage = last.encode(), true
				return page, nil
			}
		}
		if len(ids) < batch {
			return page, nil
		}
		after = last
	}
}

func readableRelease(r deploy.Release, readable func(deploy.Resource) bool) bool {
	if readable == nil {
		return true
	}
	for _, m := range r.Deploys {
		if !readable(m.Resource()) {
			return false
		}
	}
	return true
}

// MarkReleaseDeploy implements deploy.Store.
func (s *Store) MarkReleaseDeploy(ctx context.Context, releaseID, name string, state deploy.State, reason string) error {
	return s.updateRelease(ctx, releaseID, `UPDATE manent.release_deploys SET state = ?, error = ?
		WHERE release_id = ? AND name = ?`, state, line(reason), releaseID, name)
}

// SetReleaseRollback implements deploy.Store.
func (s *Store) SetReleaseRollback(ctx context.Context, releaseID, name, deploymentID, state, reason string) error {
	return s.updateRelease(ctx, releaseID, `UPDATE manent.release_deploys SET rollback_deployment_id = ?,
		rollback_state = ?, rollback_error = ? WHERE release_id = ? AND name = ?`,
		deploymentID, state, line(reason), releaseID, name)
}

func (s *Store) updateRelease(ctx context.Context, releaseID, update string, args ...any) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, update, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return releaseNotFound(releaseID)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE manent.releases SET updated_at = now() WHERE id = ?", releaseID); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventRelease, releaseID)
	})
	return wrap("update release", err)
}

// FinishRelease implements deploy.Store.
func (s *Store) FinishRelease(ctx context.Context, id string, state deploy.ReleaseState, reason, actor string) (bool, error) {
	if !state.Terminal() {
		return false, fmt.Errorf("finish release %s: %s is not a final state", id, state)
	}
	reason = line(reason)
	finished := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE manent.releases SET state = ?, error = ?, finished_at = now(), updated_at = now()
			WHERE id = ? AND state = ?`, state, reason, id, deploy.ReleasePending)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			found, err := tx.NewSelect().Table("manent.releases").Where("id = ?", id).Exists(ctx)
			if err != nil {
				return err
			}
			if !found {
				return releaseNotFound(id)
			}
			return nil
		}
		finished = true
		details := map[string]any{"state": state}
		if reason != "" {
			details["error"] = reason
		}
		if err := insertAudit(ctx, tx, deploy.AuditEntry{Actor: actor, Action: auditReleaseFinish, Target: id, Details: details}); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventRelease, id)
	})
	return finished, wrap("finish release", err)
}

// DeploymentRelease implements deploy.Store.
func (s *Store) DeploymentRelease(ctx context.Context, deploymentID string) (string, error) {
	var rel sql.NullString
	err := s.db.QueryRowContext(ctx, "SELECT release FROM manent.deployments WHERE id = ?", deploymentID).Scan(&rel)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(deploymentID)
	}
	if err != nil {
		return "", wrap("read release of deployment", err)
	}
	return rel.String, nil
}
