package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

type approvalRow struct {
	bun.BaseModel `bun:"table:manent.approvals,alias:a"`

	DeploymentID string    `bun:"deployment_id,pk"`
	Pass         int       `bun:"pass,pk"`
	Identity     string    `bun:"identity,pk"`
	Approved     bool      `bun:"approved,notnull"`
	Comment      string    `bun:"comment,notnull"`
	Time         time.Time `bun:"time,nullzero,notnull,default:current_timestamp"`
}

func fromApprovalRow(r approvalRow) deploy.Approval {
	return deploy.Approval{DeploymentID: r.DeploymentID, Pass: r.Pass, Identity: r.Identity, Approved: r.Approved,
		Comment: r.Comment, Time: r.Time.UTC()}
}

func (s *Store) approvals(ctx context.Context, id string) ([]deploy.Approval, error) {
	byID, err := s.approvalsOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if byID[id] == nil {
		return []deploy.Approval{}, nil
	}
	return byID[id], nil
}

// approvalsOf returns the answers to the deploys ids (their own, not
// their waves'), in the order they were given, in one query.
func (s *Store) approvalsOf(ctx context.Context, ids ...string) (map[string][]deploy.Approval, error) {
	var rows []approvalRow
	err := s.db.NewSelect().Model(&rows).Where("deployment_id IN (?) AND pass = 0", bun.List(ids)).
		OrderExpr("deployment_id, time, identity").Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get approvals", err)
	}
	out := make(map[string][]deploy.Approval, len(ids))
	for _, r := range rows {
		out[r.DeploymentID] = append(out[r.DeploymentID], fromApprovalRow(r))
	}
	return out, nil
}

// waveApprovals returns the answers to the waves of the rollout of id, in
// the order they were given.
func (s *Store) waveApprovals(ctx context.Context, id string) ([]deploy.Approval, error) {
	byID, err := s.waveApprovalsOf(ctx, id)
	if err != nil {
		return nil, err
	}
	if byID[id] == nil {
		return []deploy.Approval{}, nil
	}
	return byID[id], nil
}

// waveApprovalsOf returns the answers to the waves of the rollouts of the
// deploys ids, by wave in the order they were given, in one query.
func (s *Store) waveApprovalsOf(ctx context.Context, ids ...string) (map[string][]deploy.Approval, error) {
	var rows []approvalRow
	err := s.db.NewSelect().Model(&rows).Where("deployment_id IN (?) AND pass > 0", bun.List(ids)).
		OrderExpr("deployment_id, pass, time, identity").Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("get wave approvals", err)
	}
	out := make(map[string][]deploy.Approval, len(ids))
	for _, r := range rows {
		out[r.DeploymentID] = append(out[r.DeploymentID], fromApprovalRow(r))
	}
	return out, nil
}

// AddApproval implements deploy.Store. The primary key (deploy, pass,
// identity) keeps one answer per identity (per wave): a second approval is
// refused (it never counts twice), and a rejection replaces the identity's
// approval (one may change one's mind; a veto is never lost).
func (s *Store) AddApproval(ctx context.Context, a deploy.Approval, wake func(tx any) error) error {
	if a.Pass > 0 {
		return s.addWaveApproval(ctx, a, wake)
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, "SELECT state FROM manent.deployments WHERE id = ? FOR UPDATE", a.DeploymentID).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(a.DeploymentID)
		}
		if err != nil {
			return err
		}
		if deploy.State(state) != deploy.StateAwaitingApproval {
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q is not awaiting approval: %s", a.DeploymentID, state)
		}
		row := approvalRow{DeploymentID: a.DeploymentID, Identity: a.Identity, Approved: a.Approved,
			Comment: a.Comment, Time: micro(a.Time)}
		q := tx.NewInsert().Model(&row)
		if a.Approved {
			q = q.On("CONFLICT (deployment_id, pass, identity) DO NOTHING")
		} else {
			q = q.On("CONFLICT (deployment_id, pass, identity) DO UPDATE").
				Set("approved = EXCLUDED.approved, comment = EXCLUDED.comment, time = EXCLUDED.time")
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			return deploy.Errorf(deploy.ECONFLICT, "%s already approved deployment %q: one identity counts once", a.Identity, a.DeploymentID)
		}
		action := "deployment.approve"
		if !a.Approved {
			action = "deployment.reject"
		}
		entry := deploy.AuditEntry{Actor: a.Identity, Action: action, Target: a.DeploymentID,
			Details: map[string]any{"comment": a.Comment}}
		if err := insertAudit(ctx, tx, entry); err != nil {
			return err
		}
		if !a.Approved {
			if err := s.reject(ctx, tx, a); err != nil {
				return err
			}
		}
		if wake != nil {
			if err := wake(tx.Tx); err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventDeployment, a.DeploymentID)
	})
	return wrap("add approval", err)
}

