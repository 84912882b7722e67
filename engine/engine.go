package engine

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/custom"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/engine/steps"
	"manent.dev/manent/internal/safehttp"
	"manent.dev/manent/internal/specsig"
	"manent.dev/manent/internal/sshexec"
)

// Options wires an Engine.
type Options struct {
	Config   *config.Config
	Store    Store
	Recorder Recorder
	// DatabaseURL is the PostgreSQL that holds both the manent schema and
	// DBOS's system schema: one database, so that a submission and the
	// record of a step are each one transaction with DBOS's own writes.
	DatabaseURL string
	// Plugins and Secrets default to the local plugin and the env: and file:
	// providers.
	Plugins []deploy.Plugin
	Secrets []deploy.SecretProvider
	// Changes are the ITSM connectors that change rules name.
	Changes map[string]deploy.ChangeConnector
	// Worker makes this process dequeue and run deploys (roles all and worker).
	Worker bool
	// Specs checks the specifications of custom steps before they run;
	// nil accepts unsigned ones and revokes none.
	Specs *specsig.Keyring
	// RootCAs, when set, are the certificate authorities the steps' outbound
	// requests trust instead of the system's (health checks, downloads,
	// HTTP steps): a private CA, a test server's certificate.
	RootCAs *x509.CertPool
	// HTTPStepRootCAs, when set, are the certificate authorities HTTP
	// steps trust, and only they: the system's with those of
	// pipeline.custom.ca_file, as the server reads them at start-up. Nil
	// leaves them with RootCAs.
	HTTPStepRootCAs *x509.CertPool
	// PoolTracer, when set, traces the statements of DBOS's pool (the
	// metrics count its errors).
	PoolTracer pgx.QueryTracer
	Logger     *slog.Logger
}

// outboundTimeout bounds one request of a step (a download, a health
// check, a request of an HTTP step), its body included.
const outboundTimeout = 5 * time.Minute

// Engine runs deploys, waits, releases and schedules as DBOS workflows.
type Engine struct {
	cfg    *config.Config
	store  Store
	rec    Recorder
	checks Checks
	kinds  *steps.Registry
	// sshPool holds the connections of command steps.
	sshPool *sshexec.Pool
	// custom is what the kinds of custom steps share; the engine audits
	// with it a specification it refuses on a standard step.
	custom  custom.Options
	env     *steps.Env
	changes map[string]deploy.ChangeConnector
	log     *slog.Logger
	logs    *logWriter
	worker  bool
	// slots bound the deploys this process works on at once (slots.go).
	slots slots
	// chat is the chat side of the events (nil: none); callbackHTTP
	// delivers the callbacks.
	chat         ChatNotifier
	callbackHTTP *http.Client

	dbos dbos.Context
	pool *pgxpool.Pool
	ds   *dbos.DataSource

	stop context.CancelFunc
	done chan struct{}
	// stopping is closed by Shutdown; fenced when another worker took over.
	stopping chan struct{}
	fenced   fence
	gate     gate
	// abortCtx ends when a shutdown stops waiting for the steps running:
	// their work is cancelled then.
	abortCtx context.Context
	abort    context.CancelFunc

	// polled holds the queues this engine registered, with the interval
	// at which one worker polls each: the one stored follows the number of
	// workers (polling.go).
	polled map[string]time.Duration

	shutdownOnce sync.Once
	shutdownErr  error
	// sweeps counts the sweeps done (sweep.go), for the tests.
	sweeps atomic.Int64
}

