package server

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
	"manent.dev/manent/frontend"
	"manent.dev/manent/governance"
	"manent.dev/manent/graph"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/embeddedpg"
	"manent.dev/manent/internal/metrics"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/specsig"
	"manent.dev/manent/internal/tokens"
	"manent.dev/manent/service"
)

// engineShutdown is how long Close lets running steps finish; DBOS resumes
// the others at the next start.
const engineShutdown = 20 * time.Second

// Main starts a server: it loads the configuration, opens and migrates
// PostgreSQL (starting the embedded one if allowed and none is configured),
// builds the adapters and the engine, launches the engine and serves HTTP.
// It returns once the server accepts requests; the caller runs Run and then
// Close. On error, whatever was started is stopped.
func Main(ctx context.Context, c Config) (_ *Server, err error) {
	c = c.withDefaults()
	cfg, err := config.Load(c.ConfigPath)
	if err != nil {
		return nil, err
	}
	role, err := pickRole(c.Role, cfg.Server.Role)
	if err != nil {
		return nil, err
	}
	if err := checkDev(cfg, c.Dev); err != nil {
		return nil, err
	}
	if c.DevOIDC != "" && !c.Dev {
		return nil, errors.New("the development oidc provider is manent-server dev's only")
	}
	specs, err := specKeyring(ctx, cfg, c.Logger)
	if err != nil {
		return nil, err
	}
	ownWorkDir, err := cfg.UseDataDir(c.DataDir)
	if err != nil {
		return nil, err
	}
	s := &Server{log: c.Logger, role: role}
	defer func() {
		if err != nil {
			if cerr := s.Close(); cerr != nil {
				s.log.Warn("stop after a failed start", "error", cerr)
			}
		}
	}()
	if err := s.startDevOIDC(c, cfg); err != nil {
		return nil, err
	}
	oidcSecret, err := oidcClientSecret(ctx, cfg)
	if err != nil {
		return nil, err
	}
	stepRoots, err := httpStepRoots(cfg, s.startDemoCDN(c), s.log)
	if err != nil {
		return nil, err
	}
	db, err := s.openDatabase(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	if role != RoleAPI {
		if err := prepareWorkDir(cfg.Server.WorkDir, ownWorkDir); err != nil {
			return nil, err
		}
	}
	plugins, err := s.plugins(cfg, c.Dev)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(c, db, s.log)
	if err != nil {
		return nil, err
	}
	az, err := authz.New(cfg.RBAC.Model, cfg.RBAC.Policy)
	if err != nil {
		return nil, err
	}
	s.authz, s.configPath = az, c.ConfigPath
	svc, eng, err := newCoreWith(ctx, cfg, db, s.databaseURL, plugins, specs, stepRoots, role != RoleAPI, az, m, s.log)
	if err != nil {
		return nil, err
	}
	// Workers send the chat messages, the api answers their buttons: every
	// role builds the chat side.
	notifier, chatActions := newChat(cfg, c.Dev, svc, postgres.NewStore(db), s.log)
	if notifier != nil {
		eng.UseChat(notifier)
	}
	if err := eng.Launch(); err != nil {
		_ = eng.Shutdown(engineShutdown)
		return nil, err
	}
	s.onClose("engine", func() error { return eng.Shutdown(engineShutdown) })
	s.fenced = eng.Fenced()

	ready := func(ctx context.Context) error { return db.SQL().PingContext(ctx) }
	var h http.Handler
	if role == RoleWorker {
		h = workerRoutes(ready, m, cfg.Server.Metrics.TokenSHA256, s.log)
	} else {
		events := postgres.NewEvents(s.databaseURL, s.log.With("component", "events"))
		s.onClose("events", func() error { events.Close(); return nil })
		wait, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := events.Ready(wait)
		cancel()
		if err != nil {
			return nil, err
		}
		hub := graph.NewHub(svc, events, s.log.With("component", "live"))
		s.onClose("live", func() error { hub.Close(); return nil })
		s.onClose("chat answers", func() error { notifier.Wait(); return nil })
		idp := newOIDC(ctx, cfg, oidcSecret, s)
		static := tokens.New(cfg.Auth.Tokens)
		a := &api{
			service: svc, events: events, hub: hub, auth: credentials{tokens: static, oidc: idp}, ready: ready, log: s.log,
			publicURL: cfg.Server.PublicURL, introspection: cfg.Server.IntrospectionPolicy(),
			spa: frontend.FS(), demoTargets: c.DemoTargets, chatActions: chatActions, audit: postgres.NewStore(db),
			web:     newWebAuth(cfg, db, idp, static),
			metrics: m, metricsToken: cfg.Server.Metrics.TokenSHA256,
		}
		h = a.routes()
	}

	listen := c.Listen
	if listen == "" {
		listen = cfg.Server.Listen
	}
	if listen == "" {
		listen = DefaultListen
	}
	s.listener, err = net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s.serve(h)
	s.log.Info("manent-server started", "addr", s.Addr(), "role", role,
		"executor_id", cfg.Server.ExecutorID, "embedded_postgres", s.embedded)
	return s, nil
}

// Migrate migrates the database of the configuration and returns.
func Migrate(ctx context.Context, c Config) (err error) {
	c = c.withDefaults()
	cfg, err := config.Load(c.ConfigPath)
	if err != nil {
		return err
	}
	s := &Server{log: c.Logger}
	defer func() { err = errors.Join(err, s.Close()) }()
	if _, err := s.openDatabase(ctx, c, cfg); err != nil {
		return err
	}
	s.log.Info("database migrated")
	return nil
}

// newCore builds the application service and the engine on one database,
// each with the port of the other; m, when set, times the steps and counts
// the errors of DBOS's pool.
func newCore(ctx context.Context, cfg *config.Config, db *postgres.DB, url string, plugins []deploy.Plugin,
	specs *specsig.Keyring, stepRoots *x509.CertPool, worker bool, m *metrics.Metrics, log *slog.Logger) (*service.Service, *engine.Engine, error) {
	az, err := authz.New(cfg.RBAC.Model, cfg.RBAC.Policy)
	if err != nil {
		return nil, nil, err
	}
	return newCoreWith(ctx, cfg, db, url, plugins, specs, stepRoots, worker, az, m, log)
}

func newCoreWith(ctx context.Context, cfg *config.Config, db *postgres.DB, url string, plugins []deploy.Plugin,
	specs *specsig.Keyring, stepRoots *x509.CertPool, worker bool, az *authz.Authorizer, m *metrics.Metrics, log *slog.Logger) (*service.Service, *engine.Engine, error) {
	store := postgres.NewStore(db)
	gov, err := newGovernor(cfg, store)
	if err != nil {
		return nil, nil, err
	}
	changes, err := newChangeConnectors(cfg, log)
	if err != nil {
		return nil, nil, err
	}
	svc, err := service.New(service.Options{Config: cfg, Store: store, Authorizer: az, Governor: gov,
		Changes: changes, Plugins: plugins, Specs: specs, Logger: log, Outcomes: store})
	if err != nil {
		return nil, nil, err
	}
	// The engine outlives ctx, which only bounds the start: DBOS runs until
	// Close.
	opts := engine.Options{
		Config: cfg, Store: store, Recorder: postgres.NewRecorder(), DatabaseURL: url,
		Plugins: plugins,
		Secrets: engineSecrets(cfg),
		Changes: changes, Worker: worker, Specs: specs, HTTPStepRootCAs: stepRoots, Logger: log,
	}
	if m != nil {
		opts.Recorder, opts.PoolTracer = postgres.NewObservedRecorder(m.StepEnded), m.Tracer(metrics.PoolDBOS)
	}
	eng, err := engine.New(context.WithoutCancel(ctx), opts)
	if err != nil {
		return nil, nil, fmt.Errorf("create engine: %w", err)
	}
	svc.Use(eng)
	eng.Use(svc)
	return svc, eng, nil
}

// newGovernor builds the governance of manent.yml: the Rego policy when
// governance.rego is set, else the YAML rules, else none.
func newGovernor(cfg *config.Config, store *postgres.Store) (deploy.Governor, error) {
	if cfg.Governance.Rego == "" && cfg.Governance.Empty() {
		return nil, nil
	}
	return governance.FromConfig(cfg.Governance, store)
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.DataDir == "" {
		c.DataDir = ".manent"
	}
	return c
}

func pickRole(flag, configured string) (string, error) {
	role := flag
	if role == "" {
		role = configured
	}
	switch role {
	case "":
		return RoleAll, nil
	case RoleAll, RoleAPI, RoleWorker:
		return role, nil
	}
	return "", fmt.Errorf("unknown role %q: want all, api or worker", role)
}

// openDatabase opens and migrates the configured PostgreSQL, or the
// embedded one when none is configured and c allows it.
func (s *Server) openDatabase(ctx context.Context, c Config, cfg *config.Config) (*postgres.DB, error) {
	s.databaseURL = cfg.Database.URL
	if s.databaseURL == "" {
		if !c.EmbeddedPostgres {
			return nil, errors.New("no database: set database.url in manent.yml or DATABASE_URL")
		}
		inst, err := embeddedpg.Start(ctx, embeddedpg.Options{
			DataDir: filepath.Join(c.DataDir, "pg"), Logger: s.log.With("component", "embeddedpg"),
		})
		if err != nil {
			return nil, fmt.Errorf("start embedded postgresql: %w", err)
		}
		s.onClose("embedded postgresql", inst.Stop)
		s.databaseURL, s.embedded = inst.URL(""), true
	}
	db, err := postgres.Open(ctx, s.databaseURL)
	if err != nil {
		return nil, err
	}
	_, conns := cfg.Database.Pools()
	db.Limit(conns)
	s.onClose("database", db.Close)
	if err := postgres.Migrate(ctx, db); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return db, nil
}

// prepareWorkDir creates the directory of the deploys' working
// directories, readable by this server's user alone: they hold artifacts
// before they are verified. The installation's own directory (own) is
// made private again if it was not; one manent.yml names is left as its
// operator made it.
func prepareWorkDir(dir string, own bool) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create server.work_dir: %w", err)
	}
	if own {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("create server.work_dir: %w", err)
		}
	}
	return nil
}

// workerRoutes is all a worker serves: health and metrics, no API (so its
// metrics open only to the scrape token).
func workerRoutes(ready func(context.Context) error, m *metrics.Metrics, metricsToken string, log *slog.Logger) http.Handler {
	a := &api{ready: ready, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /metrics", metricsRoute(m, metricsAccess{tokenSHA256: metricsToken}, log))
	return m.Routes(mux)
}
