package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// targetFreeSteps are the standard steps that run before any target is
// acted on: a deploy that failed in them changed nothing.
var targetFreeSteps = []string{deploy.StepConfig, deploy.StepSecrets, deploy.StepArtifacts, deploy.StepQA}

// outcomeRow is one finished deploy as the metrics read it.
type outcomeRow struct {
	ID          string     `bun:"id"`
	Tenant      string     `bun:"tenant"`
	Application string     `bun:"application"`
	Environment string     `bun:"environment"`
	State       string     `bun:"state"`
	CreatedAt   time.Time  `bun:"created_at"`
	StartedAt   *time.Time `bun:"started_at"`
	FinishedAt  *time.Time `bun:"finished_at"`
	Rollback    string     `bun:"rollback"`
	RollbackOf  string     `bun:"rollback_of"`
	Remediation bool       `bun:"remediation"`
	ChangeAt    *string    `bun:"change_at"`
	Touched     bool       `bun:"touched"`
}

// Outcomes reads the finished deploys (dry runs left out) that the DORA
// metrics are computed from, oldest first. Everything finished since
// f.Since is read, not only the range shown, so that a failure's recovery
// and a later rollback or remediation are seen wherever they fall.
func (s *Store) Outcomes(ctx context.Context, f dora.Filter) ([]dora.Outcome, error) {
	var rows []outcomeRow
	err := s.db.NewRaw(`SELECT d.id, d.tenant, d.application, d.environment, d.state, d.created_at,
			d.started_at, d.finished_at, d.rollback, d.rollback_of,
			COALESCE(d.descriptor->>'remediation' = 'true', false) AS remediation,
			COALESCE(d.descriptor->'commit'->>'time', d.descriptor->'artifact'->>'createdAt') AS change_at,
			EXISTS (SELECT 1 FROM manent.deployment_steps AS s
				WHERE s.deployment_id = d.id AND s.started_at IS NOT NULL
					AND s.kind IN (?, ?) AND s.name NOT IN (?)) AS touched
		FROM manent.deployments AS d
		WHERE NOT d.dry_run AND d.finished_at IS NOT NULL AND d.finished_at >= ?
			AND (? = '' OR d.tenant = ?) AND (? = '' OR d.application = ?) AND (? = '' OR d.environment = ?)
		ORDER BY d.finished_at, d.id`,
		deploy.KindRun, deploy.KindRollback, bun.List(targetFreeSteps), f.Since,
		f.Tenant, f.Tenant, f.Application, f.Application, f.Environment, f.Environment).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read deploy outcomes", err)
	}
	out := make([]dora.Outcome, 0, len(rows))
	for _, r := range rows {
		if f.Readable != nil && !f.Readable(dora.Scope{Tenant: r.Tenant, Application: r.Application, Environment: r.Environment}) {
			continue
		}
		out = append(out, fromOutcomeRow(r))
	}
	return out, nil
}

func fromOutcomeRow(r outcomeRow) dora.Outcome {
	o := dora.Outcome{ID: r.ID, Tenant: r.Tenant, Application: r.Application, Environment: r.Environment,
		SubmittedAt: r.CreatedAt.UTC(), StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt), State: r.State,
		TouchedTarget: r.Touched, Rollback: r.Rollback, RollbackOf: r.RollbackOf, Remediation: r.Remediation}
	if r.ChangeAt != nil {
		// The descriptor's parser checked the time; one it cannot read
		// here leaves the lead time to start at the submission.
		if t, err := time.Parse(time.RFC3339, *r.ChangeAt); err == nil {
			o.ChangeAt = utcPtr(&t)
		}
	}
	return o
}
