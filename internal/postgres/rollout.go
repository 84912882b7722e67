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
func (s *Store) RequestRollout(ctx context.Context, id string, r deploy.RolloutRequest, from []deploy.RolloutAction, details map[string]any) error {
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
			rollout_request_reason = ?, rollout_request_at = ?, updated_at = now() WHERE id = ?`,
			string(r.Action), r.By, text(r.Reason), micro(at), id); err != nil {
			return err
		}
		entry := deploy.AuditEntry{Actor: r.By, Action: auditRolloutPrefix + string(r.Action), Target: id, Details: details}
		if err := insertAudit(ctx, tx, entry); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, id)
	}))
}

// TakeRolloutRequest implements the engine's Recorder: the workflow took
// the pending request of action (a pause it begins, a resume it follows),
// which another request may now replace.
func (r *Recorder) TakeRolloutRequest(ctx context.Context, q dbos.Querier, id string, action deploy.RolloutAction) error {
	_, err := q.Exec(ctx, `UPDATE manent.deployments SET rollout_request = '', rollout_request_by = '',
		rollout_request_reason = '', rollout_request_at = NULL, updated_at = now()
		WHERE id = $1 AND rollout_request = $2`, id, string(action))
	return wrap("take rollout request", err)
}
