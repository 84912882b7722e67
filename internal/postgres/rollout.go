package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

// The audit actions of the rollout requests: deployment.rollout.pause, ...
const auditRolloutPrefix = "deployment.rollout."

var _ deploy.RolloutRequests = (*Store)(nil)

// RequestRollout implements deploy.RolloutRequests. The row lock makes two
// requests at once take turns: the second sees the first's and conflicts.
// Which pause is in force is read under that lock, in a statement of its
// own (a fresh snapshot): the service's read is older, and a resume stored
// while no pause runs, or while another pause than the one it answers
// runs (the rollout paused again in between), would end a pause nobody
// looked at.
func (s *Store) RequestRollout(ctx context.Context, id string, r deploy.RolloutRequest, from []deploy.RolloutAction, details map[string]any, wake func(tx any) error) error {
	return wrap("request rollout "+string(r.Action), s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var state, pending string
		err := tx.QueryRowContext(ctx, `SELECT state, rollout_request FROM manent.deployments WHERE id = ? FOR UPDATE`, id).
			Scan(&state, &pending)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		if deploy.State(state) != deploy.StatePending {
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q is not running its rollout: %s", id, state)
		}
		current, err := pauseInForce(ctx, tx, id)
		if err != nil {
			return err
		}
		switch {
		case r.Action == deploy.RolloutActionResume:
			if why := deploy.StaleResume(r.Pause, current); why != "" {
				return deploy.Errorf(deploy.ECONFLICT, "deployment %q: %s", id, why)
			}
		case r.Action == deploy.RolloutActionPause && current != "":
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q: its rollout is already paused", id)
		}
		allowed := false
		for _, a := range from {
			allowed = allowed || string(a) == pending
		}
		if !allowed {
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q: a %s of its rollout is already asked", id, pending)
		}
		at := r.At
		if at.IsZero() {
			at = time.Now().UTC()
		}
		if _, err := tx.ExecContext(ctx, `UPDATE manent.deployments SET rollout_request = ?, rollout_request_by = ?,
			rollout_request_reason = ?, rollout_request_at = ?, rollout_request_pause = ?, updated_at = now() WHERE id = ?`,
			string(r.Action), r.By, text(r.Reason), micro(at), r.Pause, id); err != nil {
			return err
		}
		entry := deploy.AuditEntry{Actor: r.By, Action: auditRolloutPrefix + string(r.Action), Target: id, Details: details}
		if err := insertAudit(ctx, tx, entry); err != nil {
			return err
		}
		if wake != nil {
			if err := wake(tx.Tx); err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventDeployment, id)
	}))
}

// pauseInForce is the name of the record of the pause in force on deploy
// id ("pause[2/1]"), "" when none is.
func pauseInForce(ctx context.Context, tx bun.Tx, id string) (string, error) {
	var pass, seq int
	err := tx.QueryRowContext(ctx, `SELECT pass, batch FROM manent.deployment_steps
		WHERE deployment_id = ? AND name = ? AND kind = ? AND state = ? ORDER BY pass DESC, batch DESC LIMIT 1`,
		id, deploy.StepPause, deploy.KindRun, deploy.StepRunning).Scan(&pass, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return deploy.PauseName(pass, seq), nil
}

// TakeRolloutRequest implements the engine's Recorder: the workflow took
// the pending request of action (a pause it begins, a resume it follows),
// which another request may now replace.
func (r *Recorder) TakeRolloutRequest(ctx context.Context, q dbos.Querier, id string, action deploy.RolloutAction) error {
	_, err := q.Exec(ctx, `UPDATE manent.deployments SET rollout_request = '', rollout_request_by = '',
		rollout_request_reason = '', rollout_request_at = NULL, rollout_request_pause = '', updated_at = now()
		WHERE id = $1 AND rollout_request = $2`, id, string(action))
	return wrap("take rollout request", err)
}

// BeginPause implements the engine's Recorder: a pause begins, and takes
// the person's pause pending (it returns it, nil for none) and any resume
// left over, which answered an earlier pause and must not end this one.
func (r *Recorder) BeginPause(ctx context.Context, q dbos.Querier, id string) (*deploy.RolloutRequest, error) {
	// The row lock, taken whatever is pending, makes a request at once
	// wait for this pause's record, and then see it.
	var action, by, reason string
	var at *time.Time
	err := q.QueryRow(ctx, `SELECT rollout_request, rollout_request_by, rollout_request_reason, rollout_request_at
		FROM manent.deployments WHERE id = $1 FOR UPDATE`, id).Scan(&action, &by, &reason, &at)
	if err != nil {
		return nil, wrap("begin pause", err)
	}
	switch deploy.RolloutAction(action) {
	case deploy.RolloutActionPause, deploy.RolloutActionResume:
	default:
		return nil, nil
	}
	if err := r.TakeRolloutRequest(ctx, q, id, deploy.RolloutAction(action)); err != nil {
		return nil, err
	}
	if deploy.RolloutAction(action) != deploy.RolloutActionPause {
		return nil, nil
	}
	req := &deploy.RolloutRequest{Action: deploy.RolloutActionPause, By: by, Reason: reason}
	if at != nil {
		req.At = at.UTC()
	}
	return req, nil
}
