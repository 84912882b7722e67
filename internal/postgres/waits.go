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

// WaitsToWake implements deploy.WaitStore in one query from the waits
// still waiting (DBOS's index of the workflows in flight of a queue), each
// deploy by its key, each dependency by its key, each wait's unread
// messages by DBOS's index of notifications.
func (s *Store) WaitsToWake(ctx context.Context, w deploy.WaitWorkflows, limit int) ([]string, error) {
	if ok, err := s.dbosTables(ctx); err != nil || !ok {
		return nil, err
	}
	var ids []string
	err := s.db.NewRaw(`SELECT d.id FROM ?.workflow_status AS w
		JOIN manent.deployments AS d ON d.id = left(w.workflow_uuid, -length(?)) AND w.workflow_uuid = d.id || ?
		WHERE w.queue_name = ? AND w.status IN ('ENQUEUED', 'PENDING') AND w.name = ?
		  AND (d.state IN (?) OR d.state = ? AND NOT EXISTS (SELECT 1 FROM manent.dependencies AS x
			JOIN manent.deployments AS p ON p.id = x.depends_on WHERE x.deployment_id = d.id AND p.state IN (?)))
		  AND NOT EXISTS (SELECT 1 FROM ?.notifications AS n
			WHERE n.destination_uuid = w.workflow_uuid AND n.topic = ? AND NOT n.consumed)
		ORDER BY d.id LIMIT ?`,
		bun.Ident(s.dbosSchema), w.Suffix, w.Suffix, w.Queue, w.Name,
		bun.List(deploy.Final), deploy.StateWaitingDependency, bun.List(activeStates),
		bun.Ident(s.dbosSchema), w.Topic, limit).Scan(ctx, &ids)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list waits to wake", err)
	}
	return ids, nil
}
