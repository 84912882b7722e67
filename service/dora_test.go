package service_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/service"
)

// outcomesFunc is the service's OutcomeReader as a function.
type outcomesFunc func(dora.Filter) []dora.Outcome

func (f outcomesFunc) Outcomes(_ context.Context, filter dora.Filter) ([]dora.Outcome, error) {
	return f(filter), nil
}

// noStore is a Store the DORA metrics never call: they read the outcomes.
type noStore struct{ service.Store }

// The DORA metrics count only what the caller may read, in the scope and
// range asked; a wrong range or window is refused with 422.
func TestDoraMetrics(t *testing.T) {
	monday := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	fin := func(h int) *time.Time { t := monday.Add(time.Duration(h) * time.Hour); return &t }
	history := []dora.Outcome{
		{ID: "a", Tenant: "demo", Application: "hello", Environment: "staging", SubmittedAt: *fin(0), FinishedAt: fin(1), State: "SUCCESS", TouchedTarget: true},
		{ID: "b", Tenant: "demo", Application: "hello", Environment: "prod", SubmittedAt: *fin(2), FinishedAt: fin(3), State: "ERROR", TouchedTarget: true},
		{ID: "secret", Tenant: "demo", Application: "billing", Environment: "prod", SubmittedAt: *fin(2), FinishedAt: fin(3), State: "SUCCESS", TouchedTarget: true},
	}
	var asked dora.Filter
	reader := outcomesFunc(func(f dora.Filter) []dora.Outcome {
		asked = f
		var out []dora.Outcome
		for _, o := range history {
			sc := dora.Scope{Tenant: o.Tenant, Application: o.Application, Environment: o.Environment}
			if (f.Environment == "" || f.Environment == o.Environment) && f.Readable(sc) {
				out = append(out, o)
			}
		}
		return out
	})
	cfg, err := config.Parse([]byte("server: {default_tenant: demo}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	az, err := authz.New("", "p, token:ci, demo, hello/*, deployment.read\n")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Config: cfg, Store: noStore{}, Authorizer: az, Outcomes: reader})
	if err != nil {
		t.Fatal(err)
	}
	ctx := deploy.WithIdentity(t.Context(), deploy.Identity{Subject: "token:ci"})
	week := dora.Query{From: monday, To: monday.AddDate(0, 0, 7)}
	tests := []struct {
		name    string
		ctx     context.Context
		query   dora.Query
		deploys []string
		code    deploy.Code
	}{
		{name: "what the caller may read", ctx: ctx, query: week, deploys: []string{"a", "b"}},
		{name: "one environment", ctx: ctx, query: dora.Query{Scope: dora.Scope{Environment: "prod"}, From: week.From, To: week.To},
			deploys: []string{"b"}},
		{name: "anonymous", ctx: t.Context(), query: week, code: deploy.EUNAUTHENTICATED},
		{name: "a reversed range", ctx: ctx, query: dora.Query{From: week.To, To: week.From}, code: deploy.EUNPROCESSABLE},
		{name: "a range over 53 weeks", ctx: ctx, query: dora.Query{From: monday.AddDate(-2, 0, 0), To: monday}, code: deploy.EUNPROCESSABLE},
		{name: "a window over a week", ctx: ctx, query: dora.Query{From: week.From, To: week.To, FailureWindow: 8 * 24 * time.Hour},
			code: deploy.EUNPROCESSABLE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := svc.DoraMetrics(tt.ctx, tt.query)
			if tt.code != "" {
				var de *deploy.Error
				if !errors.As(err, &de) || de.Code != tt.code {
					t.Fatalf("error %v, expected %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Total.DeploymentFrequency.DeployIDs; !reflect.DeepEqual(got, tt.deploys) {
				t.Errorf("deploys %v, expected %v", got, tt.deploys)
			}
			if !asked.Since.Before(tt.query.From) {
				t.Errorf("read since %s: the first week must be read whole", asked.Since)
			}
		})
	}
}