// reject ends a deploy REJECTED with the answer that rejected it: one
// rejection is enough, so its answer is the state it produced. The
// requester's own answer never counts (the service refuses it before).
func (s *Store) reject(ctx context.Context, tx bun.Tx, a deploy.Approval) error {
	row := new(deploymentRow)
	err := tx.NewRaw(`UPDATE manent.deployments SET state = ?, error = ?, finished_at = now(),
			current_step = '', updated_at = now()
		WHERE id = ? AND state = ? AND requester <> ?
		RETURNING *`,
		deploy.StateRejected, text(deploy.RejectionReason(a)), a.DeploymentID, deploy.StateAwaitingApproval, a.Identity).Scan(ctx, row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	d := fromDeploymentRow(row)
	if err := insertAudit(ctx, tx, finishAudit(d, a.Identity)); err != nil {
		return err
	}
	return s.finishedIn(ctx, tx, d)
}

// Approvals implements deploy.Store.
func (s *Store) Approvals(ctx context.Context, id string) ([]deploy.Approval, error) {
	return s.approvals(ctx, id)
}

// addWaveApproval records an answer to the approval the rollout of a
// running deploy asks before wave a.Pass, while it asks it (its record
// approval[N] RUNNING): ECONFLICT otherwise. A rejection does not end the
// deploy here: its workflow reads it and aborts the rollout, which then
// rolls back per the policy.
func (s *Store) addWaveApproval(ctx context.Context, a deploy.Approval, wake func(tx any) error) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM manent.deployments WHERE id = ? FOR UPDATE`, a.DeploymentID).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(a.DeploymentID)
		}
		if err != nil {
			return err
		}
		// Read under the lock (a fresh snapshot), with its deadline: the
		// record stays RUNNING past expires_at until the workflow wakes (or
		// a worker takes it up again), and an answer then is too late.
		var expires string
		err = tx.QueryRowContext(ctx, `SELECT COALESCE(output->>?, '') FROM manent.deployment_steps
			WHERE deployment_id = ? AND name = ? AND pass = ? AND kind = ? AND state = ?`,
			deploy.OutputApprovalExpires, a.DeploymentID, deploy.StepApproval, a.Pass, deploy.KindRun, deploy.StepRunning).Scan(&expires)
		asking := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if deploy.State(state) != deploy.StatePending || !asking {
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q has no wave awaiting approval: %s", a.DeploymentID, state)
		}
		if until, err := time.Parse(time.RFC3339Nano, expires); err == nil && !time.Now().Before(until) {
			return deploy.Errorf(deploy.ECONFLICT, "the approval of wave %d of deployment %q expired at %s", a.Pass, a.DeploymentID, until.UTC().Format(time.RFC3339))
		}
		row := approvalRow{DeploymentID: a.DeploymentID, Pass: a.Pass, Identity: a.Identity, Approved: a.Approved,
			Comment: a.Comment, Time: micro(a.Time)}
		q := tx.NewInsert().Model(&row)
		if a.Approved {
			q = q.On("CONFLICT (deployment_id, pass, identity) DO NOTHING")
		} else {
			q = q.On("CONFLICT (deployment_id, pass, identity) DO UPDATE").
				Set("approved = EXCLUDED.approved, comment = EXCLUDED.comment, time = EXCLUDED.time")
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return deploy.Errorf(deploy.ECONFLICT, "%s already approved this wave of deployment %q: one identity counts once", a.Identity, a.DeploymentID)
		}
		action := auditRolloutPrefix + "approve"
		if !a.Approved {
			action = auditRolloutPrefix + "reject"
		}
		entry := deploy.AuditEntry{Actor: a.Identity, Action: action, Target: a.DeploymentID,
			Details: map[string]any{"comment": a.Comment, "pass": a.Pass}}
		if err := insertAudit(ctx, tx, entry); err != nil {
			return err
		}
		if wake != nil {
			if err := wake(tx.Tx); err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventDeployment, a.DeploymentID)
	})
	return wrap("add wave approval", err)
}
