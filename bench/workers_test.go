package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// deploysPerEnvironment is how many deploys each of the fleet's
// environments gets in a round of BenchmarkWorkers: one after the other
// (partition concurrency 1), so a round is fleet-wide queues that drain.
const deploysPerEnvironment = 4

// workersConfig is the manent.yml every process of BenchmarkWorkers shares:
// enough slots for one worker to run every environment at once, so adding
// workers adds processes, not room; an executor timeout longer than the
// benchmark, so the workers of a round never take over those stopped after
// the round before; heartbeats every second, so that a round's workers
// count each other for the queues' polling (and no longer count those of
// the round before) by the time it starts.
var workersConfig = fmt.Sprintf("queues: {worker_concurrency: %d}\nengine: {heartbeat_interval: 1s, executor_timeout: 30m}\n", fleet)

// workersSettle is how long a round waits after its workers are ready: their
// recovery at launch is done, and a heartbeat and a reconciliation of
// DBOS's queues (every second) have set the polling for their number.
const workersSettle = 2500 * time.Millisecond

// connectionBudget is the connections the workers of BenchmarkWorkers open
// to PostgreSQL in all: one worker has the default database.max_connections,
// N workers a share each, as docs/scaling.md says to size them.
const connectionBudget = 40

func workerConnections(workers int) string {
	return fmt.Sprintf("database: {max_connections: %d}\n", max(connectionBudget/workers, 4))
}

// BenchmarkWorkers runs manent as an api process (REST, no workflows) and N
// worker processes of the real manent-server on one database, and submits a
// round of deploys: fleet environments × deploysPerEnvironment, the full
// default pipeline with the local plugin (each deploy unpacks a small
// artifact into its environment's directory), all posted to the api at once
// and waited for through the read model's events. Each sub-benchmark, at
// every iteration, runs a round with its N workers and a round with one
// worker, alternating which goes first; the workers are started before
// each round (and run one deploy per environment before it is measured,
// to warm their connections) and stopped after it, the api process stays.
// The workers have connectionBudget connections in all. CPU is read from
// /proc: the api's and the workers' (all their threads), and PostgreSQL's
// (the postmaster and every process under it, those that ended included,
// less the benchmark's own connections), from the first submission to the
// last SUCCESS (and the end of its workflow). On this 2-core machine
// PostgreSQL saturates first: the figure that says whether more workers
// waste work is the CPU per deploy.
// Metrics (sums over the iterations):
//
//	deploys/s          throughput with N workers
//	cpu-ms/deploy      CPU of manent's processes and PostgreSQL per deploy
//	manent-cpu-ms      of cpu-ms/deploy, manent's processes
//	pg-cpu-ms          of cpu-ms/deploy, PostgreSQL's
//	1w-deploys/s       throughput of the one-worker rounds run alongside
//	1w-cpu-ms/deploy   CPU per deploy of those rounds
//	1w-pg-cpu-ms       of 1w-cpu-ms/deploy, PostgreSQL's
//	throughput-ratio   deploys/s ÷ 1w-deploys/s
//	cpu-ratio          cpu-ms/deploy ÷ 1w-cpu-ms/deploy
//	pg-ratio           pg-cpu-ms ÷ 1w-pg-cpu-ms: the shared database's part
//
// ns/op is zeroed: an iteration is two rounds, its time means nothing.
func BenchmarkWorkers(b *testing.B) {
	c := newCluster(b, fleet, workersConfig)
	api := c.start("api", "api", "")
	w := newWatcher(b, c.dbURL)
	pg, local := findPostgres(b, c.dbURL)
	if local {
		if err := w.excludeFrom(&pg); err != nil {
			b.Fatal(err)
		}
	}
	r := &rounds{c: c, api: api, w: w, pg: pg, local: local}
	r.run(b, 1) // warm-up: the api's pools, PostgreSQL's caches and plans

	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			var at, one round
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					at.add(r.run(b, n))
					one.add(r.run(b, 1))
				} else {
					one.add(r.run(b, 1))
					at.add(r.run(b, n))
				}
				i++
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(at.rate(), "deploys/s")
			b.ReportMetric(ms(at.perDeploy(at.manent+at.postgres)), "cpu-ms/deploy")
			b.ReportMetric(ms(at.perDeploy(at.manent)), "manent-cpu-ms")
			b.ReportMetric(ms(at.perDeploy(at.postgres)), "pg-cpu-ms")
			b.ReportMetric(one.rate(), "1w-deploys/s")
			b.ReportMetric(ms(one.perDeploy(one.manent+one.postgres)), "1w-cpu-ms/deploy")
			b.ReportMetric(ms(one.perDeploy(one.postgres)), "1w-pg-cpu-ms")
			b.ReportMetric(at.rate()/one.rate(), "throughput-ratio")
			b.ReportMetric(float64(at.perDeploy(at.manent+at.postgres))/float64(one.perDeploy(one.manent+one.postgres)), "cpu-ratio")
			b.ReportMetric(float64(at.perDeploy(at.postgres))/float64(one.perDeploy(one.postgres)), "pg-ratio")
		})
	}
}

