package bench

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
	"manent.dev/manent/governance"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/pgtest"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/service"
)

func TestMain(m *testing.M) { pgtest.Main(m, removeServerBinary) }

// noopPlugin deploys nothing, so a deploy costs only what manent and DBOS
// do around the plugin.
type noopPlugin struct{}

func (noopPlugin) Name() string { return "noop" }
func (noopPlugin) ValidateTargets([]deploy.Target, map[string]string) []deploy.FieldError {
	return nil
}
func (noopPlugin) Deploy(context.Context, deploy.PluginRequest) (deploy.Result, error) {
	return deploy.Result{}, nil
}
func (noopPlugin) Activate(context.Context, deploy.PluginRequest) (deploy.Result, error) {
	return deploy.Result{}, nil
}
func (noopPlugin) Checkpoint(context.Context, deploy.PluginRequest) (deploy.Checkpoint, error) {
	return deploy.Checkpoint{}, nil
}
func (noopPlugin) Rollback(context.Context, deploy.PluginRequest, deploy.Checkpoint) (deploy.Result, error) {
	return deploy.Result{}, nil
}

const policy = `
p, role:deployer, demo, *, deployment.submit
p, role:deployer, demo, *, deployment.read
g, token:bench, role:deployer, demo
p, role:approver, demo, *, deployment.approve
p, role:approver, demo, *, deployment.read
g, token:approver, role:approver, demo
`

// setup is what a benchmark changes in manent.yml; the rest is the default
// configuration, including the full default pipeline.
type setup struct {
	// queues is the queues section of manent.yml ("" keeps the defaults).
	queues string
	// environments is how many environments demo/app/envNN exist.
	environments int
	// worker makes the engine run deploys; without it, submitted deploys
	// stay in the queue.
	worker bool
	// config is more of manent.yml (governance, chains), added as written.
	config string
	// governed gives the service the governance of config; without it the
	// service has none, as before there were rules to evaluate.
	governed bool
	// silent logs errors only: a shutdown with thousands of waits would
	// log a warning for each.
	silent bool
}

// manent is an engine on a fresh database of its own, with the no-op
// plugin on every environment.
type manent struct {
	eng    *service.Service
	cfg    *config.Config
	store  *postgres.Store
	events *postgres.Events
	url    string
	// db is the engine's pool of the manent schema.
	db *sql.DB
	// ctx carries the identity that may submit and read every deploy.
	ctx context.Context
	// close stops the engine and closes its connections, once; the
	// benchmark's cleanup calls it too.
	close func()
}

func newManent(b *testing.B, s setup) *manent {
	b.Helper()
	m, closeAll := openManent(b, s)
	b.Cleanup(closeAll)
	return m
}

// openManent starts manent and returns what stops it, for a benchmark that
// tears one side down before it measures the other. Its database is
// dropped when the benchmark ends.
func openManent(b *testing.B, s setup) (*manent, func()) {
	b.Helper()
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		closers = nil
	}
	fail := func(format string, args ...any) {
		closeAll()
		b.Fatalf(format, args...)
	}
	dir := b.TempDir()
	for i := range s.environments {
		writeFile(b, filepath.Join(dir, "envconfig/demo/app", envName(i)+".yml"), "plugin: noop\ntargets: [{path: /nowhere}]\n")
	}
	writeFile(b, filepath.Join(dir, "artifacts/app-1.tar.gz"), artifact(b))
	text := fmt.Sprintf("server: {default_tenant: demo, work_dir: %s, executor_id: bench}\n"+
		"artifacts: {sources: [\"file:\"], file_root: artifacts}\n", filepath.Join(dir, "work"))
	if s.queues != "" {
		text += "queues: " + s.queues + "\n"
	}
	text += s.config
	cfg, err := config.Parse([]byte(text), dir)
	if err != nil {
		fail("config: %v", err)
	}
	url := pgtest.URL(b)
	ctx, cancel := context.WithCancel(context.Background())
	closers = append(closers, cancel)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		fail("%v", err)
	}
	closers = append(closers, func() { _ = db.Close() })
	if err := postgres.Migrate(ctx, db); err != nil {
		fail("%v", err)
	}
	logger := quietLogger()
	if s.silent {
		logger = silentLogger()
	}
	events := postgres.NewEvents(url, logger)
	closers = append(closers, events.Close)
	az, err := authz.New("", policy)
	if err != nil {
		fail("%v", err)
	}
	store := postgres.NewStore(db)
	var gov deploy.Governor
	if s.governed {
		if gov, err = governance.FromConfig(cfg.Governance, store); err != nil {
			fail("governance: %v", err)
		}
	}
	plugins := []deploy.Plugin{noopPlugin{}}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Governor: gov, Plugins: plugins,
		Logger: logger})
	if err != nil {
		fail("%v", err)
	}
	eng, err := engine.New(ctx, engine.Options{
		Config: cfg, Store: store, Recorder: postgres.NewRecorder(), DatabaseURL: url, Worker: s.worker,
		Plugins: plugins, Logger: logger,
	})
	if err != nil {
		fail("%v", err)
	}
	svc.Use(eng)
	eng.Use(svc)
	if err := eng.Launch(); err != nil {
		fail("%v", err)
	}
	closers = append(closers, func() { _ = eng.Shutdown(30 * time.Second) })
	rctx, rcancel := context.WithTimeout(ctx, time.Minute)
	defer rcancel()
	if err := events.Ready(rctx); err != nil {
		fail("%v", err)
	}
	return &manent{eng: svc, cfg: cfg, store: store, events: events, url: url, db: db.SQL(), close: closeAll,
		ctx: deploy.WithIdentity(ctx, deploy.Identity{Subject: "token:bench"})}, closeAll
}

