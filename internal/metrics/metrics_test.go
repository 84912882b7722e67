package metrics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"

	"manent.dev/manent/deploy"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestStepLabels(t *testing.T) {
	tests := []struct {
		step           deploy.Step
		wantStep, want string
	}{
		{deploy.Step{Name: "deploy", Type: "deploy"}, "deploy", "standard"},
		{deploy.Step{Name: "post-test"}, "post-test", "standard"},
		{deploy.Step{Name: "bake[2]"}, "bake", "standard"},
		{deploy.Step{Name: "pause[2/1]"}, "pause", "standard"},
		{deploy.Step{Name: "change:open", Type: "change"}, "change", "standard"},
		// Custom steps are named by manent.yml: their name is no label.
		{deploy.Step{Name: "db-migrate", Type: "http"}, "custom", "http"},
		{deploy.Step{Name: "warm-cache-for-tenant-acme", Type: "command"}, "custom", "command"},
		{deploy.Step{Name: "x", Type: "Weird Type/1"}, "custom", "other"},
		{deploy.Step{Name: "x"}, "custom", "other"},
	}
	for _, tt := range tests {
		step, typ := stepLabels(tt.step)
		if step != tt.wantStep || typ != tt.want {
			t.Errorf("stepLabels(%q, %q) = %q, %q, want %q, %q", tt.step.Name, tt.step.Type, step, typ, tt.wantStep, tt.want)
		}
	}
}

func TestStepEndedObservesTheDuration(t *testing.T) {
	m := New(Options{Logger: quiet()})
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	end := start.Add(1500 * time.Millisecond)
	m.StepEnded(deploy.Step{Name: "deploy", Kind: deploy.KindRun, State: deploy.StepSuccess, StartedAt: &start, FinishedAt: &end})
	// Never started: nothing to time.
	m.StepEnded(deploy.Step{Name: "qa", Kind: deploy.KindRun, State: deploy.StepSkipped, FinishedAt: &end})
	if n := len(series(t, m.steps)); n != 1 {
		t.Fatalf("%d series, want the deploy step's alone", n)
	}
	out := gather(t, m)
	for _, line := range []string{
		`manent_step_duration_seconds_sum{kind="run",state="SUCCESS",step="deploy",type="standard"} 1.5`,
		`manent_step_duration_seconds_count{kind="run",state="SUCCESS",step="deploy",type="standard"} 1`,
		`manent_step_duration_seconds_bucket{kind="run",state="SUCCESS",step="deploy",type="standard",le="1"} 0`,
		`manent_step_duration_seconds_bucket{kind="run",state="SUCCESS",step="deploy",type="standard",le="2.5"} 1`,
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("no %s in\n%s", line, out)
		}
	}
}

func TestDatabaseErrorClasses(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		class string // "" counts nothing
	}{
		{"no error", nil, ""},
		{"no rows", fmt.Errorf("read: %w", pgx.ErrNoRows), ""},
		{"cancelled by the caller", context.Canceled, ""},
		{"rollback after the commit", fmt.Errorf("rollback: %w", sql.ErrTxDone), ""},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, classUnavailable},
		{"refused connection", errors.New("dial tcp: connection refused"), classUnavailable},
		{"unique violation", &pgconn.PgError{Code: "23505"}, classStatement},
		{"syntax", &pgconn.PgError{Code: "42601"}, classStatement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{Logger: quiet()})
			m.Tracer(PoolDBOS).(tracer).TraceQueryEnd(context.Background(), nil, pgx.TraceQueryEndData{Err: tt.err})
			for _, class := range []string{classUnavailable, classStatement} {
				want := 0.0
				if class == tt.class {
					want = 1
				}
				got := series(t, m.dbErrors)
				if v := got[`manent_database_errors_total{class="`+class+`",pool="dbos"}`]; v != want {
					t.Errorf("%s errors = %v, want %v", class, v, want)
				}
				if v := got[`manent_database_errors_total{class="`+class+`",pool="manent"}`]; v != 0 {
					t.Errorf("manent pool %s errors = %v, want 0", class, v)
				}
			}
		})
	}
}

