package bench

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
)

// Takeover settings: a heartbeat every half second, and a worker silent for
// two seconds is dead (the floor is three heartbeats).
const (
	takeoverHeartbeat = 500 * time.Millisecond
	takeoverTimeout   = 2 * time.Second
	// heldDeploys is how many deploys are held at each kill, spread over
	// the two workers.
	heldDeploys = 10
)

// BenchmarkTakeover measures how long the deploys of a worker killed with
// SIGKILL wait before another worker resumes them. An api process and two
// workers of the real manent-server run on one database; the pipeline ends
// with an HTTP step, hold, whose endpoint (in the benchmark) answers only
// once told to, so at every iteration heldDeploys deploys of as many
// environments stop in that step on one worker or the other. The worker
// holding the most is killed; its deploys are released at once, and the
// takeover of each is the time from the kill to the moment another worker
// sends its hold request again (the step was not recorded, so it runs again
// where the deploy resumes; the completed steps before it are replayed).
// The killed worker is then started again under its executor ID and left
// to count as live before the next iteration.
//
//	auto    engine.executor_timeout 2s, heartbeats every 500ms: the
//	        survivor's heartbeat finds the dead worker silent and takes
//	        over its deploys
//	admin   engine.auto_recover off: `manent-server admin recover
//	        --executor <killed> --force` runs right after the kill
//
// Metrics (medians over the iterations):
//
//	takeover-s          the last of the killed worker's deploys resumed
//	first-s             the first one resumed
//	timeout-ratio       takeover-s ÷ executor_timeout (auto)
//	recover-cmd-s       the run of admin recover, start to exit (admin)
//	taken-over          deploys the killed worker held
//
// ns/op is zeroed: an iteration's time is mostly the restart of the worker.
func BenchmarkTakeover(b *testing.B) {
	for _, mode := range []string{"auto", "admin"} {
		b.Run(mode, func(b *testing.B) { benchTakeover(b, mode == "admin") })
	}
}

func benchTakeover(b *testing.B, admin bool) {
	hold := newHoldServer(b)
	caFile := filepath.Join(b.TempDir(), "hold.pem")
	writeFile(b, caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hold.srv.Certificate().Raw})))
	engine := fmt.Sprintf("engine: {heartbeat_interval: %s, executor_timeout: %s, auto_recover: %t}\n",
		takeoverHeartbeat, takeoverTimeout, !admin)
	c := newCluster(b, heldDeploys, engine+fmt.Sprintf(`queues: {worker_concurrency: %d}
pipeline:
  custom: {ca_file: %s}
  steps:
    - {name: secrets, mode: mandatory}
    - {name: artifacts, mode: mandatory}
    - {name: qa, mode: mandatory}
    - {name: deploy, mode: mandatory}
    - {name: hold, mode: mandatory, type: http, max_retries: 0, timeout: 1m, run: {url: "%s/hold"}}
    - {name: activation, mode: optional}
`, heldDeploys, caFile, hold.srv.URL))
	api := c.start("api", "api", "")
	w := newWatcher(b, c.dbURL)
	workers := map[string]*process{}
	for _, p := range c.startAll("worker", "", "wa", "wb") {
		workers[p.executorID] = p
	}
	// A worker takes over others only after executor_timeout of its own
	// heartbeats.
	time.Sleep(takeoverTimeout + takeoverHeartbeat)

	var last, first, command []time.Duration
	var taken int
	for b.Loop() {
		i := len(last)
		ids := make([]string, heldDeploys)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		chans := make(map[string]<-chan deploy.Event, heldDeploys)
		for k := range ids {
			ids[k] = fmt.Sprintf("t%d-%d", i, k)
			chans[ids[k]] = w.events.Subscribe(ctx, ids[k])
			if err := submit(ctx, api, descriptorOf(ids[k], envName(k), fmt.Sprintf("2.%d.%d", i, k), "")); err != nil {
				b.Fatal(err)
			}
		}
		for _, id := range ids {
			hold.waitFirst(b, id)
		}
		owners := executorsOf(b, w, ids)
		victim := mostHeld(owners)
		var held []string
		for id, ex := range owners {
			if ex == victim {
				held = append(held, id)
			}
		}
		killedAt := time.Now()
		workers[victim].kill()
		hold.release(ids...)
		if admin {
			start := time.Now()
			recoverExecutor(b, c, api, victim)
			command = append(command, time.Since(start))
		}
		var resumed []time.Duration
		for _, id := range held {
			resumed = append(resumed, hold.waitSecond(b, id).Sub(killedAt))
		}
		for _, id := range ids {
			if err := w.waitSuccess(ctx, id, chans[id]); err != nil {
				b.Fatal(err)
			}
		}
		cancel()
		last = append(last, slices.Max(resumed))
		first = append(first, slices.Min(resumed))
		taken += len(held)
		// Started again under its executor ID (which clears its fence),
		// and live long enough to take over the other at the next kill.
		workers[victim] = c.start(victim, "worker", "")
		time.Sleep(takeoverTimeout + takeoverHeartbeat)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(last).Seconds(), "takeover-s")
	b.ReportMetric(median(first).Seconds(), "first-s")
	b.ReportMetric(float64(taken)/float64(len(last)), "taken-over")
	if admin {
		b.ReportMetric(median(command).Seconds(), "recover-cmd-s")
	} else {
		b.ReportMetric(median(last).Seconds()/takeoverTimeout.Seconds(), "timeout-ratio")
	}
}

