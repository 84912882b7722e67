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

// maxAuditedIDs bounds the deploy IDs named in the audit entry of a run, so
// a first run on a large history writes no huge entry; the count is whole.
const maxAuditedIDs = 1000

// keptDeploys are the deploys retention never removes, whatever their
// age: what the inventory shows (the release in service, the one before
// it, the last failure) and what has not ended.
const keptDeploys = `
	SELECT deployment_id FROM manent.inventory
	UNION SELECT deployment_id FROM manent.last_failures
	UNION SELECT deployment_id FROM (
		SELECT deployment_id, row_number() OVER (PARTITION BY tenant, application, environment
			ORDER BY deployed_at DESC, deployment_id DESC) AS n
		FROM manent.inventory_history) AS h WHERE h.n <= 2`

// Purge removes, in one transaction, the finished deploys that ended
// before now minus r.Deployments (their steps, logs, approvals and
// dependencies go with them, their DORA facts stay, their IDs are retired), the log lines older
// than r.Logs, the DORA facts of deploys that ended before now minus r.Dora
// and the audit entries older than r.Audit, then records the run in the
// audit.
func (s *Store) Purge(ctx context.Context, actor string, r deploy.Retention) (deploy.Purged, error) {
	var p deploy.Purged
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if r.Deployments > 0 {
			// Their IDs are retired in the same statement: a later deploy
			// never takes one (CreateDeployment).
			err := tx.NewRaw(`WITH gone AS (DELETE FROM manent.deployments
					WHERE state IN (?) AND finished_at < now() - ?::interval
					AND id NOT IN (`+keptDeploys+`)
					RETURNING id),
				retired AS (INSERT INTO manent.retired_ids (id) SELECT id FROM gone ON CONFLICT DO NOTHING)
				SELECT id FROM gone`, bun.List(deploy.Final), interval(r.Deployments)).Scan(ctx, &p.Deployments)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("remove deploys: %w", err)
			}
		}
		if r.Logs > 0 {
			res, err := tx.ExecContext(ctx, `DELETE FROM manent.deployment_logs WHERE time < now() - ?::interval`,
				interval(r.Logs))
			if err != nil {
				return fmt.Errorf("remove log lines: %w", err)
			}
			p.Logs, _ = res.RowsAffected()
		}
		if r.Dora > 0 {
			// The facts of the removed deploys stay: the metrics read them.
			res, err := tx.ExecContext(ctx, `DELETE FROM manent.dora_facts WHERE finished_at < now() - ?::interval`,
				interval(r.Dora))
			if err != nil {
				return fmt.Errorf("remove DORA facts: %w", err)
			}
			p.DoraFacts, _ = res.RowsAffected()
		}
		auditErr := ""
		if r.Audit > 0 {
			// In a savepoint: where the database refuses the removal (the
			// migration could not create manent_audit_retention), the
			// deploys and log lines still go, and the run says why the
			// audit entries stayed.
			if _, err := tx.ExecContext(ctx, `SAVEPOINT audit_expire`); err != nil {
				return fmt.Errorf("remove audit entries: %w", err)
			}
			var first, last *int64
			err := tx.QueryRowContext(ctx, `SELECT removed, first_id, last_id FROM manent.audit_expire(now() - ?::interval)`,
				interval(r.Audit)).Scan(&p.Audit, &first, &last)
			switch {
			case auditRemovalRefused(err):
				if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT audit_expire`); rerr != nil {
					return fmt.Errorf("remove audit entries: %w", rerr)
				}
				auditErr = "expired audit entries kept: the database refused their removal (see docs/audit.md, Retention)"
			case err != nil:
				return fmt.Errorf("remove audit entries: %w", err)
			case first != nil && last != nil:
				p.AuditFirst, p.AuditLast = *first, *last
			}
		}
		details := map[string]any{
			"deployments": len(p.Deployments), "log_lines": p.Logs, "audit_entries": p.Audit, "dora_facts": p.DoraFacts,
			"retention": map[string]string{"deployments": r.Deployments.String(), "logs": r.Logs.String(), "audit": r.Audit.String(),
				"dora": r.Dora.String()},
		}
		if auditErr != "" {
			details["audit_error"] = auditErr
		}
		ids := p.Deployments
		if len(ids) > maxAuditedIDs {
			ids, details["deployment_ids_truncated"] = ids[:maxAuditedIDs], true
		}
		details["deployment_ids"] = ids
		if p.Audit > 0 {
			details["audit_ids"] = map[string]int64{"first": p.AuditFirst, "last": p.AuditLast}
		}
		b, err := json.Marshal(details)
		if err != nil {
			return fmt.Errorf("encode retention details: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO manent.audit (actor, action, target, details) VALUES (?, 'retention.run', '', ?::jsonb)`,
			actor, string(b))
		if err != nil {
			return fmt.Errorf("record retention run: %w", err)
		}
		return nil
	})
	if err != nil {
		return deploy.Purged{}, wrap("retention", err)
	}
	if p.Deployments == nil {
		p.Deployments = []string{}
	}
	return p, nil
}

func interval(d time.Duration) string {
	return fmt.Sprintf("%d microseconds", d.Microseconds())
}

// auditRemovalRefused reports whether err is the database refusing the
// removal of audit entries: the append-only trigger (restrict_violation)
// or a missing privilege, where manent_audit_retention could not be made.
func auditRemovalRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "23001" || pgErr.Code == "42501")
}
