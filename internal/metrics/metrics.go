package metrics

import (
	"database/sql"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric of manent's own.
const namespace = "manent"

// Options configure a Metrics.
type Options struct {
	// Version is the server's version (manent_build_info); empty reads the
	// module's, or says dev.
	Version string
	// CacheFor is how long a reading of the figures serves scrapes (default
	// 10s): Prometheus servers in pairs, several dashboards and a curl do
	// not each cost a query.
	CacheFor time.Duration
	Logger   *slog.Logger
}

// Metrics is the registry of one server and the instruments it feeds.
type Metrics struct {
	reg          *prometheus.Registry
	cacheFor     time.Duration
	log          *slog.Logger
	httpRequests *prometheus.CounterVec
	live         *prometheus.GaugeVec
	steps        *prometheus.HistogramVec
	dbErrors     *prometheus.CounterVec
}

// New registers manent's metrics, the build info and the Go and process
// collectors on a registry of their own.
func New(o Options) *Metrics {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.CacheFor <= 0 {
		o.CacheFor = 10 * time.Second
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(), cacheFor: o.CacheFor, log: o.Logger,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern of the router and status class (2xx, 4xx...).",
		}, []string{"route", "code"}),
		live: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "live_connections",
			Help: "Open live connections: GraphQL websockets (subscribers) and SSE streams.",
		}, []string{"transport"}),
		steps: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "step_duration_seconds",
			Help: "Duration of the steps this process recorded as ended, by step (the standard steps by name, " +
				"custom steps as custom), type, kind and state.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600},
		}, []string{"step", "type", "kind", "state"}),
		dbErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "database_errors_total",
			Help: "Failed statements and connections, by pool (manent: the read model; dbos: DBOS and the " +
				"records of steps) and class (unavailable: the database could not serve, waited out; " +
				"statement: refused by the database).",
		}, []string{"pool", "class"}),
	}
	for _, t := range []string{TransportWebsocket, TransportSSE} {
		m.live.WithLabelValues(t)
	}
	for _, pool := range []string{PoolManent, PoolDBOS} {
		for _, class := range []string{classUnavailable, classStatement} {
			m.dbErrors.WithLabelValues(pool, class)
		}
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:        "Always 1: the version of the server and of Go that built it.",
		ConstLabels: prometheus.Labels{"version": version(o.Version), "go_version": runtime.Version()},
	})
	buildInfo.Set(1)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo, m.httpRequests, m.live, m.steps, m.dbErrors,
	)
	return m
}

// ReadFigures shows at scrape time the figures read returns, reading them
// at most once per Options.CacheFor. Call it once.
func (m *Metrics) ReadFigures(read FiguresFunc) error {
	return m.reg.Register(newFigures(read, m.cacheFor, m.log))
}

// Handler serves the registry in the Prometheus text format (or the
// protobuf one when a scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError})
}

func version(v string) string {
	if v != "" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// SQLPool adds the statistics of a database/sql pool (open, in use and
// waited-for connections) under the name db.
func (m *Metrics) SQLPool(db *sql.DB, name string) error {
	return m.reg.Register(collectors.NewDBStatsCollector(db, name))
}