// recoverExecutor runs manent-server admin recover on the api's
// configuration, forced: the killed worker's heartbeat is still recent.
func recoverExecutor(b *testing.B, c *cluster, api *process, executorID string) {
	b.Helper()
	cmd := exec.Command(c.bin, "admin", "recover", "-c", api.config, "--executor", executorID, "--force")
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+c.dbURL)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("manent-server admin recover: %v\n%s", err, out)
	}
}

// executorsOf reads which executor runs each workflow, from DBOS's table.
func executorsOf(b *testing.B, w *watcher, ids []string) map[string]string {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := w.pool.Query(ctx, "SELECT workflow_uuid, executor_id FROM dbos.workflow_status WHERE workflow_uuid = ANY($1)", ids)
	if err != nil {
		b.Fatal(err)
	}
	type row struct {
		ID       string
		Executor string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range got {
		out[r.ID] = r.Executor
	}
	return out
}

// mostHeld is the executor that runs the most workflows (the first by
// name of equals).
func mostHeld(owners map[string]string) string {
	count := map[string]int{}
	for _, ex := range owners {
		count[ex]++
	}
	best := ""
	for ex, n := range count {
		if n > count[best] || n == count[best] && ex < best {
			best = ex
		}
	}
	return best
}

// holdServer is the endpoint of the hold step: the first request of a
// deploy waits until it is released (or its worker dies); the next answer
// at once. It records when each request arrived, by Idempotency-Key
// (<deploy>:hold).
type holdServer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	arrivals map[string][]time.Time
	gates    map[string]chan struct{}
	arrived  chan struct{}
}

func newHoldServer(b *testing.B) *holdServer {
	h := &holdServer{arrivals: map[string][]time.Time{}, gates: map[string]chan struct{}{}, arrived: make(chan struct{}, 1)}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(h.serve))
	b.Cleanup(h.srv.Close)
	return h
}

func (h *holdServer) gate(key string) chan struct{} {
	if h.gates[key] == nil {
		h.gates[key] = make(chan struct{})
	}
	return h.gates[key]
}

func (h *holdServer) serve(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	h.mu.Lock()
	h.arrivals[key] = append(h.arrivals[key], time.Now())
	gate := h.gate(key)
	h.mu.Unlock()
	select {
	case h.arrived <- struct{}{}:
	default:
	}
	select {
	case <-gate:
		_, _ = w.Write([]byte(`{}`))
	case <-r.Context().Done():
	}
}

// release answers the hold requests of deploys, held and to come.
func (h *holdServer) release(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		close(h.gate(id + ":hold"))
	}
}

// waitFirst waits for the first hold request of a deploy; waitSecond for
// the one after, and returns when it arrived.
func (h *holdServer) waitFirst(b *testing.B, id string) { h.waitArrival(b, id, 1) }

func (h *holdServer) waitSecond(b *testing.B, id string) time.Time { return h.waitArrival(b, id, 2) }

func (h *holdServer) waitArrival(b *testing.B, id string, n int) time.Time {
	b.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		h.mu.Lock()
		got := h.arrivals[id+":hold"]
		h.mu.Unlock()
		if len(got) >= n {
			return got[n-1]
		}
		select {
		case <-h.arrived:
		case <-time.After(100 * time.Millisecond):
			// An arrival of another deploy may have taken the signal.
		case <-deadline:
			b.Fatalf("deploy %s: hold request %d never came", id, n)
		}
	}
}
