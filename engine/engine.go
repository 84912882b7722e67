package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/plugins/local"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/safehttp"
)

// Options wires an Engine.
type Options struct {
	Config     *config.Config
	Store      deploy.Store
	Authorizer deploy.Authorizer
	// DatabaseURL is the PostgreSQL that holds both the manent schema and
	// DBOS's system schema (one database, so a submit is one transaction).
	DatabaseURL string
	// Plugins and Secrets default to the local plugin and the env: and file:
	// providers.
	Plugins []deploy.Plugin
	Secrets []deploy.SecretProvider
	// Governor evaluates freezes, promotion, approvals and change rules;
	// nil means no governance.
	Governor deploy.Governor
	// Changes are the ITSM connectors that change rules name.
	Changes map[string]deploy.ChangeConnector
	// Worker makes this process dequeue and run deploys (roles all and worker).
	Worker bool
	Logger *slog.Logger
}

// Engine is the deploy service.
type Engine struct {
	cfg     *config.Config
	store   deploy.Store
	authz   deploy.Authorizer
	gov     deploy.Governor
	changes map[string]deploy.ChangeConnector
	plugins map[string]deploy.Plugin
	secrets map[string]deploy.SecretProvider
	log     *slog.Logger
	dbos    dbos.Context
	http    *http.Client
	worker  bool
	stop    context.CancelFunc
	done    chan struct{}
	// stopping is closed by Shutdown; fenced when another worker took over.
	stopping chan struct{}
	fenced   fence
}

var _ deploy.Service = (*Engine)(nil)

// New creates the DBOS context and registers the workflows and queues. Call
// Launch to start recovering and running deploys.
func New(ctx context.Context, o Options) (*Engine, error) {
	if o.Config == nil || o.Store == nil || o.Authorizer == nil {
		return nil, errors.New("engine: config, store and authorizer are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	e := &Engine{
		cfg: o.Config, store: o.Store, authz: o.Authorizer, gov: o.Governor, changes: o.Changes, log: o.Logger,
		plugins: map[string]deploy.Plugin{}, secrets: map[string]deploy.SecretProvider{},
		worker: o.Worker, http: safehttp.New(safehttp.Options{Timeout: 5 * time.Minute}),
		stopping: make(chan struct{}), fenced: fence{ch: make(chan struct{})},
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
	for _, p := range o.Plugins {
		e.plugins[p.Name()] = p
	}
	for _, s := range o.Secrets {
		e.secrets[s.Scheme()] = s
	}
	if err := e.setupDBOS(ctx, o.DatabaseURL); err != nil {
		return nil, err
	}
	return e, nil
}

// Launch starts DBOS: it recovers this executor's workflows and, in a
// worker, starts dequeuing deploys.
func (e *Engine) Launch() error {
	ctx, cancel := context.WithCancel(context.Background())
	if e.worker {
		// Registering clears a fence left from an earlier life of this
		// executor ID, before DBOS recovers its workflows.
		if err := e.register(ctx); err != nil {
			cancel()
			return err
		}
	}
	if err := dbos.Launch(e.dbos); err != nil {
		cancel()
		return fmt.Errorf("launch dbos: %w", err)
	}
	e.stop = cancel
	e.done = make(chan struct{})
	go e.reconcile(ctx)
	return nil
}

// Shutdown stops DBOS, waiting up to timeout for running steps.
func (e *Engine) Shutdown(timeout time.Duration) error {
	select {
	case <-e.stopping:
	default:
		close(e.stopping)
	}
	if e.stop != nil {
		e.stop()
		<-e.done
	}
	return dbos.Shutdown(e.dbos, timeout)
}

// reconcile moves the deploys whose workflow DBOS gave up on to
// MAX_RECOVERY_ATTEMPTS_EXCEEDED. DBOS writes that status in its own table
// without running any of our code, so the read model has to look.
func (e *Engine) reconcile(ctx context.Context) {
	defer close(e.done)
	if !e.worker {
		return
	}
	go e.heartbeat(ctx)
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ids, err := e.store.MarkRecoveryExceeded(ctx)
			if err != nil && ctx.Err() == nil {
				e.log.Warn("reconcile recovery attempts", "error", err)
			}
			for _, id := range ids {
				e.log.Error("deploy exceeded its recovery attempts", "deployment", id)
			}
		}
	}
}
