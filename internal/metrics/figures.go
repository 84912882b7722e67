package metrics

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"manent.dev/manent/deploy"
)

// Figures are the counts read from PostgreSQL at scrape time, the same
// whichever process is scraped: sum them by instance with max, not sum.
type Figures struct {
	// Deploys counts the deploys of the read model by state.
	Deploys map[deploy.State]int
	// Workflows counts DBOS's workflows not ended, by queue and status.
	Workflows []QueueCount
}

// QueueCount is how many workflows of a queue have a DBOS status.
type QueueCount struct {
	// Queue is DBOS's queue name; empty for a workflow started outside any
	// queue.
	Queue string
	// Status is ENQUEUED (waiting for a worker) or PENDING (running, or
	// waiting inside its workflow: a time, a dependency, an approval).
	Status string
	Count  int
}

// FiguresFunc reads the figures.
type FiguresFunc func(context.Context) (Figures, error)

// readTimeout bounds a reading, so a database that hangs cannot hold a
// scrape beyond Prometheus's own timeout.
const readTimeout = 5 * time.Second

var (
	deploysDesc = prometheus.NewDesc(namespace+"_deployments",
		"Deploys by state, read from the database at scrape time (cached).", []string{"state"}, nil)
	workflowsDesc = prometheus.NewDesc(namespace+"_queue_workflows",
		"DBOS workflows not ended, by queue and status: ENQUEUED waits for a worker (the queue's depth), "+
			"PENDING runs or waits inside its workflow. Read at scrape time (cached).", []string{"queue", "status"}, nil)
	upDesc = prometheus.NewDesc(namespace+"_database_up",
		"1 when the last reading of the figures from the database succeeded, 0 when it failed.", nil, nil)
	readDesc = prometheus.NewDesc(namespace+"_figures_read_timestamp_seconds",
		"When the figures shown were read from the database (Unix time).", nil, nil)
)

// figures is the collector of the Figures, read at most once per cacheFor.
type figures struct {
	read     FiguresFunc
	cacheFor time.Duration
	log      *slog.Logger

	mu     sync.Mutex
	last   Figures
	readAt time.Time
	ok     bool
	// tried is when the last reading was tried, successful or not: a
	// database that fails is not asked again at every scrape either.
	tried time.Time
	// seen are the queue and status pairs read once: one that empties
	// shows 0 instead of vanishing, so an alert on it sees the drop.
	seen map[queueStatus]bool
}

type queueStatus struct{ queue, status string }

func newFigures(read FiguresFunc, cacheFor time.Duration, log *slog.Logger) *figures {
	return &figures{read: read, cacheFor: cacheFor, log: log, seen: map[queueStatus]bool{}}
}

func (f *figures) Describe(ch chan<- *prometheus.Desc) {
	ch <- deploysDesc
	ch <- workflowsDesc
	ch <- upDesc
	ch <- readDesc
}

func (f *figures) Collect(ch chan<- prometheus.Metric) {
	last, readAt, ok, seen := f.current()
	up := 0.0
	if ok {
		up = 1
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
	if readAt.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(readDesc, prometheus.GaugeValue, float64(readAt.UnixMilli())/1000)
	// Every state has a series, 0 included, so that an alert on one is
	// never a missing series.
	for _, s := range deploy.States {
		ch <- prometheus.MustNewConstMetric(deploysDesc, prometheus.GaugeValue, float64(last.Deploys[s]), string(s))
	}
	counts := map[queueStatus]int{}
	for _, q := range last.Workflows {
		counts[queueStatus{q.Queue, q.Status}] += q.Count
	}
	for _, k := range seen {
		queue := k.queue
		if queue == "" {
			queue = "none"
		}
		ch <- prometheus.MustNewConstMetric(workflowsDesc, prometheus.GaugeValue, float64(counts[k]), queue, k.status)
	}
}

// current returns the figures to show, reading them again when the cached
// ones are older than cacheFor. A failed reading keeps showing the last
// good figures (with their time) and reports the database down.
func (f *figures) current() (Figures, time.Time, bool, []queueStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if f.tried.IsZero() || now.Sub(f.tried) >= f.cacheFor {
		f.readAgain(now)
	}
	return f.last, f.readAt, f.ok, slices.Collect(maps.Keys(f.seen))
}

// readAgain reads the figures; f.mu is held.
func (f *figures) readAgain(now time.Time) {
	f.tried = now
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	got, err := f.read(ctx)
	if err != nil {
		// The cause may name hosts and users: the log has it, the metrics
		// say only that the reading failed.
		f.log.Warn("read the figures of the metrics", "error", err)
		f.ok = false
		return
	}
	f.last, f.readAt, f.ok = got, now, true
	for _, q := range got.Workflows {
		f.seen[queueStatus{q.Queue, q.Status}] = true
	}
}
