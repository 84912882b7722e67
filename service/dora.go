package service

import (
	"context"
	"fmt"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// OutcomeReader reads the finished deploys the DORA metrics are computed
// from: their facts, which outlive the deploys the retention removes
// (internal/postgres).
type OutcomeReader interface {
	Outcomes(ctx context.Context, f dora.Filter) ([]dora.Outcome, error)
}

// Bounds of a DORA query.
const (
	// DefaultDoraRange is the range when the query gives no start: the
	// four whole weeks before its end.
	DefaultDoraRange = 28 * 24 * time.Hour
	// MaxDoraRange is about a year of weekly buckets.
	MaxDoraRange = 53 * 7 * 24 * time.Hour
	// MaxFailureWindow bounds how long after a deploy a rollback or a
	// remediation still marks it as failed.
	MaxFailureWindow = 7 * 24 * time.Hour
)

// DoraMetrics returns the DORA metrics of the deploys the caller may read in
// the query's scope. EUNAUTHENTICATED without an identity, EUNPROCESSABLE
// for a range or window out of bounds, EINTERNAL when the metrics are not
// served.
func (s *Service) DoraMetrics(ctx context.Context, q dora.Query) (dora.Report, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return dora.Report{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if s.outcomes == nil {
		return dora.Report{}, fmt.Errorf("dora metrics: no outcome reader")
	}
	if q.To.IsZero() {
		q.To = time.Now().UTC()
	}
	if q.From.IsZero() {
		q.From = q.To.Add(-DefaultDoraRange)
	}
	switch {
	case !q.To.After(q.From):
		return dora.Report{}, deploy.Errorf(deploy.EUNPROCESSABLE, "from must be before to")
	case q.To.Sub(q.From) > MaxDoraRange:
		return dora.Report{}, deploy.Errorf(deploy.EUNPROCESSABLE, "the range must be at most 53 weeks")
	case q.FailureWindow < 0 || q.FailureWindow > MaxFailureWindow:
		return dora.Report{}, deploy.Errorf(deploy.EUNPROCESSABLE, "the failure window must be between 0 (the default, 24h) and 168h")
	}
	readable := func(sc dora.Scope) bool {
		ok, err := s.authz.Allowed(id, deploy.Resource{Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment}, deploy.PermRead)
		return err == nil && ok
	}
	// Read from the start of the first week: its bucket is shown whole.
	outcomes, err := s.outcomes.Outcomes(ctx, dora.Filter{Since: q.From.AddDate(0, 0, -7), Scope: q.Scope, Readable: readable})
	if err != nil {
		return dora.Report{}, fmt.Errorf("dora metrics: %w", err)
	}
	rep, err := dora.Compute(outcomes, dora.Options{From: q.From, To: q.To, FailureWindow: q.FailureWindow})
	if err != nil {
		return dora.Report{}, deploy.Errorf(deploy.EUNPROCESSABLE, "%s", err)
	}
	return rep, nil
}
