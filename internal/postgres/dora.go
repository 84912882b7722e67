package postgres

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"manent.dev/manent/dora"
)

// outcomeRow is one finished deploy as the metrics read it: its fact in
// manent.dora_facts, which the database writes as the deploy finishes and
// keeps when the retention removes the deploy.
type outcomeRow struct {
	ID          string     `bun:"deployment_id"`
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
// metrics are computed from, oldest first, removed ones included: they are
// read from the facts the retention of deploys leaves. Everything finished
// since f.Since is read, not only the range shown, so that a failure's
// recovery and a later rollback or remediation are seen wherever they fall.
func (s *Store) Outcomes(ctx context.Context, f dora.Filter) ([]dora.Outcome, error) {
	var rows []outcomeRow
	err := s.db.NewRaw(`SELECT deployment_id, tenant, application, environment, state, created_at,
			started_at, finished_at, rollback, rollback_of, remediation, change_at, touched
		FROM manent.dora_facts
		WHERE finished_at >= ?
			AND (? = '' OR tenant = ?) AND (? = '' OR application = ?) AND (? = '' OR environment = ?)
		ORDER BY finished_at, deployment_id`,
		f.Since, f.Tenant, f.Tenant, f.Application, f.Application, f.Environment, f.Environment).Scan(ctx, &rows)
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
