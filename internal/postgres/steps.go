package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// CountRun implements the engine's Store: one more process starts the
// operation (the one before it stopped).
func (s *Store) CountRun(ctx context.Context, id string, key deploy.StepKey) (int, error) {
	var runs int
	err := s.db.QueryRowContext(ctx, `UPDATE manent.deployment_steps SET runs = runs + 1
		WHERE deployment_id = ? AND name = ? AND pass = ? AND batch = ? AND target = ? AND kind = ?
		RETURNING runs`, id, key.Step, key.Pass, key.Batch, key.Target, string(key.Kind)).Scan(&runs)
	if errors.Is(err, sql.ErrNoRows) {
		// No record of the start (a step begun before this version): it
		// counts as the first run.
		return 1, nil
	}
	return runs, wrap("count the runs of a step", err)
}

// RecordAttempt implements the engine's Store: the operation, still
// running, makes its attempt n (a retry), so its record says so while it
// runs rather than only at its end. A record that ended or is gone is left
// alone.
func (s *Store) RecordAttempt(ctx context.Context, id string, key deploy.StepKey, n int) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE manent.deployment_steps SET attempts = ?
			WHERE deployment_id = ? AND name = ? AND pass = ? AND batch = ? AND target = ? AND kind = ?
				AND state = ? AND attempts < ?`,
			n, id, key.Step, key.Pass, key.Batch, key.Target, string(key.Kind), deploy.StepRunning, n)
		if err != nil {
			return err
		}
		if changed, err := res.RowsAffected(); err != nil || changed == 0 {
			return err
		}
		return notify(ctx, tx, deploy.EventStep, id)
	})
	return wrap("record an attempt", err)
}

// steps returns the recorded operations of the deploys, in the order of the
// plan: by position, a checkpoint before its run, then pass, batch, target.
func (s *Store) steps(ctx context.Context, ids ...string) (map[string][]deploy.Step, error) {
	var rows []stepRow
	err := s.db.NewSelect().Model(&rows).Where("deployment_id IN (?)", bun.List(ids)).
		OrderExpr("deployment_id, position, CASE kind WHEN 'checkpoint' THEN 0 WHEN 'rollback' THEN 2 ELSE 1 END, kind, pass, batch, target, name").Scan(ctx)
	if err != nil {
		return nil, wrap("get steps", err)
	}
	out := make(map[string][]deploy.Step, len(ids))
	for i := range rows {
		out[rows[i].DeploymentID] = append(out[rows[i].DeploymentID], fromStepRow(&rows[i]))
	}
	return out, nil
}
