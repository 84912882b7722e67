package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// dependencyStates returns the dependencies ids in their order, with their
// states and where they are (for the read check of a viewer), in one query;
// an ID with no deploy (deleted by retention) has an empty state.
func (s *Store) dependencyStates(ctx context.Context, ids []string) ([]deploy.Dependency, error) {
	var rows []dependencyRow
	err := s.db.NewRaw(`SELECT id, state, tenant, application, environment FROM manent.deployments WHERE id IN (?)`,
		bun.List(ids)).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read dependencies", err)
	}
	return inOrder(ids, rows), nil
}

// inOrder is the dependencies ids, in their order, from the rows read of
// those that exist.
func inOrder(ids []string, rows []dependencyRow) []deploy.Dependency {
	byID := make(map[string]deploy.Dependency, len(rows))
	for _, r := range rows {
		byID[r.ID] = r.dependency()
	}
	out := make([]deploy.Dependency, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
		out[i].ID = id
	}
	return out
}

type dependencyRow struct {
	ID          string `bun:"id"`
	State       string `bun:"state"`
	Tenant      string `bun:"tenant"`
	Application string `bun:"application"`
	Environment string `bun:"environment"`
}

func (r dependencyRow) dependency() deploy.Dependency {
	return deploy.Dependency{ID: r.ID, State: deploy.State(r.State),
		Resource: deploy.Resource{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}}
}

// Prerequisites returns, by ID, the deploys among ids that exist, as a
// submission checks them, in one query.
func (s *Store) Prerequisites(ctx context.Context, ids []string) (map[string]deploy.Prerequisite, error) {
	out := map[string]deploy.Prerequisite{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		dependencyRow
		DryRun bool `bun:"dry_run"`
	}
	err := s.db.NewRaw(`SELECT id, state, tenant, application, environment, dry_run FROM manent.deployments WHERE id IN (?)`,
		bun.List(ids)).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read dependencies", err)
	}
	for _, r := range rows {
		out[r.ID] = deploy.Prerequisite{Dependency: r.dependency(), DryRun: r.DryRun}
	}
	return out, nil
}

// DependencyStates implements deploy.Store: one query for all the deploys.
func (s *Store) DependencyStates(ctx context.Context, ids []string) (map[string]deploy.State, error) {
	out := map[string]deploy.State{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID    string `bun:"id"`
		State string `bun:"state"`
	}
	err := s.db.NewRaw(`SELECT id, state FROM manent.deployments WHERE id IN (?)`, bun.List(ids)).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read dependency states", err)
	}
	for _, r := range rows {
		out[r.ID] = deploy.State(r.State)
	}
	return out, nil
}

// Dependents implements deploy.Store: the deploys still waiting on id.
func (s *Store) Dependents(ctx context.Context, id string) ([]string, error) {
	var ids []string
	err := s.db.NewRaw(`SELECT d.id FROM manent.dependencies AS x JOIN manent.deployments AS d ON d.id = x.deployment_id
		WHERE x.depends_on = ? AND d.state IN (?) ORDER BY d.id`, id, bun.List(activeStates)).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list dependents", err)
	}
	return ids, nil
}

// Transition implements deploy.WaitStore: a state change guarded by the
// lifecycle, with the expiry of the wait for approvals when it enters one.
func (s *Store) Transition(ctx context.Context, id string, to deploy.State, expires *time.Time) (bool, error) {
	moved := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE manent.deployments SET state = ?, updated_at = now(),
				approval_expires_at = CASE WHEN ? = ? THEN ? ELSE approval_expires_at END
			WHERE id = ? AND state IN (?)`,
			to, to, deploy.StateAwaitingApproval, microPtr(expires), id, bun.List(guard(to)))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		moved = true
		return notify(ctx, tx, deploy.EventDeployment, id)
	})
	return moved, wrap("change deployment state", err)
}

// DependentsOf implements deploy.Store: every deploy whose after names id.
func (s *Store) DependentsOf(ctx context.Context, id string) ([]deploy.Dependency, error) {
	var rows []dependencyRow
	err := s.db.NewRaw(`SELECT d.id, d.state, d.tenant, d.application, d.environment
		FROM manent.dependencies AS x JOIN manent.deployments AS d ON d.id = x.deployment_id
		WHERE x.depends_on = ? ORDER BY d.created_at, d.id LIMIT 500`, id).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list dependents", err)
	}
	var out []deploy.Dependency
	for _, r := range rows {
		out = append(out, r.dependency())
	}
	return out, nil
}
