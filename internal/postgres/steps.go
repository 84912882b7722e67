package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// BeginStep implements deploy.Store. The deploy's row is locked while the
// cancel flag is read, so a cancel lands either before (the step does not
// run) or after (the deploy stops at its next step), never in between.
func (s *Store) BeginStep(ctx context.Context, id string, step deploy.PlannedStep, position int, at time.Time) (bool, error) {
	var cancelled bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		err := tx.QueryRowContext(ctx, "SELECT cancel_requested FROM manent.deployments WHERE id = ? FOR UPDATE", id).Scan(&cancelled)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil || cancelled {
			return err
		}
		typ := step.Type
		if typ == "" {
			typ = "standard"
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO manent.deployment_steps AS s
				(deployment_id, name, position, type, state, attempts, started_at)
			VALUES (?, ?, ?, ?, ?, 1, ?)
			ON CONFLICT (deployment_id, name) DO UPDATE SET
				state = EXCLUDED.state, attempts = s.attempts + 1, position = EXCLUDED.position,
				type = EXCLUDED.type, started_at = COALESCE(s.started_at, EXCLUDED.started_at),
				finished_at = NULL, error = ''`,
			id, step.Name, position, typ, deploy.StepRunning, micro(at))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE manent.deployments SET current_step = ?, updated_at = now() WHERE id = ?", step.Name, id); err != nil {
			return err
		}
		if err := notify(ctx, tx, deploy.EventStep, id); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, id)
	})
	if err != nil {
		return false, wrap("begin step", err)
	}
	return cancelled, nil
}

// FinishStep implements deploy.Store.
func (s *Store) FinishStep(ctx context.Context, st deploy.Step) error {
	typ := st.Type
	if typ == "" {
		typ = "standard"
	}
	output := st.Output
	if output == nil {
		output = map[string]string{}
	}
	out, err := json.Marshal(output)
	if err != nil {
		return fmt.Errorf("finish step: %w", err)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO manent.deployment_steps AS s
				(deployment_id, name, position, type, state, attempts, started_at, finished_at, output, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)
			ON CONFLICT (deployment_id, name) DO UPDATE SET
				state = EXCLUDED.state, attempts = GREATEST(s.attempts, EXCLUDED.attempts),
				started_at = COALESCE(s.started_at, EXCLUDED.started_at),
				finished_at = EXCLUDED.finished_at, output = EXCLUDED.output, error = EXCLUDED.error`,
			st.DeploymentID, st.Name, st.Position, typ, st.State, st.Attempts,
			microPtr(st.StartedAt), microPtr(st.FinishedAt), string(out), st.Error)
		if isForeignKeyViolation(err) {
			return notFound(st.DeploymentID)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE manent.deployments SET current_step = '', updated_at = now() WHERE id = ? AND current_step = ?",
			st.DeploymentID, st.Name); err != nil {
			return err
		}
		if err := notify(ctx, tx, deploy.EventStep, st.DeploymentID); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, st.DeploymentID)
	})
	return wrap("finish step", err)
}

// SkipSteps implements deploy.Store. Steps that already ended keep their
// record; positions come from the deploy's plan.
func (s *Store) SkipSteps(ctx context.Context, id string, steps []deploy.PlannedStep, state deploy.StepState) error {
	if len(steps) == 0 {
		return nil
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var plan deploy.Plan
		var raw []byte
		err := tx.QueryRowContext(ctx, "SELECT plan FROM manent.deployments WHERE id = ? FOR UPDATE", id).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &plan); err != nil {
			return fmt.Errorf("decode plan: %w", err)
		}
		positions := make(map[string]int, len(plan.Steps))
		for i, p := range plan.Steps {
			positions[p.Name] = i
		}
		for i, step := range steps {
			pos, ok := positions[step.Name]
			if !ok {
				pos = len(plan.Steps) + i
			}
			typ := step.Type
			if typ == "" {
				typ = "standard"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO manent.deployment_steps AS s (deployment_id, name, position, type, state)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (deployment_id, name) DO UPDATE SET state = EXCLUDED.state
				WHERE s.state IN (?, ?)`,
				id, step.Name, pos, typ, state, deploy.StepPending, deploy.StepRunning); err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventStep, id)
	})
	return wrap("skip steps", err)
}
