package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// RegisterExecutor implements deploy.Store.
func (s *Store) RegisterExecutor(ctx context.Context, executorID, hostname string, pid int) error {
	_, err := s.db.NewRaw(`INSERT INTO manent.executors (executor_id, hostname, pid, started_at, last_seen)
		VALUES (?, ?, ?, now(), now())
		ON CONFLICT (executor_id) DO UPDATE SET hostname = EXCLUDED.hostname, pid = EXCLUDED.pid,
			started_at = now(), last_seen = now(), fenced_at = NULL, fenced_by = NULL`,
		executorID, hostname, pid).Exec(ctx)
	return wrap("register executor", err)
}

// Heartbeat implements deploy.Store.
func (s *Store) Heartbeat(ctx context.Context, executorID string) (bool, error) {
	var fenced bool
	err := s.db.NewRaw(`UPDATE manent.executors
		SET last_seen = CASE WHEN fenced_at IS NULL THEN now() ELSE last_seen END
		WHERE executor_id = ? RETURNING fenced_at IS NOT NULL`, executorID).Scan(ctx, &fenced)
	if errors.Is(err, sql.ErrNoRows) {
		// Deleted by an operator: register again rather than stop.
		return false, s.RegisterExecutor(ctx, executorID, "", 0)
	}
	return fenced, wrap("heartbeat", err)
}

// ExecutorFenced implements the engine's Store.
func (s *Store) ExecutorFenced(ctx context.Context, executorID string) (bool, error) {
	var fenced bool
	err := s.db.NewRaw(`SELECT fenced_at IS NOT NULL FROM manent.executors WHERE executor_id = ?`, executorID).Scan(ctx, &fenced)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return fenced, wrap("read executor fence", err)
}

// StaleExecutors implements deploy.Store.
func (s *Store) StaleExecutors(ctx context.Context, before time.Time) ([]string, error) {
	var ids []string
	err := s.db.NewRaw(`SELECT executor_id FROM manent.executors
		WHERE last_seen < ? AND (fenced_at IS NULL OR fenced_at < ?) ORDER BY executor_id`, before, before).Scan(ctx, &ids)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return ids, wrap("list stale executors", err)
}

// LiveExecutors implements deploy.Store.
func (s *Store) LiveExecutors(ctx context.Context, since time.Time) (int, error) {
	var n int
	err := s.db.NewRaw(`SELECT count(*) FROM manent.executors WHERE last_seen >= ? AND fenced_at IS NULL`, since).Scan(ctx, &n)
	return n, wrap("count live executors", err)
}

// FenceExecutor implements deploy.Store. The condition is in the UPDATE, so
// of several workers racing to take over, exactly one gets true. An
// executor fenced earlier and still silent can be fenced again: a fenced
// process may have dequeued deploys before it noticed, and they must not
// stay stranded.
func (s *Store) FenceExecutor(ctx context.Context, executorID, by string, before time.Time, force bool) (bool, error) {
	res, err := s.db.NewRaw(`INSERT INTO manent.executors (executor_id, last_seen, fenced_at, fenced_by)
		VALUES (?, '-infinity', now(), ?)
		ON CONFLICT (executor_id) DO UPDATE SET fenced_at = now(), fenced_by = EXCLUDED.fenced_by
		WHERE ? OR (executors.last_seen < ? AND (executors.fenced_at IS NULL OR executors.fenced_at < ?))`,
		executorID, by, force, before, before).Exec(ctx)
	if err != nil {
		return false, wrap("fence executor", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, wrap("fence executor", err)
	}
	return n == 1, nil
}

// dbosTables reports whether DBOS has created its tables yet: before,
// it runs nothing.
func (s *Store) dbosTables(ctx context.Context) (bool, error) {
	var table sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT to_regclass(?)::text", s.dbosSchema+".workflow_status").Scan(&table); err != nil {
		return false, wrap("find DBOS workflows", err)
	}
	return table.Valid, nil
}

// ExecutorWorkflows implements deploy.ExecutorStore, from DBOS's own table.
func (s *Store) ExecutorWorkflows(ctx context.Context, executorID string, names []string) ([]deploy.ExecutorDeploy, error) {
	if ok, err := s.dbosTables(ctx); err != nil || !ok {
		return nil, err
	}
	var rows []struct {
		ID        string `bun:"workflow_uuid"`
		Name      string `bun:"name"`
		Queue     string `bun:"queue_name"`
		Partition string `bun:"queue_partition_key"`
	}
	err := s.db.NewRaw(`SELECT workflow_uuid, name, COALESCE(queue_name, '') AS queue_name,
			COALESCE(queue_partition_key, '') AS queue_partition_key
		FROM ?.workflow_status WHERE executor_id = ? AND status = 'PENDING' AND name IN (?)
		ORDER BY created_at`, bun.Ident(s.dbosSchema), executorID, bun.List(names)).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list executor workflows", err)
	}
	out := make([]deploy.ExecutorDeploy, len(rows))
	for i, r := range rows {
		out[i] = deploy.ExecutorDeploy{ID: r.ID, Workflow: r.Name, Queue: r.Queue, Partition: r.Partition}
	}
	return out, nil
}

