package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/pgtest"
)

// BenchmarkWaiting puts N deploys in a wait (MANENT_BENCH_WAITS, 10,000 by
// default): a third AWAITING_APPROVAL, a third WAITING_DEPENDENCY (after
// one of the first third, which has not run), a third DELAYED (schedule.at
// a day away); and, on a database of its own, N bare DBOS workflows, two
// thirds blocked in a Recv and one third in a durable Sleep, enqueued on a
// queue polled as often as manent's. The two sides never run at once (two
// DBOS instances in one process would compete for its cores and its
// garbage collector): each is started, measured and torn down before the
// other starts, in an order that alternates between iterations. Each side
// is measured the same way:
//
//   - memory: the live Go heap (what a collection marked) plus the
//     goroutine stacks, before the waits and once every one is blocked in
//     its Recv or Sleep (DBOS has recorded the timer's step), divided by
//     N; the same with the heap's spans in use (HeapInuse: the live heap
//     and the free space left between its objects, which depends on what
//     the creation of the waits allocated), and with the process's RSS
//     (after debug.FreeOSMemory), noisier;
//   - idle CPU: this process's CPU (getrusage) and that of the PostgreSQL
//     backends connected to the side's database (pg_stat_activity's pids,
//     /proc/<pid>/stat), over an idle window (MANENT_BENCH_IDLE, 10s)
//     with no waits, then with the N waits;
//   - wake latency of a sample (MANENT_BENCH_WAKES, 50 of each kind), from
//     the event to the deploy leaving its wait (its first state event after
//     it, ENQUEUED or later): an approval (Approve called), a dependency's
//     success (its SUCCESS event) and a schedule.at passing (new deploys
//     due in 3s); on the bare side, a Send and a Sleep's end.
//
// Metrics (medians over the iterations; make bench runs one):
//
//	manent-KB/wait, dbos-KB/wait   live heap and stacks per waiting workflow
//	memory-ratio                   manent-KB/wait ÷ dbos-KB/wait
//	manent-inuse-KB/wait, dbos-inuse-KB/wait, inuse-ratio   the same from the heap in use
//	manent-rss-KB/wait, dbos-rss-KB/wait, rss-ratio   the same from RSS
//	manent-idle-cores, dbos-idle-cores   process + PostgreSQL, N waiting
//	idle-ratio                     manent-idle-cores ÷ dbos-idle-cores
//	manent-idle0-cores, dbos-idle0-cores   the same with no waits
//	approval-, dependency-, delay-p50-ms and -p99-ms   manent's wakes
//	dbos-recv-p99-ms, dbos-sleep-p99-ms   the bare side's
//
// The breakdown (process and PostgreSQL, transactions per second) is in
// the benchmark's log. MANENT_BENCH_WAITS_PROFILE=<prefix> writes a CPU
// profile of each side's idle window with the waits, <prefix>-<side>.pprof,
// and a heap profile before it; MANENT_BENCH_WAITS_STATEMENTS=1 logs the
// statements of both idle windows (pg_stat_statements, which the server
// must load) and the backends that used the most CPU.
// ns/op is zeroed: an iteration is two workloads, its time means nothing.
func BenchmarkWaiting(b *testing.B) {
	n := envInt(b, "MANENT_BENCH_WAITS", 10000)
	window := envDuration(b, "MANENT_BENCH_IDLE", 10*time.Second)
	sample := max(1, min(envInt(b, "MANENT_BENCH_WAKES", 50), n/3))
	results := map[string][]waitingResult{}
	iteration := 0
	for b.Loop() {
		sides := []string{"dbos", "manent"}
		if iteration%2 == 1 {
			slices.Reverse(sides)
		}
		for _, side := range sides {
			open := func() waitingSide { return openBareWaits(b, sample) }
			if side == "manent" {
				open = func() waitingSide { return openManentWaits(b, sample) }
			}
			r := measureWaiting(b, side, open, n, window)
			results[side] = append(results[side], r)
			b.Logf("%s: %s", side, r)
		}
		iteration++
	}
	med := func(side string, f func(waitingResult) float64) float64 {
		var vs []float64
		for _, r := range results[side] {
			vs = append(vs, f(r))
		}
		slices.Sort(vs)
		if len(vs) == 0 {
			return 0
		}
		return vs[len(vs)/2]
	}
	live := func(r waitingResult) float64 { return r.live / 1024 }
	heap := func(r waitingResult) float64 { return r.heap / 1024 }
	rss := func(r waitingResult) float64 { return r.rss / 1024 }
	idle := func(r waitingResult) float64 { return r.idleN.cores() }
	idle0 := func(r waitingResult) float64 { return r.idle0.cores() }
	wake := func(kind string, p float64) func(waitingResult) float64 {
		return func(r waitingResult) float64 { return ms(percentile(r.wakes[kind], p)) }
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(med("manent", live), "manent-KB/wait")
	b.ReportMetric(med("dbos", live), "dbos-KB/wait")
	b.ReportMetric(med("manent", live)/med("dbos", live), "memory-ratio")
	b.ReportMetric(med("manent", heap), "manent-inuse-KB/wait")
	b.ReportMetric(med("dbos", heap), "dbos-inuse-KB/wait")
	b.ReportMetric(med("manent", heap)/med("dbos", heap), "inuse-ratio")
	b.ReportMetric(med("manent", rss), "manent-rss-KB/wait")
	b.ReportMetric(med("dbos", rss), "dbos-rss-KB/wait")
	b.ReportMetric(med("manent", rss)/med("dbos", rss), "rss-ratio")
	b.ReportMetric(med("manent", idle), "manent-idle-cores")
	b.ReportMetric(med("dbos", idle), "dbos-idle-cores")
	b.ReportMetric(med("manent", idle)/med("dbos", idle), "idle-ratio")
	b.ReportMetric(med("manent", idle0), "manent-idle0-cores")
	b.ReportMetric(med("dbos", idle0), "dbos-idle0-cores")
	for _, kind := range []string{wakeApproval, wakeDependency, wakeDelay} {
		b.ReportMetric(med("manent", wake(kind, 0.5)), kind+"-p50-ms")
		b.ReportMetric(med("manent", wake(kind, 0.99)), kind+"-p99-ms")
	}
	b.ReportMetric(med("dbos", wake(wakeRecv, 0.99)), "dbos-recv-p99-ms")
	b.ReportMetric(med("dbos", wake(wakeSleep, 0.99)), "dbos-sleep-p99-ms")
}

// The kinds of wake-up the benchmark times.
const (
	wakeApproval   = "approval"
	wakeDependency = "dependency"
	wakeDelay      = "delay"
	wakeRecv       = "recv"
	wakeSleep      = "sleep"
)

// waitingSide is one side of BenchmarkWaiting, started: its database, the
// DBOS workflow its waits are, and how it creates, wakes and stops them.
type waitingSide struct {
	url      string
	workflow string
	// create puts n waits in place (they may still be starting).
	create func(n int)
	// wake wakes a sample of waits (and adds some due soon) and returns
	// their latencies by kind.
	wake  func() map[string][]time.Duration
	close func()
}

type waitingResult struct {
	// live, heap and rss are bytes per waiting workflow: the live heap
	// with the stacks, the heap's spans in use with the stacks, the RSS;
	// stacks is the part that is goroutine stacks, goroutines how many a
	// wait holds.
	live, heap, stacks, rss, goroutines float64
	idle0, idleN                        idleCPU
	wakes                               map[string][]time.Duration
}

func (r waitingResult) String() string {
	var w []string
	for _, kind := range []string{wakeApproval, wakeDependency, wakeDelay, wakeRecv, wakeSleep} {
		if ds := r.wakes[kind]; len(ds) > 0 {
			w = append(w, fmt.Sprintf("%s p50 %.0fms p99 %.0fms (%d)", kind, ms(percentile(ds, 0.5)), ms(percentile(ds, 0.99)), len(ds)))
		}
	}
	return fmt.Sprintf("%.1f KB/wait (live heap+stacks, of which stacks %.1f in %.1f goroutines), %.1f KB/wait (heap in use+stacks), "+
		"%.1f KB/wait (RSS); idle without waits %s; with them %s; wakes: %s",
		r.live/1024, r.stacks/1024, r.goroutines, r.heap/1024, r.rss/1024, r.idle0, r.idleN, strings.Join(w, ", "))
}

// idleCPU is the CPU used over an idle window.
type idleCPU struct {
	window, proc, pg time.Duration
	// pgLocal is false when the backends' CPU could not be read (a
	// PostgreSQL on another host): pg is then 0.
	pgLocal bool
	// xacts is the side's database's transactions over the window.
	xacts int64
	// byBackend is pg by backend, the busiest first.
	byBackend []busyBackend
}

func (c idleCPU) cores() float64 { return (c.proc + c.pg).Seconds() / c.window.Seconds() }

func (c idleCPU) String() string {
	pg := fmt.Sprintf("%.3f", c.pg.Seconds()/c.window.Seconds())
	if !c.pgLocal {
		pg = "unknown (not a local server)"
	}
	return fmt.Sprintf("%.3f cores (process %.3f, PostgreSQL %s, %.0f transactions/s)", c.cores(),
		c.proc.Seconds()/c.window.Seconds(), pg, float64(c.xacts)/c.window.Seconds())
}

// measureWaiting starts a side, measures it and stops it.
func measureWaiting(b *testing.B, name string, open func() waitingSide, n int, window time.Duration) waitingResult {
	b.Helper()
	goroutines := runtime.NumGoroutine()
	s := open()
	p := openProbe(b, s.url)
	m0 := memory()
	g0 := runtime.NumGoroutine()
	var r waitingResult
	statements := os.Getenv("MANENT_BENCH_WAITS_STATEMENTS") != ""
	if statements {
		p.resetStatements(b)
	}
	r.idle0 = p.idle(b, window, "")
	if statements {
		b.Logf("%s: the idle window without waits:\n%s\nthe busiest backends:\n%s", name, p.statements(b), p.busiest(b, r.idle0))
	}
	start := time.Now()
	s.create(n)
	p.waitBlocked(b, s.workflow, n)
	b.Logf("%s: %d waits in place in %s", name, n, time.Since(start).Round(time.Second))
	// The last waits record their timer just before they block, and what
	// their creation left behind (a log line, a notification) settles.
	time.Sleep(2 * time.Second)
	p.vacuum(b)
	m1 := memory()
	per := func(f func(memoryUse) uint64) float64 { return (float64(f(m1)) - float64(f(m0))) / float64(n) }
	r.live = per(func(m memoryUse) uint64 { return m.live + m.stacks })
	r.heap = per(func(m memoryUse) uint64 { return m.inuse + m.stacks })
	r.stacks = per(func(m memoryUse) uint64 { return m.stacks })
	r.rss = per(func(m memoryUse) uint64 { return m.rss })
	r.goroutines = float64(runtime.NumGoroutine()-g0) / float64(n)
	profile := ""
	if prefix := os.Getenv("MANENT_BENCH_WAITS_PROFILE"); prefix != "" {
		profile = prefix + "-" + name + ".pprof"
		writeHeapProfile(b, prefix+"-"+name+"-heap.pprof")
	}
	if statements {
		p.resetStatements(b)
	}
	r.idleN = p.idle(b, window, profile)
	if statements {
		b.Logf("%s: the idle window with the waits:\n%s\nthe busiest backends:\n%s", name, p.statements(b), p.busiest(b, r.idleN))
	}
	r.wakes = s.wake()
	p.close()
	settle(b, s.close, goroutines)
	return r
}

// settle stops a side and waits until the goroutines are back to what
// they were before it started, so the next side runs alone.
func settle(b *testing.B, stop func(), goroutines int) {
	b.Helper()
	stop()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		// A few may linger a while (a pool's health check, the events
		// listener's reconnect timer); thousands would be waits.
		n := runtime.NumGoroutine()
		if n <= goroutines+20 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d goroutines still running after the side stopped (%d before it)", n, goroutines)
		}
	}
}

