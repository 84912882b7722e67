package graph

import (
	"context"
	"reflect"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/dora"
)

// doraFunc is a DoraReader as a function.
type doraFunc func(context.Context, dora.Query) (dora.Report, error)

func (f doraFunc) DoraMetrics(ctx context.Context, q dora.Query) (dora.Report, error) {
	return f(ctx, q)
}

// doraMetrics passes its filter to the service and answers the report with
// its deploy IDs, null medians without samples, null bands without enough
// data, and the service's refusals as their codes.
func TestDoraMetricsQuery(t *testing.T) {
	monday := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	fin := func(h int) *time.Time { t := monday.Add(time.Duration(h) * time.Hour); return &t }
	history := []dora.Outcome{
		{ID: "a", Environment: "prod", SubmittedAt: monday, FinishedAt: fin(1), State: dora.StateSuccess, TouchedTarget: true},
		{ID: "b", Environment: "prod", SubmittedAt: *fin(2), FinishedAt: fin(3), State: dora.StateError, TouchedTarget: true},
		{ID: "c", Environment: "prod", SubmittedAt: *fin(4), FinishedAt: fin(5), State: dora.StateSuccess, TouchedTarget: true, Remediation: true},
	}
	var asked dora.Query
	reader := doraFunc(func(_ context.Context, q dora.Query) (dora.Report, error) {
		asked = q
		if q.FailureWindow > 168*time.Hour {
			return dora.Report{}, deploy.Errorf(deploy.EUNPROCESSABLE, "the failure window must be at most 168h")
		}
		return dora.Compute(history, dora.Options{From: q.From, To: q.To, FailureWindow: q.FailureWindow, MinSamples: 3})
	})
	srv := newTestServer(t, &fakeService{}, newFakeEvents(), func(o *HandlerOptions) { o.Resolver.Dora = reader })
	const query = `query($f: DoraFilter) { doraMetrics(filter: $f) { from weeks { year week start figures {
		deploymentFrequency { deploys perWeek band deploymentIds }
		leadTime { seconds samples enoughData band deploymentIds }
		changeFailRate { count of rate enoughData band deploymentIds }
		recoveryTime { seconds samples enoughData band deploymentIds recoveries { failedId recoveredById seconds } unrecoveredIds }
		reworkRate { count of rate band deploymentIds } } } } }`
	resp := srv.query(t, "viewer", query, map[string]any{"f": map[string]any{
		"environment": "prod", "from": "2026-01-05T00:00:00Z", "to": "2026-01-12T00:00:00Z", "failureWindowHours": 2}})
	want := `{"from":"2026-01-05T00:00:00Z","weeks":[{"year":2026,"week":2,"start":"2026-01-05T00:00:00Z","figures":{` +
		`"deploymentFrequency":{"deploys":3,"perWeek":3,"band":"HIGH","deploymentIds":["a","b","c"]},` +
		`"leadTime":{"seconds":3600,"samples":2,"enoughData":false,"band":null,"deploymentIds":["a","c"]},` +
		`"changeFailRate":{"count":1,"of":3,"rate":0.3333333333333333,"enoughData":true,"band":"LOW","deploymentIds":["b"]},` +
		`"recoveryTime":{"seconds":7200,"samples":1,"enoughData":false,"band":null,"deploymentIds":["b"],` +
		`"recoveries":[{"failedId":"b","recoveredById":"c","seconds":7200}],"unrecoveredIds":[]},` +
		`"reworkRate":{"count":1,"of":3,"rate":0.3333333333333333,"band":null,"deploymentIds":["c"]}}}]}`
	if len(resp.Errors) > 0 || string(resp.Data["doraMetrics"]) != want {
		t.Errorf("got %s %+v\nwant %s", resp.Data["doraMetrics"], resp.Errors, want)
	}
	wantQuery := dora.Query{Scope: dora.Scope{Environment: "prod"}, From: monday, To: monday.AddDate(0, 0, 7), FailureWindow: 2 * time.Hour}
	if !reflect.DeepEqual(asked, wantQuery) {
		t.Errorf("asked %+v, want %+v", asked, wantQuery)
	}

	resp = srv.query(t, "viewer", `query($f: DoraFilter) { doraMetrics(filter: $f) { from } }`,
		map[string]any{"f": map[string]any{"failureWindowHours": 200}})
	if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != string(deploy.EUNPROCESSABLE) {
		t.Errorf("a window too long: %+v", resp.Errors)
	}
}

// range answers the figures of the range as asked, where total answers
// the whole weeks it meets.
func TestDoraMetricsRange(t *testing.T) {
	monday := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	fin := func(h int) *time.Time { t := monday.Add(time.Duration(h) * time.Hour); return &t }
	history := []dora.Outcome{
		{ID: "a", Environment: "prod", SubmittedAt: monday, FinishedAt: fin(1), State: dora.StateSuccess, TouchedTarget: true},
		{ID: "b", Environment: "prod", SubmittedAt: *fin(2), FinishedAt: fin(3), State: dora.StateSuccess, TouchedTarget: true},
	}
	reader := doraFunc(func(_ context.Context, q dora.Query) (dora.Report, error) {
		return dora.Compute(history, dora.Options{From: q.From, To: q.To})
	})
	srv := newTestServer(t, &fakeService{}, newFakeEvents(), func(o *HandlerOptions) { o.Resolver.Dora = reader })
	resp := srv.query(t, "viewer", `query($f: DoraFilter) { doraMetrics(filter: $f) {
		total { deploymentFrequency { deploys deploymentIds } }
		range { deploymentFrequency { deploys perWeek deploymentIds } } } }`,
		map[string]any{"f": map[string]any{"from": "2026-01-05T02:00:00Z", "to": "2026-01-05T14:00:00Z"}})
	want := `{"total":{"deploymentFrequency":{"deploys":2,"deploymentIds":["a","b"]}},` +
		`"range":{"deploymentFrequency":{"deploys":1,"perWeek":14,"deploymentIds":["b"]}}}`
	if len(resp.Errors) > 0 || string(resp.Data["doraMetrics"]) != want {
		t.Errorf("got %s %+v\nwant %s", resp.Data["doraMetrics"], resp.Errors, want)
	}
}