// round is what one or more rounds measured.
type round struct {
	deploys  int
	elapsed  time.Duration
	manent   time.Duration
	postgres time.Duration
}

func (r *round) add(o round) {
	r.deploys += o.deploys
	r.elapsed += o.elapsed
	r.manent += o.manent
	r.postgres += o.postgres
}

func (r round) rate() float64 { return float64(r.deploys) / r.elapsed.Seconds() }
func (r round) perDeploy(d time.Duration) time.Duration {
	return d / time.Duration(max(r.deploys, 1))
}

// rounds runs the rounds of BenchmarkWorkers on one cluster.
type rounds struct {
	c     *cluster
	api   *process
	w     *watcher
	pg    postgresCPU
	local bool
	n     int
	hook  func([]*process, bool)
}

// run starts workers, runs one round on them and stops them.
func (r *rounds) run(b *testing.B, workers int) round {
	b.Helper()
	r.n++
	ids := make([]string, workers)
	for i := range ids {
		ids[i] = fmt.Sprintf("w%d", i+1)
	}
	procs := append([]*process{r.api}, r.c.startAll("worker", workerConnections(workers), ids...)...)
	defer func() {
		var wg sync.WaitGroup
		for _, p := range procs[1:] {
			wg.Go(p.stop)
		}
		wg.Wait()
	}()
	time.Sleep(workersSettle)
	// A first deploy per environment opens the workers' connections and
	// warms their PostgreSQL backends (catalog and plan caches, the
	// triggers' compiled functions): long-running workers work warm.
	if err := r.w.deployAll(r.api, 2*r.n, 1); err != nil {
		b.Fatal(err)
	}

	cpu := func() (manent, pg time.Duration) {
		for _, p := range procs {
			manent += processCPU(p)
		}
		if r.local {
			var err error
			if pg, err = r.pg.total(); err != nil {
				b.Fatal(err)
			}
		}
		return manent, pg
	}
	if r.hook != nil {
		r.hook(procs, false)
	}
	manent0, pg0 := cpu()
	start := time.Now()
	if err := r.w.deployAll(r.api, 2*r.n+1, deploysPerEnvironment); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	manent1, pg1 := cpu()
	if r.hook != nil {
		r.hook(procs, true)
	}
	return round{deploys: fleet * deploysPerEnvironment, elapsed: elapsed,
		manent: manent1 - manent0, postgres: pg1 - pg0}
}

// watcher follows deploys through the read model's events, on connections
// of its own (application_name benchApp).
type watcher struct {
	b      *testing.B
	events *postgres.Events
	pool   *pgxpool.Pool
}