// memoryUse is what the process holds once garbage is collected and
// returned to the system: the live heap (what the last collection marked),
// the heap's spans in use (the live heap and the free space between its
// objects), the goroutine stacks, and the process's RSS.
type memoryUse struct{ live, inuse, stacks, rss uint64 }

func memory() memoryUse {
	// Each collection halves the stacks that use less than a quarter of
	// theirs: a few of them bring a wait's stack to what it holds while
	// it waits, as a server's periodic collections do.
	for range 4 {
		runtime.GC()
	}
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	return memoryUse{live: live[0].Value.Uint64(), inuse: m.HeapInuse, stacks: m.StackInuse, rss: vmRSS()}
}

func writeHeapProfile(b *testing.B, path string) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

func vmRSS() uint64 {
	body, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// probe reads a side's database: its PostgreSQL backends, its
// transactions, its blocked waits. Its own connection counts among the
// backends: two queries per window.
type probe struct {
	conn *pgx.Conn
	ctx  context.Context
}

func openProbe(b *testing.B, url string) *probe {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	return &probe{conn: conn, ctx: ctx}
}

func (p *probe) close() { _ = p.conn.Close(p.ctx) }

// idle measures the CPU of the process and of the database's backends
// over window, with a CPU profile of the process written to profile when
// it is not "".
func (p *probe) idle(b *testing.B, window time.Duration, profile string) idleCPU {
	b.Helper()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	pg0, local0 := p.backends(b)
	x0 := p.xacts(b)
	proc0, start := ownCPU(), time.Now()
	time.Sleep(window)
	proc1, elapsed := ownCPU(), time.Since(start)
	pg1, local1 := p.backends(b)
	x1 := p.xacts(b)
	c := idleCPU{window: elapsed, proc: proc1 - proc0, pgLocal: local0 && local1, xacts: x1 - x0}
	for pid, t := range pg1 {
		// A backend that started during the window counts whole; one
		// that ended during it is lost (pools keep theirs for minutes).
		c.pg += t - pg0[pid]
		c.byBackend = append(c.byBackend, busyBackend{pid: pid, cpu: t - pg0[pid]})
	}
	slices.SortFunc(c.byBackend, func(a, b busyBackend) int { return int(b.cpu - a.cpu) })
	return c
}

// busyBackend is the CPU one backend used over a window.
type busyBackend struct {
	pid int
	cpu time.Duration
}

// busiest describes the backends that used the most CPU over the window
// c measured.
func (p *probe) busiest(b *testing.B, c idleCPU) string {
	b.Helper()
	var lines []string
	for _, bc := range c.byBackend[:min(len(c.byBackend), 6)] {
		var what string
		if err := p.conn.QueryRow(p.ctx, `SELECT backend_type || ' ' || COALESCE(application_name, '') || ': ' ||
				left(regexp_replace(COALESCE(query, ''), '\s+', ' ', 'g'), 100)
			FROM pg_stat_activity WHERE pid = $1`, bc.pid).Scan(&what); err != nil {
			what = "(ended)"
		}
		lines = append(lines, fmt.Sprintf("%8s  %s", bc.cpu, what))
	}
	return strings.Join(lines, "\n")
}

// backends reads the CPU time of each backend connected to the database,
// and whether it could read them.
func (p *probe) backends(b *testing.B) (map[int]time.Duration, bool) {
	b.Helper()
	rows, err := p.conn.Query(p.ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	out := map[int]time.Duration{}
	for _, pid := range pids {
		if st, err := readStat(int(pid)); err == nil {
			out[int(pid)] = st.cpu
		}
	}
	return out, len(out) > 0
}

// resetStatements empties pg_stat_statements, which the server must load
// (shared_preload_libraries).
func (p *probe) resetStatements(b *testing.B) {
	b.Helper()
	if _, err := p.conn.Exec(p.ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		b.Fatalf("pg_stat_statements: %v", err)
	}
	if _, err := p.conn.Exec(p.ctx, `SELECT pg_stat_statements_reset()`); err != nil {
		b.Fatalf("pg_stat_statements: %v", err)
	}
}

// statements lists the statements of the side's database since the reset,
// by the time they took.
func (p *probe) statements(b *testing.B) string {
	b.Helper()
	rows, err := p.conn.Query(p.ctx, `SELECT lpad(calls::text, 8) || ' calls ' || lpad(round(total_exec_time::numeric, 1)::text, 9)
			|| ' ms  ' || left(regexp_replace(query, '\s+', ' ', 'g'), 160)
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time DESC LIMIT 20`)
	if err != nil {
		b.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

func (p *probe) xacts(b *testing.B) int64 {
	b.Helper()
	var n int64
	if err := p.conn.QueryRow(p.ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database
		WHERE datname = current_database()`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// vacuum vacuums and analyzes the side's database, as autovacuum does a
// minute or so after a burst of writes: until then the index entries that
// the creation of the waits left dead (each went ENQUEUED, then PENDING)
// make every poll of their queue scan them, a cost of having just created
// them, not of waiting.
func (p *probe) vacuum(b *testing.B) {
	b.Helper()
	if _, err := p.conn.Exec(p.ctx, `VACUUM (ANALYZE)`); err != nil {
		b.Fatalf("vacuum: %v", err)
	}
}

// waitBlocked returns once n workflows named workflow are blocked in a
// Recv or a Sleep (DBOS records the timer of either as a DBOS.sleep step
// just before it blocks) or delayed (DBOS holds them as rows until their
// time).
func (p *probe) waitBlocked(b *testing.B, workflow string, n int) {
	b.Helper()
	for deadline := time.Now().Add(15 * time.Minute); ; time.Sleep(time.Second) {
		var blocked int
		if err := p.conn.QueryRow(p.ctx, `SELECT (SELECT count(DISTINCT o.workflow_uuid) FROM dbos.operation_outputs AS o
				JOIN dbos.workflow_status AS w ON w.workflow_uuid = o.workflow_uuid
				WHERE w.name = $1 AND w.status = 'PENDING' AND o.function_name = 'DBOS.sleep')
			+ (SELECT count(*) FROM dbos.workflow_status WHERE name = $1 AND status = 'DELAYED')`, workflow).Scan(&blocked); err != nil {
			b.Fatal(err)
		}
		if blocked >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d %s workflows blocked after 15 minutes", blocked, n, workflow)
		}
	}
}

// openManentWaits is the manent side: a worker whose environment env00
// asks one approval, env01 and env02 free.
func openManentWaits(b *testing.B, sample int) waitingSide {
	b.Helper()
	m, stop := openManent(b, setup{environments: 3, worker: true, governed: true, silent: true, config: `governance:
  approvals:
    - {name: bench, match: {environment: env00}, count: 1, expiry: 24h}
`})
	later := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	var groups struct{ approvals, dependencies int }
	return waitingSide{
		url:      m.url,
		workflow: "manent.wait",
		create: func(n int) {
			groups.dependencies = n / 3
			groups.approvals = n - 2*groups.dependencies
			submit := func(id string, doc []byte, want deploy.State) error {
				sub, err := m.eng.Submit(m.ctx, doc, deploy.SubmitOptions{})
				if err != nil {
					return fmt.Errorf("submit %s: %w", id, err)
				}
				if sub.Deployment.State != want {
					return fmt.Errorf("%s submitted %s, want %s", id, sub.Deployment.State, want)
				}
				return nil
			}
			// The dependencies first: a deploy may only wait for one that exists.
			if err := parallel(groups.approvals, func(i int) error {
				return submit(waitID("a", i), descriptorFor(waitID("a", i), envName(0)), deploy.StateAwaitingApproval)
			}); err != nil {
				b.Fatal(err)
			}
			if err := parallel(2*groups.dependencies, func(i int) error {
				if i%2 == 0 {
					id := waitID("d", i/2)
					return submit(id, fmt.Appendf(descriptorFor(id, envName(1)), "after: [%s]\n", waitID("a", i/2)), deploy.StateWaitingDependency)
				}
				id := waitID("t", i/2)
				return submit(id, fmt.Appendf(descriptorFor(id, envName(2)), "schedule: {at: %q}\n", later), deploy.StateDelayed)
			}); err != nil {
				b.Fatal(err)
			}
		},
		wake:  func() map[string][]time.Duration { return m.wakeSample(b, min(sample, groups.dependencies)) },
		close: stop,
	}
}

func waitID(kind string, i int) string { return fmt.Sprintf("%s%05d", kind, i) }

// wakeSample approves k deploys, each the dependency of a waiting one, 50
// ms apart, and submits k deploys due in 3 seconds; it times each until it
// leaves its wait.
func (m *manent) wakeSample(b *testing.B, k int) map[string][]time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(m.ctx, 5*time.Minute)
	defer cancel()
	approver := deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:approver"})
	var mu sync.Mutex
	out := map[string][]time.Duration{}
	add := func(kind string, d time.Duration) {
		mu.Lock()
		out[kind] = append(out[kind], d)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	left := func(s deploy.State) bool { return !s.Waiting() }
	for i := range k {
		a, d := waitID("a", i), waitID("d", i)
		aLeft, aDone, dLeft := m.watch(ctx, a, left), m.watch(ctx, a, func(s deploy.State) bool { return s == deploy.StateSuccess }),
			m.watch(ctx, d, left)
		at := time.Now()
		if _, err := m.eng.Approve(approver, a, ""); err != nil {
			b.Fatalf("approve %s: %v", a, err)
		}
		wg.Go(func() {
			t, err := (<-aLeft).get()
			if err != nil {
				failed.Store(err)
				return
			}
			add(wakeApproval, t.Sub(at))
			done, err := (<-aDone).get()
			if err != nil {
				failed.Store(err)
				return
			}
			t, err = (<-dLeft).get()
			if err != nil {
				failed.Store(err)
				return
			}
			add(wakeDependency, t.Sub(done))
		})
		time.Sleep(50 * time.Millisecond)
	}
	due := time.Now().Add(3 * time.Second)
	for i := range k {
		id := waitID("late", i)
		at := due.Add(time.Duration(i) * 20 * time.Millisecond)
		ch := m.watch(ctx, id, func(s deploy.State) bool { return s != "" && !s.Waiting() })
		doc := fmt.Appendf(descriptorFor(id, envName(2)), "schedule: {at: %q}\n", at.UTC().Format(time.RFC3339Nano))
		if _, err := m.eng.Submit(m.ctx, doc, deploy.SubmitOptions{}); err != nil {
			b.Fatalf("submit %s: %v", id, err)
		}
		wg.Go(func() {
			t, err := (<-ch).get()
			if err != nil {
				failed.Store(err)
				return
			}
			add(wakeDelay, t.Sub(at))
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	return out
}

// seen is when a watched deploy reached the state watched for.
type seen struct {
	at  time.Time
	err error
}

func (s seen) get() (time.Time, error) { return s.at, s.err }

// watch reports when the deploy id first reaches a state that until
// accepts, from the arrival of the event that carried it; an error when it
// ends otherwise.
func (m *manent) watch(ctx context.Context, id string, until func(deploy.State) bool) <-chan seen {
	out := make(chan seen, 1)
	events := m.events.Subscribe(ctx, id)
	go func() {
		for at := time.Now(); ; at = time.Now() {
			var state deploy.State
			d, err := m.store.Get(ctx, id)
			switch {
			case err == nil:
				state = d.State
			case deploy.ErrorCode(err) != deploy.ENOTFOUND:
				out <- seen{err: err}
				return
			}
			if until(state) {
				out <- seen{at: at}
				return
			}
			if state.Terminal() {
				out <- seen{err: fmt.Errorf("deploy %s ended %s: %s", id, state, d.Error)}
				return
			}
			if _, ok := <-events; !ok {
				out <- seen{err: fmt.Errorf("deploy %s: %w", id, ctx.Err())}
				return
			}
		}
	}()
	return out
}

// parallel calls fn for 0..n-1 on a few goroutines, as several clients
// would submit, and returns the first error.
func parallel(n int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

const (
	bareWaitWorkflow = "bench.wait"
	bareWaitQueue    = "bench.wait"
	bareWaitTopic    = "wake"
)

// bareWaits is the bare side: DBOS alone, on a database of its own, with
// one workflow that waits in a Recv or a Sleep, on one queue polled at
// manent's default interval.
type bareWaits struct {
	dbos dbos.Context
	mu   sync.Mutex
	// woke tells the benchmark when a workflow it wakes is woken.
	woke map[string]chan time.Time
}

type bareWait struct {
	// Sleep makes the workflow sleep until At; otherwise it waits for a
	// message.
	Sleep bool      `json:"sleep,omitempty"`
	At    time.Time `json:"at"`
}

func (w *bareWaits) workflow(ctx dbos.Context, in bareWait) (string, error) {
	var err error
	if in.Sleep {
		_, err = dbos.Sleep(ctx, time.Until(in.At))
	} else {
		_, err = dbos.Recv[string](ctx, bareWaitTopic, 24*time.Hour)
	}
	if err != nil {
		return "", err
	}
	id, err := dbos.GetWorkflowID(ctx)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	ch := w.woke[id]
	w.mu.Unlock()
	if ch != nil {
		ch <- time.Now()
	}
	return "woken", nil
}

// expect registers a workflow whose wake-up the benchmark times.
func (w *bareWaits) expect(id string) <-chan time.Time {
	ch := make(chan time.Time, 1)
	w.mu.Lock()
	w.woke[id] = ch
	w.mu.Unlock()
	return ch
}

func (w *bareWaits) enqueue(id string, in bareWait) error {
	if _, err := dbos.Enqueue[string](w.dbos, bareWaitQueue, bareWaitWorkflow, in, dbos.WithEnqueueWorkflowID(id)); err != nil {
		return fmt.Errorf("enqueue %s: %w", id, err)
	}
	return nil
}

func openBareWaits(b *testing.B, sample int) waitingSide {
	b.Helper()
	url := pgtest.URL(b)
	c, err := dbos.NewContext(context.Background(), dbos.Config{
		AppName: "bench", DatabaseURL: url, Logger: silentLogger(),
		ApplicationVersion: "bench-1", ExecutorID: "bench-wait",
	})
	if err != nil {
		b.Fatal(err)
	}
	w := &bareWaits{dbos: c, woke: map[string]chan time.Time{}}
	dbos.RegisterWorkflow(c, w.workflow, dbos.WithWorkflowName(bareWaitWorkflow))
	if _, err := dbos.RegisterQueue(c, bareWaitQueue, dbos.WithQueueBasePollingInterval(basePoll)); err != nil {
		b.Fatal(err)
	}
	if err := dbos.Launch(c); err != nil {
		b.Fatal(err)
	}
	var once sync.Once
	stop := func() { once.Do(func() { _ = dbos.Shutdown(c, 30*time.Second) }) }
	b.Cleanup(stop)
	var recvs int
	return waitingSide{
		url:      url,
		workflow: bareWaitWorkflow,
		create: func(n int) {
			later := time.Now().Add(24 * time.Hour)
			// Two thirds wait for a message, as approvals and dependencies
			// do; one third sleeps, as a schedule.at does.
			recvs = n - n/3
			if err := parallel(n, func(i int) error {
				if i < recvs {
					return w.enqueue(waitID("r", i), bareWait{})
				}
				return w.enqueue(waitID("s", i), bareWait{Sleep: true, At: later})
			}); err != nil {
				b.Fatal(err)
			}
		},
		wake:  func() map[string][]time.Duration { return w.wakeSample(b, min(sample, recvs)) },
		close: stop,
	}
}

// wakeSample sends a message to k waiting workflows, 50 ms apart, and
// enqueues k workflows that sleep until 3 seconds from now; it times each
// until it is woken.
func (w *bareWaits) wakeSample(b *testing.B, k int) map[string][]time.Duration {
	b.Helper()
	out := map[string][]time.Duration{}
	type pending struct {
		kind string
		from time.Time
		ch   <-chan time.Time
	}
	var all []pending
	for i := range k {
		id := waitID("r", i)
		ch := w.expect(id)
		at := time.Now()
		if err := dbos.Send(w.dbos, id, "go", bareWaitTopic); err != nil {
			b.Fatalf("send to %s: %v", id, err)
		}
		all = append(all, pending{wakeRecv, at, ch})
		time.Sleep(50 * time.Millisecond)
	}
	due := time.Now().Add(3 * time.Second)
	for i := range k {
		id := waitID("late", i)
		at := due.Add(time.Duration(i) * 20 * time.Millisecond)
		ch := w.expect(id)
		if err := w.enqueue(id, bareWait{Sleep: true, At: at}); err != nil {
			b.Fatal(err)
		}
		all = append(all, pending{wakeSleep, at, ch})
	}
	timeout := time.After(5 * time.Minute)
	for _, p := range all {
		select {
		case t := <-p.ch:
			out[p.kind] = append(out[p.kind], t.Sub(p.from))
		case <-timeout:
			b.Fatal(errors.New("bare waits not woken within 5 minutes"))
		}
	}
	return out
}

// percentile is the p-th quantile of ds (nearest rank), 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 3 {
		b.Fatalf("%s=%q: want a whole number of at least 3", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration", name, v)
	}
	return d
}
