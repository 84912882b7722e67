package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/internal/authz"
	"manent.dev/manent/internal/devoidc"
)

// Roles of a process (DESIGN.md §1): api serves the APIs, worker runs
// deploys, all does both.
const (
	RoleAll    = "all"
	RoleAPI    = "api"
	RoleWorker = "worker"
)

// DefaultListen is where a server listens when neither Config.Listen nor
// server.listen says otherwise.
const DefaultListen = "127.0.0.1:8080"

// Config says how to start a server. Everything else is in manent.yml.
type Config struct {
	// ConfigPath is the manent.yml to load.
	ConfigPath string
	// Listen overrides server.listen ("127.0.0.1:0" picks a free port).
	Listen string
	// Role is all (default), api or worker.
	Role   string
	Logger *slog.Logger
	// EmbeddedPostgres starts PostgreSQL under DataDir when neither
	// DATABASE_URL nor database.url names a database.
	EmbeddedPostgres bool
	// DataDir holds the embedded PostgreSQL (DataDir/pg); default .manent.
	DataDir string
	// DemoTargets is a directory served read-only at /demo/: the demo's
	// targets (manent-server dev), so that its releases can be opened in a
	// browser and its health checks have something to check. Empty in
	// production: manent serves no application.
	DemoTargets string
	// Dev is manent-server dev: the only server that may set
	// plugins.ssh.insecure_ignore_host_key.
	Dev bool
	// DemoCDN, when set, is the loopback address where the demo's CDN is
	// served over TLS (manent-server dev): its certificate authority is
	// made at start-up, written to <DataDir>/demo-cdn/ca.pem, and trusted
	// by HTTP steps besides pipeline.custom.ca_file's. Empty in
	// production.
	DemoCDN string
	// DevOIDC, when set, is the loopback address of the development OIDC
	// provider (manent-server dev only), with the demo's users; auth.oidc
	// points to it unless manent.yml sets auth.oidc.
	DevOIDC string
	// Version is the server's version, shown by manent_build_info; empty
	// reads the module's.
	Version string
}

// Server is a running manent-server. Create it with Main.
type Server struct {
	log      *slog.Logger
	role     string
	listener net.Listener
	http     *http.Server
	// stopStreams ends SSE streams and websockets, which a graceful HTTP
	// shutdown would otherwise wait for.
	stopStreams context.CancelFunc
	serveErr    chan error
	// closers release what Main opened, in reverse order.
	closers []closer
	// databaseURL is where the server's data lives (it holds a password:
	// never log it).
	databaseURL string
	embedded    bool
	// fenced is closed when another worker took over this process's
	// deploys (see engine.Fenced): the process must exit.
	fenced <-chan struct{}
	// devOIDC is the development OIDC provider, nil unless Config.DevOIDC.
	devOIDC *devoidc.Provider
	// authz decides every permission; ReloadRBAC replaces its policy with
	// the one configPath holds now.
	authz      *authz.Authorizer
	configPath string
}

// ReloadRBAC reads manent.yml again and puts its rbac (model and policy)
// in force: every request from now on, and every subscription at its next
// event, is decided by it. The whole file is checked as at start-up; on an
// error nothing changes. Other keys need a restart.
func (s *Server) ReloadRBAC() error {
	if s.authz == nil {
		return errors.New("reload rbac: the server has no authorizer")
	}
	cfg, err := config.Load(s.configPath)
	if err != nil {
		return fmt.Errorf("reload rbac: %w", err)
	}
	if err := s.authz.Replace(cfg.RBAC.Model, cfg.RBAC.Policy); err != nil {
		return fmt.Errorf("reload rbac: %w", err)
	}
	s.log.Info("rbac reloaded", "config", filepath.Base(s.configPath))
	return nil
}

type closer struct {
	name string
	fn   func() error
}

// Addr is the address the server listens on, with the real port when
// Config.Listen asked for port 0.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// URL is the base URL of the server as seen from this machine.
func (s *Server) URL() string { return "http://" + s.Addr() }

// DevOIDC is the development OIDC provider Main started, nil when none.
func (s *Server) DevOIDC() *devoidc.Provider { return s.devOIDC }

// Role is the role the server runs in.
func (s *Server) Role() string { return s.role }

// EmbeddedPostgres reports whether Main started the embedded PostgreSQL.
func (s *Server) EmbeddedPostgres() bool { return s.embedded }

// Run serves until ctx ends (nil) or the listener fails. Call Close after.
func (s *Server) Run(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-s.serveErr:
		return err
	case <-s.fenced:
		return errors.New("another worker took over this executor's deploys (fenced): restart this process")
	}
}

// Close stops the server gracefully: the HTTP server (open streams are
// ended), then the engine (running steps get time to finish; DBOS resumes
// the rest at the next start), the events, the database and the embedded
// PostgreSQL. Calling it twice is harmless.
func (s *Server) Close() error {
	var errs []error
	if s.http != nil {
		s.stopStreams()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down http: %w", err))
			_ = s.http.Close()
		}
		cancel()
		s.http = nil
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		c := s.closers[i]
		if err := c.fn(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", c.name, err))
		}
	}
	s.closers = nil
	return errors.Join(errs...)
}

func (s *Server) onClose(name string, fn func() error) {
	s.closers = append(s.closers, closer{name: name, fn: fn})
}

// serve starts the HTTP server on the listener.
func (s *Server) serve(h http.Handler) {
	base, cancel := context.WithCancel(context.Background())
	s.stopStreams = cancel
	s.http = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: SSE streams and websockets last as long as a deploy.
		IdleTimeout: 2 * time.Minute,
		BaseContext: func(net.Listener) context.Context { return base },
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.serveErr = make(chan error, 1)
	// The goroutine keeps its own server: Close clears s.http, and may
	// run before the goroutine does (a signal at start-up).
	srv, ln := s.http, s.listener
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr <- fmt.Errorf("serve http: %w", err)
		}
	}()
}