// timing is where the time of one deploy or workflow went, as its caller
// saw it.
type timing struct {
	// accept is until the submission (or enqueue) returned.
	accept time.Duration
	// run is from the start of the first step until the caller learnt of
	// the success: the queue's wait is total - run.
	run time.Duration
	// total is from the call until the caller learnt of the success.
	total time.Duration
	// stored is from the start of the first step until the end was
	// recorded, as the deploy's record says (zero for a bare workflow,
	// whose run ends when its last step is stored).
	stored time.Duration
}

// deploy submits a deploy of app to environment and waits for SUCCESS,
// woken by its events. The success counts from the event that carried it,
// not from the read that confirmed it.
func (m *manent) deploy(id, environment string) (timing, error) {
	ctx, cancel := context.WithTimeout(m.ctx, 2*time.Minute)
	defer cancel()
	// Subscribed before the submission, so no event of the deploy is missed.
	ch := m.events.Subscribe(ctx, id)
	start := time.Now()
	if _, err := m.eng.Submit(m.ctx, descriptorFor(id, environment), deploy.SubmitOptions{}); err != nil {
		return timing{}, fmt.Errorf("submit %s: %w", id, err)
	}
	accept := time.Since(start)
	for {
		ev, ok := <-ch
		if !ok {
			return timing{}, fmt.Errorf("deploy %s: no SUCCESS: %w", id, ctx.Err())
		}
		at := time.Now()
		if ev.Kind != deploy.EventDeployment {
			continue
		}
		// Read on every event of the deploy, once for all that queued up
		// meanwhile: its state, the least a caller following it reads to
		// learn of its end (the web interface's live views share one read
		// of the whole deploy per change among all their subscribers).
		drain(ch)
		var state deploy.State
		var msg string
		var started, finished *time.Time
		err := m.db.QueryRowContext(ctx, `SELECT state, error, started_at, finished_at FROM manent.deployments WHERE id = $1`, id).
			Scan(&state, &msg, &started, &finished)
		if err != nil {
			return timing{}, fmt.Errorf("read deploy %s: %w", id, err)
		}
		switch {
		case state == deploy.StateSuccess && started != nil && finished != nil:
			// started_at is written by the workflow's first step, in this
			// process, finished_at by its finish, just before its commit.
			return timing{accept: accept, run: at.Sub(*started), total: at.Sub(start),
				stored: finished.Sub(*started)}, nil
		case state.Terminal():
			return timing{}, fmt.Errorf("deploy %s ended %s: %s", id, state, msg)
		}
	}
}

func drain(ch <-chan deploy.Event) {
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

func descriptorFor(id, environment string) []byte {
	return fmt.Appendf(nil, `apiVersion: manent/v1
id: %s
application: app
environment: %s
artifact: {type: application, name: app, version: "1.0.0", source: "file:app-1.tar.gz"}
`, id, environment)
}

func envName(i int) string { return fmt.Sprintf("env%02d", i) }

// quietLogger keeps DBOS's and the engine's start-up lines out of the
// benchmark output.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func silentLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func writeFile(b *testing.B, path, body string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
}

// artifact is a one-file tar.gz: the artifacts and qa steps download,
// hash and open it like any release.
func artifact(b *testing.B) string {
	b.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("<h1>bench</h1>\n")
	err := tw.WriteHeader(&tar.Header{Name: "index.html", Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
	if err == nil {
		_, err = tw.Write(body)
	}
	err = errors.Join(err, tw.Close(), gz.Close())
	if err != nil {
		b.Fatal(err)
	}
	return buf.String()
}

// ms is a duration in milliseconds, for b.ReportMetric.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// median is robust to the spikes other processes cause on a shared machine,
// where a mean follows them.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// planSteps is how many steps the plan of a deploy to environment has.
func (m *manent) planSteps(b *testing.B, environment string) int {
	b.Helper()
	sub, err := m.eng.Submit(m.ctx, descriptorFor("plan", environment), deploy.SubmitOptions{ValidateOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	return len(sub.Deployment.Plan.Steps)
}