func newWatcher(b *testing.B, dbURL string) *watcher {
	b.Helper()
	conn := benchConn(b, dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(context.Background(), conn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	events := postgres.NewEvents(conn, quietLogger())
	b.Cleanup(events.Close)
	if err := events.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	return &watcher{b: b, events: events, pool: pool}
}

// excludeFrom leaves the watcher's backends out of PostgreSQL's CPU.
func (w *watcher) excludeFrom(pg *postgresCPU) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every connection of the pool open, so all are listed.
	conns := make([]*pgxpool.Conn, w.pool.Config().MaxConns)
	for i := range conns {
		c, err := w.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	return pg.benchBackends(ctx, conns[0].Conn())
}

// deployAll submits perEnvironment deploys per environment to the api, and
// waits until every one succeeded: batch numbers their IDs and versions.
func (w *watcher) deployAll(api *process, batch, perEnvironment int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, fleet*perEnvironment)
	var next atomic.Int64
	type job struct{ id, environment, version string }
	jobs := make([]job, 0, fleet*perEnvironment)
	for k := range perEnvironment {
		for e := range fleet {
			jobs = append(jobs, job{fmt.Sprintf("b%d-%s-%d", batch, envName(e), k), envName(e), fmt.Sprintf("1.%d.%d", batch, k)})
		}
	}
	// A few clients post at once, as CI jobs do; each deploy is followed
	// from before its submission, so none of its events is missed.
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				ch := w.events.Subscribe(ctx, j.id)
				if err := submit(ctx, api, descriptorOf(j.id, j.environment, j.version, "")); err != nil {
					errs <- err
					return
				}
				wg.Go(func() {
					if err := w.waitSuccess(ctx, j.id, ch); err != nil {
						errs <- err
					}
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return w.waitWorkflows(ctx, fmt.Sprintf("b%d-", batch))
}

// waitWorkflows waits until DBOS has ended the workflows of a batch too:
// the read model says SUCCESS from the deploy's last operation, a moment
// before its workflow ends, and a worker stopped in between parks the
// workflow until it starts again, its environment's next deploy behind it.
func (w *watcher) waitWorkflows(ctx context.Context, prefix string) error {
	for {
		var left int
		err := w.pool.QueryRow(ctx, "SELECT count(*) FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 AND status <> 'SUCCESS'",
			prefix+"%").Scan(&left)
		if err != nil {
			return fmt.Errorf("read the workflows of %s: %w", prefix, err)
		}
		if left == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d workflows of %s not ended: %w", left, prefix, ctx.Err())
		case <-time.After(20 * time.Millisecond): // DBOS tells no one of a workflow's end
		}
	}
}

// waitSuccess reads the state of a deploy at each of its events until it
// ended; an error unless it ended SUCCESS.
func (w *watcher) waitSuccess(ctx context.Context, id string, ch <-chan deploy.Event) error {
	for {
		var state string
		err := w.pool.QueryRow(ctx, "SELECT state FROM manent.deployments WHERE id = $1", id).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read deploy %s: %w", id, err)
		case state == string(deploy.StateSuccess):
			return nil
		case deploy.State(state).Terminal():
			return fmt.Errorf("deploy %s ended %s", id, state)
		}
		for {
			ev, ok := <-ch
			if !ok {
				return fmt.Errorf("deploy %s: last seen %q: %w", id, state, ctx.Err())
			}
			if ev.Kind == deploy.EventDeployment {
				break
			}
		}
		drain(ch)
	}
}

// descriptorOf is a deploy of app, its version given, with the optional
// steps of steps ("" for none).
func descriptorOf(id, environment, version, steps string) []byte {
	d := fmt.Sprintf(`apiVersion: manent/v1
id: %s
application: app
environment: %s
artifact: {type: application, name: app, version: %q, source: "file:app-1.tar.gz"}
`, id, environment, version)
	if steps != "" {
		d += "steps: " + steps + "\n"
	}
	return []byte(d)
}
