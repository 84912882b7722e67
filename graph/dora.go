package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	"manent.dev/manent/dora"
	"manent.dev/manent/graph/model"
)

// DoraReader computes the DORA metrics of what the caller may read
// (service.Service).
type DoraReader interface {
	DoraMetrics(ctx context.Context, q dora.Query) (dora.Report, error)
}

// errNoDora is an internal error: the server was built without the metrics.
var errNoDora = errors.New("dora metrics are not served")

func toDoraQuery(f *model.DoraFilter) dora.Query {
	var q dora.Query
	if f == nil {
		return q
	}
	q.Tenant, q.Application, q.Environment = deref(f.Tenant), deref(f.Application), deref(f.Environment)
	if f.From != nil {
		q.From = *f.From
	}
	if f.To != nil {
		q.To = *f.To
	}
	if f.FailureWindowHours != nil {
		q.FailureWindow = time.Duration(*f.FailureWindowHours) * time.Hour
	}
	return q
}

func toModelDoraReport(r dora.Report) *model.DoraReport {
	out := &model.DoraReport{From: r.From, To: r.To, Weeks: make([]model.DoraWeek, len(r.Weeks)), Total: toModelDoraFigures(r.Total),
		Range: toModelDoraFigures(r.Range)}
	for i, w := range r.Weeks {
		out.Weeks[i] = model.DoraWeek{Year: w.Year, Week: w.Week, Start: w.Start, Figures: toModelDoraFigures(w.Figures)}
	}
	return out
}

func toModelDoraFigures(f dora.Figures) *model.DoraFigures {
	rec := f.RecoveryTime
	recovery := &model.DoraRecovery{Seconds: seconds(rec.Median), Samples: rec.Samples, EnoughData: rec.Enough,
		Band: bandPtr(rec.Band), DeploymentIds: ids(rec.DeployIDs), Recoveries: make([]model.DoraRecovered, len(rec.Recoveries)),
		UnrecoveredIds: ids(rec.Unrecovered)}
	for i, r := range rec.Recoveries {
		recovery.Recoveries[i] = model.DoraRecovered{FailedID: r.Failed, RecoveredByID: r.RecoveredBy, Seconds: r.After.Seconds()}
	}
	freq := f.DeploymentFrequency
	return &model.DoraFigures{
		DeploymentFrequency: &model.DoraFrequency{Deploys: freq.Deploys, PerWeek: freq.PerWeek,
			Band: model.DoraBand(strings.ToUpper(string(freq.Band))), DeploymentIds: ids(freq.DeployIDs)},
		LeadTime: &model.DoraMedian{Seconds: seconds(f.LeadTime), Samples: f.LeadTime.Samples, EnoughData: f.LeadTime.Enough,
			Band: bandPtr(f.LeadTime.Band), DeploymentIds: ids(f.LeadTime.DeployIDs)},
		ChangeFailRate: toModelDoraRate(f.ChangeFailRate),
		RecoveryTime:   recovery,
		ReworkRate:     toModelDoraRate(f.ReworkRate),
	}
}

func toModelDoraRate(r dora.Rate) *model.DoraRate {
	return &model.DoraRate{Count: r.Count, Of: r.Of, Rate: r.Rate, EnoughData: r.Enough, Band: bandPtr(r.Band),
		DeploymentIds: ids(r.DeployIDs)}
}

// seconds is nil for a median of no sample.
func seconds(m dora.Median) *float64 {
	if m.Samples == 0 {
		return nil
	}
	s := m.Median.Seconds()
	return &s
}

func bandPtr(b dora.Band) *model.DoraBand {
	if b == "" {
		return nil
	}
	m := model.DoraBand(strings.ToUpper(string(b)))
	return &m
}

// ids is never nil: the lists are non-null in the schema.
func ids(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