func TestRoutesCountByPatternAndClass(t *testing.T) {
	m := New(Options{Logger: quiet()})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/deployments/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "missing" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, _ *http.Request) {
		// A handler that flushes must still be able to through the recorder.
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
	})
	// Served in the test's goroutine: each request is counted when
	// ServeHTTP returns.
	h := m.Routes(mux)
	for _, path := range []string{"/api/v1/deployments/a", "/api/v1/deployments/b", "/api/v1/deployments/missing", "/stream", "/nowhere/1", "/nowhere/2"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	}
	tests := []struct {
		route, code string
		want        float64
	}{
		{"GET /api/v1/deployments/{id}", "2xx", 2},
		{"GET /api/v1/deployments/{id}", "4xx", 1},
		{"GET /stream", "2xx", 1},
		{"unmatched", "4xx", 2},
	}
	got := series(t, m.httpRequests)
	for _, tt := range tests {
		if v := got[`manent_http_requests_total{code="`+tt.code+`",route="`+tt.route+`"}`]; v != tt.want {
			t.Errorf("%s %s = %v, want %v", tt.route, tt.code, v, tt.want)
		}
	}
	if n := len(got); n != len(tests) {
		t.Errorf("%d series, want %d: a path must never be a label", n, len(tests))
	}
}

func TestFiguresAreCachedAndKeepTheirSeries(t *testing.T) {
	var reads atomic.Int32
	answers := []Figures{
		{Deploys: map[deploy.State]int{deploy.StateSuccess: 3, deploy.StateEnqueued: 1},
			Workflows: []QueueCount{{Queue: "manent.deploy", Status: "ENQUEUED", Count: 1}, {Queue: "", Status: "PENDING", Count: 2}}},
		{Deploys: map[deploy.State]int{deploy.StateSuccess: 4}},
	}
	fail := false
	read := func(context.Context) (Figures, error) {
		if fail {
			return Figures{}, errors.New("connect to db.internal:5432 as manent: refused")
		}
		n := reads.Add(1)
		return answers[min(int(n)-1, len(answers)-1)], nil
	}
	m := New(Options{Logger: quiet(), CacheFor: time.Hour})
	if err := m.ReadFigures(read); err != nil {
		t.Fatal(err)
	}
	f := newFigures(read, time.Hour, quiet())
	first := gatherOf(t, f)
	again := gatherOf(t, f)
	if reads.Load() != 1 || first != again {
		t.Fatalf("%d readings for two scrapes within the cache, want 1", reads.Load())
	}
	for _, line := range []string{
		`manent_deployments{state="SUCCESS"} 3`, `manent_deployments{state="ENQUEUED"} 1`, `manent_deployments{state="ERROR"} 0`,
		`manent_queue_workflows{queue="manent.deploy",status="ENQUEUED"} 1`, `manent_queue_workflows{queue="none",status="PENDING"} 2`,
		`manent_database_up 1`,
	} {
		if !strings.Contains(first, line+"\n") {
			t.Errorf("no %s in\n%s", line, first)
		}
	}
	// The cache expired: the queues emptied show 0, not nothing.
	f.tried = time.Time{}
	second := gatherOf(t, f)
	for _, line := range []string{`manent_deployments{state="SUCCESS"} 4`, `manent_queue_workflows{queue="manent.deploy",status="ENQUEUED"} 0`} {
		if !strings.Contains(second, line+"\n") {
			t.Errorf("no %s in\n%s", line, second)
		}
	}
	// The database fails: down, the last figures with their time, and no
	// word of the cause.
	fail, f.tried = true, time.Time{}
	down := gatherOf(t, f)
	if !strings.Contains(down, "manent_database_up 0\n") || !strings.Contains(down, `manent_deployments{state="SUCCESS"} 4`) {
		t.Errorf("after a failed reading:\n%s", down)
	}
	if strings.Contains(down, "db.internal") {
		t.Errorf("the cause of the failure is in the metrics:\n%s", down)
	}
	// New registers them: the database fails, so down without figures.
	if out := gather(t, m); !strings.Contains(out, "manent_database_up 0\n") || strings.Contains(out, "manent_deployments{") {
		t.Errorf("a server whose database failed at the first reading shows\n%s", out)
	}
}

func TestBuildInfo(t *testing.T) {
	out := gather(t, New(Options{Version: "1.2.3", Logger: quiet()}))
	if !strings.Contains(out, `manent_build_info{go_version="go`) || !strings.Contains(out, `version="1.2.3"} 1`) {
		t.Errorf("no build info in\n%s", out)
	}
	for _, family := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if !strings.Contains(out, "\n"+family+" ") {
			t.Errorf("no %s: the Go and process collectors are missing", family)
		}
	}
}

// gather scrapes m's handler.
func gather(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// gatherOf scrapes one collector alone.
func gatherOf(t *testing.T, f *figures) string {
	t.Helper()
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(f)
	return gather(t, m)
}

// series gathers c alone: each series as name{label="value",...} (labels
// in name order) with its value, a histogram's by its count.
func series(t *testing.T, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := make([]string, 0, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := f.GetName() + "{" + strings.Join(labels, ",") + "}"
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}