// abandonedMessage is the error of what reconciliation ends.
const abandonedMessage = "the workflow failed for an internal reason: see the worker log"

// FailAbandonedReleases implements deploy.ExecutorStore.
func (s *Store) FailAbandonedReleases(ctx context.Context, suffix string) ([]string, error) {
	if ok, err := s.dbosTables(ctx); err != nil || !ok {
		return nil, err
	}
	var rows []struct {
		ID        string `bun:"id"`
		Requester string `bun:"requester"`
	}
	err := s.db.NewRaw(`SELECT r.id, r.requester FROM manent.releases AS r JOIN ?.workflow_status AS w ON w.workflow_uuid = r.id || ?
		WHERE r.state = ? AND w.status IN ('ERROR', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED') ORDER BY r.id`,
		bun.Ident(s.dbosSchema), suffix, deploy.ReleasePending).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list abandoned releases", err)
	}
	var ids []string
	for _, r := range rows {
		ended, err := s.FinishRelease(ctx, r.ID, deploy.ReleaseError, abandonedMessage, r.Requester)
		if err != nil {
			return ids, err
		}
		if ended {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// FailAbandoned implements deploy.ExecutorStore: the workflow of a deploy
// is its own (ID = deploy ID) while it is queued or runs, or, while it
// waits, its wait workflow (<id><waitSuffix>); the move to ERROR is guarded
// by the lifecycle as every other.
func (s *Store) FailAbandoned(ctx context.Context, waitSuffix string) ([]string, error) {
	if ok, err := s.dbosTables(ctx); err != nil || !ok {
		return nil, err
	}
	var ids []string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var rows []deploymentRow
		err := tx.NewRaw(`UPDATE manent.deployments AS d SET state = ?,
				finished_at = now(), current_step = '', updated_at = now(),
				error = CASE WHEN d.error <> '' THEN d.error ELSE ? END
			FROM ?.workflow_status AS w
			WHERE ((w.workflow_uuid = d.id AND d.state IN (?)) OR (w.workflow_uuid = d.id || ? AND d.state IN (?)))
			  AND w.status IN ('ERROR', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED') AND d.state IN (?)
			RETURNING d.*`,
			deploy.StateError, abandonedMessage,
			bun.Ident(s.dbosSchema), bun.List([]deploy.State{deploy.StateEnqueued, deploy.StatePending}),
			waitSuffix, bun.List(deploy.Waiting), bun.List(guard(deploy.StateError))).Scan(ctx, &rows)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		ids = ids[:0]
		for i := range rows {
			ids = append(ids, rows[i].ID)
		}
		// The operation that was running ends with the deploy, and is the
		// environment's last failure.
		var running []struct {
			DeploymentID string `bun:"deployment_id"`
			Name         string `bun:"name"`
		}
		if len(ids) > 0 {
			err := tx.NewRaw(`UPDATE manent.deployment_steps SET state = ?, finished_at = now(),
					error = CASE WHEN error <> '' THEN error ELSE ? END
				WHERE deployment_id IN (?) AND state = ? RETURNING deployment_id, name`,
				deploy.StepError, abandonedMessage, bun.List(ids), deploy.StepRunning).Scan(ctx, &running)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		failedStep := map[string]string{}
		for _, r := range running {
			failedStep[r.DeploymentID] = r.Name
		}
		ids = ids[:0]
		for i := range rows {
			d := fromDeploymentRow(&rows[i])
			if !d.DryRun {
				if _, err := tx.ExecContext(ctx, `INSERT INTO manent.last_failures AS f
						(tenant, application, environment, deployment_id, step, error, finished_at, rollback)
					VALUES (?, ?, ?, ?, ?, ?, now(), ?)
					ON CONFLICT (tenant, application, environment) DO UPDATE SET
						deployment_id = EXCLUDED.deployment_id, step = EXCLUDED.step, error = EXCLUDED.error,
						finished_at = EXCLUDED.finished_at, rollback = EXCLUDED.rollback
					WHERE f.finished_at <= EXCLUDED.finished_at`,
					d.Tenant, d.Application, d.Environment, d.ID, failedStep[d.ID], d.Error, d.Rollback); err != nil {
					return err
				}
			}
			if err := insertAudit(ctx, tx, finishAudit(d, d.Requester)); err != nil {
				return err
			}
			if err := s.finishedIn(ctx, tx, d); err != nil {
				return err
			}
			if err := notify(ctx, tx, deploy.EventDeployment, d.ID); err != nil {
				return err
			}
			ids = append(ids, d.ID)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("fail abandoned deployments", err)
	}
	return ids, nil
}
