package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/governance"
)

// SucceededDeploys implements governance.Lookup: the deploys that released
// an artifact version in an environment and ended SUCCESS (no dry-runs).
func (s *Store) SucceededDeploys(ctx context.Context, tenant, application, environment, artifactName, version string) ([]governance.Success, error) {
	var rows []struct {
		ID         string    `bun:"id"`
		FinishedAt time.Time `bun:"finished_at"`
	}
	err := s.db.NewRaw(`SELECT id, finished_at FROM manent.deployments
		WHERE tenant = ? AND application = ? AND environment = ? AND state = ? AND NOT dry_run
		  AND artifact->>'name' = ? AND artifact->>'version' = ? AND finished_at IS NOT NULL
		ORDER BY finished_at DESC LIMIT 100`,
		tenant, application, environment, deploy.StateSuccess, artifactName, version).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list successful deploys", err)
	}
	out := make([]governance.Success, len(rows))
	for i, r := range rows {
		out[i] = governance.Success{DeploymentID: r.ID, FinishedAt: r.FinishedAt.UTC()}
	}
	return out, nil
}

var _ governance.Lookup = (*Store)(nil)
