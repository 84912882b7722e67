package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// jobColumns are the columns of a deploy's row that make its job
// (deploy.Deployment.Job).
const jobColumns = "d.id, d.requester, d.requester_groups, d.descriptor, d.effective, d.plan"

// EnqueueWaiting implements deploy.WaitStore: a waiting deploy → ENQUEUED,
// in one conditional update guarded by the lifecycle that returns the
// deploy's job, with the enqueue of the deploy workflow in the same
// transaction.
func (s *Store) EnqueueWaiting(ctx context.Context, id string, enqueue func(tx any, j deploy.Job) error) (bool, error) {
	moved := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []deploymentRow
		err := tx.NewRaw(`UPDATE manent.deployments AS d SET state = ?, updated_at = now()
			WHERE id = ? AND state IN (?) RETURNING `+jobColumns,
			deploy.StateEnqueued, id, bun.List(deploy.EnteredFrom(deploy.StateEnqueued))).Scan(ctx, &rows)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		d := fromDeploymentRow(&rows[0])
		if err := enqueue(tx.Tx, d.Job()); err != nil {
			return err
		}
		moved = true
		return notify(ctx, tx, deploy.EventDeployment, id)
	})
	return moved, wrap("enqueue waiting deployment", err)
}

// Job implements deploy.WaitStore.
func (s *Store) Job(ctx context.Context, id string) (deploy.Job, error) {
	var rows []deploymentRow
	err := s.db.NewRaw(`SELECT `+jobColumns+` FROM manent.deployments AS d WHERE d.id = ?`, id).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return deploy.Job{}, wrap("read deployment job", err)
	}
	if len(rows) == 0 {
		return deploy.Job{}, notFound(id)
	}
	d := fromDeploymentRow(&rows[0])
	return d.Job(), nil
}

// WaitsToWake implements deploy.WaitStore in one query: the deploys
// WAITING_DEPENDENCY by the index of states; for each, its dependencies by
// their keys (most have one still active, and the look stops there), then
// its wait workflow and its unread messages by DBOS's keys.
func (s *Store) WaitsToWake(ctx context.Context, w deploy.WaitWorkflows, limit int) ([]string, error) {
	if ok, err := s.dbosTables(ctx); err != nil || !ok {
		return nil, err
	}
	var ids []string
	err := s.db.NewRaw(`SELECT d.id FROM manent.deployments AS d
		WHERE d.state = ?
		  AND NOT EXISTS (SELECT 1 FROM manent.dependencies AS x JOIN manent.deployments AS p ON p.id = x.depends_on
			WHERE x.deployment_id = d.id AND p.state IN (?))
		  AND EXISTS (SELECT 1 FROM ?.workflow_status AS w
			WHERE w.workflow_uuid = d.id || ? AND w.status IN ('ENQUEUED', 'PENDING'))
		  AND NOT EXISTS (SELECT 1 FROM ?.notifications AS n
			WHERE n.destination_uuid = d.id || ? AND n.topic = ? AND NOT n.consumed)
		ORDER BY d.id LIMIT ?`,
		deploy.StateWaitingDependency, bun.List(activeStates),
		bun.Ident(s.dbosSchema), w.Suffix, bun.Ident(s.dbosSchema), w.Suffix, w.Topic, limit).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list waits to wake", err)
	}
	return ids, nil
}