// New creates the DBOS context and registers the workflows and queues. Call
// Use, then Launch, to start recovering and running deploys.
func New(ctx context.Context, o Options) (*Engine, error) {
	if o.Config == nil || o.Store == nil || o.Recorder == nil {
		return nil, errors.New("engine: config, store and recorder are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Plugins == nil {
		o.Plugins = []deploy.Plugin{local.New(o.Config.Dir)}
	}
	if o.Secrets == nil {
		o.Secrets = []deploy.SecretProvider{
			secrets.Env{Prefix: o.Config.Secrets.EnvPrefix},
			secrets.File{Root: o.Config.Secrets.FileRoot},
		}
	}
	e := &Engine{
		cfg: o.Config, store: o.Store, rec: o.Recorder, changes: o.Changes, log: o.Logger, worker: o.Worker,
		stopping: make(chan struct{}), fenced: fence{ch: make(chan struct{})}, gate: gate{idle: make(chan struct{})},
		slots: make(slots, max(o.Config.Queues.WorkerConcurrency, 1)),
	}
	e.abortCtx, e.abort = context.WithCancel(context.Background())
	e.env = &steps.Env{
		Config: o.Config, Plugins: map[string]deploy.Plugin{}, Secrets: map[string]deploy.SecretProvider{},
		HTTP: safehttp.New(safehttp.Options{Timeout: outboundTimeout, RootCAs: o.RootCAs}), Log: o.Logger, History: o.Store,
		Inventory: o.Store, Specs: o.Specs,
	}
	for _, p := range o.Plugins {
		e.env.Plugins[p.Name()] = p
	}
	for _, s := range o.Secrets {
		e.env.Secrets[s.Scheme()] = s
	}
	e.kinds = steps.Standard()
	// The connections of command steps are their own: the host keys are
	// checked against pipeline.custom.known_hosts, not the ssh plugin's.
	e.sshPool = sshexec.NewPool(sshexec.Options{KnownHosts: o.Config.Pipeline.Custom.KnownHosts,
		InsecureIgnoreHostKey: o.Config.Pipeline.Custom.InsecureIgnoreHostKey})
	// HTTP steps get a client of their own, bounded by each step's timeout
	// (custom.Options.HTTP nil), trusting pipeline.custom.ca_file's
	// authorities besides the system's.
	e.custom = custom.Options{Audit: o.Store, SSH: e.sshPool, Log: o.Logger, RootCAs: cmp.Or(o.HTTPStepRootCAs, o.RootCAs)}
	custom.Register(e.kinds, e.custom)
	e.logs = newLogWriter(o.Store, o.Logger, e.shown)
	e.callbackHTTP = safehttp.New(safehttp.Options{Timeout: o.Config.Callbacks.Timeout,
		ConnectTimeout: config.CallbackConnectTimeout, RootCAs: o.RootCAs})
	// A store that ends deploys in transactions of its own (the end of a
	// wait, a cancel before the start) records their finished event there.
	if f, ok := o.Store.(interface {
		OnFinish(func(ctx context.Context, tx any, d deploy.Deployment) error)
	}); ok {
		f.OnFinish(e.finishedOutside)
	}
	if err := e.setupDBOS(ctx, o.DatabaseURL, o.PoolTracer); err != nil {
		return nil, err
	}
	return e, nil
}

// Use gives the engine the checks of the service, which the config step
// and releases call. It must be called before Launch.
func (e *Engine) Use(c Checks) {
	e.checks = c
	e.env.Checks = c
}

// Kinds is the registry of step kinds: the next kinds (custom steps,
// rollout batches) register there before Launch.
func (e *Engine) Kinds() *steps.Registry { return e.kinds }

func (e *Engine) setupDBOS(ctx context.Context, url string, tracer pgx.QueryTracer) error {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	pcfg.ConnConfig.Tracer = tracer
	dbosConns, _ := e.cfg.Database.Pools()
	pcfg.MaxConns = int32(dbosConns)
	pcfg.MaxConnIdleTime = 5 * time.Minute
	pcfg.MaxConnLifetime = time.Hour
	pcfg.ConnConfig.ConnectTimeout = 10 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("open the DBOS pool: %w", err)
	}
	c, err := dbos.NewContext(ctx, dbos.Config{
		AppName:      appName,
		SystemDBPool: pool,
		Logger:       e.log.With("component", "dbos"),
		// Pinned: DBOS defaults to a hash of the binary, and a rebuilt server
		// would then never recover the deploys in flight.
		ApplicationVersion: e.cfg.Engine.ApplicationVersion,
		ExecutorID:         e.cfg.Server.ExecutorID,
	})
	if err != nil {
		pool.Close()
		return fmt.Errorf("create dbos context: %w", err)
	}
	e.dbos, e.pool = c, pool
	// The data source is DBOS's own pool: a step's record and the writes of
	// the read model it makes are one transaction.
	if e.ds, err = dbos.NewDataSource(c, pool, dbos.WithDataSourceName("manent")); err != nil {
		return fmt.Errorf("create dbos data source: %w", err)
	}
	// DBOS counts every dispatch of a workflow, a graceful restart as much
	// as a crash, and a wait can live through any number of restarts: its
	// own limit is off, and the deploy workflow counts the runs of its
	// steps instead (run.go).
	noLimit := dbos.WithMaxRecoveryAttempts(0)
	dbos.RegisterWorkflow(c, e.deployWorkflow, dbos.WithWorkflowName(deployWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.waitWorkflow, dbos.WithWorkflowName(waitWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.releaseWorkflow, dbos.WithWorkflowName(releaseWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.scheduleWorkflow, dbos.WithWorkflowName(scheduleWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.undoWorkflow, dbos.WithWorkflowName(undoWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.retentionWorkflow, dbos.WithWorkflowName(retentionWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.noticeWorkflow, dbos.WithWorkflowName(noticeWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.callbackWorkflow, dbos.WithWorkflowName(callbackWorkflowName), noLimit)
	dbos.RegisterWorkflow(c, e.chatWorkflow, dbos.WithWorkflowName(chatWorkflowName), noLimit)
	// Shared by every process's polls (polling.go).
	workers := e.startPollWorkers(ctx)
	every := e.pollInterval(e.cfg.Queues.PollInterval, workers)
	// No concurrency limit on the wait queue: a waiting deploy costs a
	// sleeping Recv. Polled as the events' queues are: a wait's start
	// only reads what the submission already wrote (its wake-ups come by
	// message, never by the queue), and at the deploys' pace its polls were
	// the largest part of an idle worker's cost after the deploys' own.
	if _, err := dbos.RegisterQueue(c, waitQueue,
		dbos.WithQueueBasePollingInterval(e.pollInterval(e.cfg.Queues.EventPollInterval, workers)),
		dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate)); err != nil {
		return fmt.Errorf("register queue %s: %w", waitQueue, err)
	}
	// The events and their deliveries wait on receivers: worker
	// concurrencies of their own, never a deploy's slot. The snapshots,
	// the callbacks and the chat messages each have a queue, so a hanging
	// receiver never delays a snapshot nor a chat message; the callbacks'
	// queue is partitioned by tenant, so one tenant's receivers hold at
	// most callbacks.concurrency_per_tenant of its slots.
	cb := e.cfg.Callbacks
	queues := []struct {
		name string
		opts []dbos.QueueOption
	}{
		{noticeQueue, []dbos.QueueOption{dbos.WithWorkerConcurrency(max(cb.Concurrency, 1))}},
		{chatQueue, []dbos.QueueOption{dbos.WithWorkerConcurrency(max(cb.Concurrency, 1))}},
		{callbackQueue, []dbos.QueueOption{dbos.WithWorkerConcurrency(max(cb.Concurrency, 1)),
			dbos.WithPartitionConcurrency(max(cb.ConcurrencyPerTenant, 1))}},
	}
	names := []string{waitQueue}
	for _, q := range queues {
		// Polled less often than the deploys' queues: nobody waits on a
		// delivery the way a deploy's caller waits for its start, and the
		// three polls would otherwise cost more than the deploys queue's.
		opts := append(q.opts, dbos.WithQueueBasePollingInterval(e.pollInterval(e.cfg.Queues.EventPollInterval, workers)),
			dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))
		if _, err := dbos.RegisterQueue(c, q.name, opts...); err != nil {
			return fmt.Errorf("register queue %s: %w", q.name, err)
		}
		names = append(names, q.name)
	}
	for _, n := range e.queueConcurrencies() {
		name := queueName(n)
		// No worker concurrency: DBOS would count a rollout waiting for days
		// as much as a deploy at work; the process's slots bound the work
		// (slots.go), the partition limit the environment.
		_, err := dbos.RegisterQueue(c, name,
			dbos.WithPartitionConcurrency(n),
			dbos.WithQueueBasePollingInterval(every),
			dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))
		if err != nil {
			return fmt.Errorf("register queue %s: %w", name, err)
		}
		names = append(names, name)
	}
	e.polled = map[string]time.Duration{}
	for _, n := range names {
		e.polled[n] = e.cfg.Queues.PollInterval
	}
	e.polled[waitQueue] = e.cfg.Queues.EventPollInterval
	for _, q := range queues {
		e.polled[q.name] = e.cfg.Queues.EventPollInterval
	}
	if !e.worker {
		// An api process enqueues but never dequeues: it listens to a queue
		// that does not exist.
		names = []string{noQueue}
	}
	c.ListenQueues(c, names...)
	return nil
}

// queueConcurrencies lists the distinct per-environment concurrencies: one
// DBOS queue each, since DBOS's partition limit is queue-wide.
func (e *Engine) queueConcurrencies() []int {
	set := map[int]bool{1: true}
	for _, n := range e.cfg.Queues.Environments {
		if n > 0 {
			set[n] = true
		}
	}
	out := make([]int, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// queueFor returns the queue of a partition (tenant/application/environment).
func (e *Engine) queueFor(partition string) string {
	return queueName(e.cfg.Queues.Environments[partition])
}

// Launch starts DBOS: it recovers this executor's workflows and, in a
// worker, starts dequeuing deploys.
func (e *Engine) Launch() error {
	if e.checks == nil {
		return errors.New("engine: Use must give the service's checks before Launch")
	}
	ctx, cancel := context.WithCancel(context.Background())
	if e.worker {
		// Registering clears a fence left from an earlier life of this
		// executor ID, before DBOS recovers its workflows.
		if err := e.register(ctx); err != nil {
			cancel()
			return err
		}
	}
	e.logs.start()
	if err := dbos.Launch(e.dbos); err != nil {
		cancel()
		return fmt.Errorf("launch dbos: %w", err)
	}
	e.stop = cancel
	e.done = make(chan struct{})
	if e.worker {
		if err := e.startRetention(); err != nil {
			e.log.Warn("retention not started; the next worker start tries again", "error", err)
		}
	}
	go e.reconcile(ctx)
	return nil
}

// Shutdown stops the engine. A graceful stop is never a crash: no step
// begins any more, the steps running are given up to timeout to finish and
// be recorded, and only then is DBOS stopped; a workflow parked this way
// resumes where it stopped at the next start, and its steps do not count
// it as a recovery.
func (e *Engine) Shutdown(timeout time.Duration) error {
	e.shutdownOnce.Do(func() { e.shutdownErr = e.shutdown(timeout) })
	return e.shutdownErr
}

func (e *Engine) shutdown(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	select {
	case <-e.stopping:
	default:
		close(e.stopping)
	}
	if e.worker {
		e.Drain()
	}
	wait := timeout
	select {
	case <-e.fenced.ch:
		// The steps of a fenced process belong to its successor now.
		wait = 0
	default:
	}
	if !e.gate.close(wait) {
		e.log.Warn("steps still running at shutdown: they run again at the next start", "timeout", timeout)
	}
	e.abort()
	if e.stop != nil {
		e.stop()
		<-e.done
	}
	err := dbos.Shutdown(e.dbos, max(time.Until(deadline), time.Second))
	flush, cancel := context.WithTimeout(context.Background(), max(time.Until(deadline), time.Second))
	defer cancel()
	if ferr := e.logs.close(flush); ferr != nil {
		e.log.Warn("deploy log lines not stored at shutdown", "error", ferr)
	}
	if e.pool != nil {
		e.pool.Close()
	}
	if e.sshPool != nil {
		_ = e.sshPool.Close()
	}
	return err
}

// reconcile ends the deploys and releases whose workflow DBOS ended
// without them (a failure of manent's own): DBOS writes that status in its
// own table without running any of our code, so the read model has to
// look. What waited on such a deploy is woken. (An undo's failure is read
// by the release that waits for it: waitUndo.) It sweeps the waits for
// dependencies whose wake-up was lost (sweep.go) every
// chains.poll_interval.
func (e *Engine) reconcile(ctx context.Context) {
	defer close(e.done)
	if !e.worker {
		return
	}
	go e.heartbeat(ctx)
	go e.watchFence(ctx)
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	sweep := time.NewTicker(e.chainsPollInterval())
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			e.sweep(ctx)
		case <-t.C:
			ids, err := e.store.FailAbandoned(ctx, waitSuffix)
			if err != nil && ctx.Err() == nil {
				e.log.Warn("reconcile abandoned deploys", "error", err)
			}
			for _, id := range ids {
				e.log.Error("deploy ended ERROR: its workflow failed (see the error above in this log)", "deployment", id)
				e.wakeWaiters(ctx, id)
			}
			rels, err := e.store.FailAbandonedReleases(ctx, releaseSuffix)
			if err != nil && ctx.Err() == nil {
				e.log.Warn("reconcile abandoned releases", "error", err)
			}
			for _, id := range rels {
				e.log.Error("release ended ERROR: its workflow failed (see the error above in this log)", "release", id)
			}
		}
	}
}

// gate counts the steps that do work on targets, so that a shutdown lets
// them finish, and refuses new ones once closed.
type gate struct {
	mu      sync.Mutex
	closed  bool
	running int
	idle    chan struct{}
}

// open reports whether steps may still begin.
func (g *gate) open() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.closed
}

// enter reports false once the gate is closed: the step must not begin.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.running++
	return true
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.closed && g.running == 0 {
		close(g.idle)
	}
}

// close refuses new steps and waits up to timeout for the running ones;
// false when some still run.
func (g *gate) close(timeout time.Duration) bool {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.running == 0 {
			close(g.idle)
		}
	}
	g.mu.Unlock()
	select {
	case <-g.idle:
		return true
	case <-time.After(timeout):
		return false
	}
}

// parked blocks a workflow that may not begin its next step (the process
// is stopping) until DBOS interrupts it: it resumes at the next start.
func parked(ctx dbos.Context) error {
	<-ctx.Done()
	return fmt.Errorf("stopped before the next step: %w", context.Cause(ctx))
}
