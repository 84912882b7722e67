package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph"
	"manent.dev/manent/internal/metrics"
	"manent.dev/manent/internal/postgres"
)

// metricsAccess is who may read /metrics: the scrape token of
// server.metrics.token_sha256, or (where the process authenticates
// callers: roles api and all) an identity holding admin, as
// server.introspection's admins.
type metricsAccess struct {
	// tokenSHA256 is the hex SHA-256 of the scrape token; empty for none.
	tokenSHA256 string
	// authenticate and isAdmin are nil on a worker, which has no API.
	authenticate func(ctx context.Context, header string) (deploy.Identity, error)
	isAdmin      func(ctx context.Context) bool
}

// metricsRoute serves the metrics to whoever metricsAccess lets in: no
// credentials or an unknown token is a 401, an identity that is not an
// administrator a 403. The metrics hold no secret, but they map the
// installation (routes, queues, volumes), which is not for every caller.
func metricsRoute(m *metrics.Metrics, access metricsAccess, log *slog.Logger) http.HandlerFunc {
	h := m.Handler()
	return func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		token, ok := bearer(header)
		if !ok {
			writeError(w, r, log, errNoCredentials)
			return
		}
		if access.scrapeToken(token) {
			h.ServeHTTP(w, r)
			return
		}
		if access.authenticate == nil {
			writeError(w, r, log, deploy.Errorf(deploy.EUNAUTHENTICATED, "invalid token"))
			return
		}
		id, err := access.authenticate(r.Context(), header)
		if err != nil {
			writeError(w, r, log, err)
			return
		}
		if !access.isAdmin(deploy.WithIdentity(r.Context(), id)) {
			writeError(w, r, log, deploy.Errorf(deploy.EFORBIDDEN, "reading the metrics needs admin, or the scrape token of server.metrics.token_sha256"))
			return
		}
		h.ServeHTTP(w, r)
	}
}

// scrapeToken reports whether token is the scrape token, in constant time.
func (m metricsAccess) scrapeToken(token string) bool {
	if m.tokenSHA256 == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare([]byte(hex.EncodeToString(sum[:])), []byte(m.tokenSHA256)) == 1
}

// apiMetricsAccess is the access of a process that serves the API.
func (a *api) metricsAccess(tokenSHA256 string) metricsAccess {
	return metricsAccess{tokenSHA256: tokenSHA256, authenticate: a.authenticate, isAdmin: graph.Administrators(a.service)}
}

// liveConnection counts an open live connection of transport in the
// metrics, when the server has them; call what it returns at the end.
func (a *api) liveConnection(transport string) func() {
	if a.metrics == nil {
		return func() {}
	}
	return a.metrics.Live(transport)
}

// figures are the counts of the store as the metrics show them.
func figures(store *postgres.Store) metrics.FiguresFunc {
	return func(ctx context.Context) (metrics.Figures, error) {
		c, err := store.Counts(ctx)
		if err != nil {
			return metrics.Figures{}, err
		}
		f := metrics.Figures{Deploys: c.Deploys, Workflows: make([]metrics.QueueCount, len(c.Workflows))}
		for i, w := range c.Workflows {
			f.Workflows[i] = metrics.QueueCount{Queue: w.Queue, Status: w.Status, Count: w.Count}
		}
		return f, nil
	}
}

// newMetrics makes the server's metrics: its figures read from db, whose
// pool it watches and whose errors it counts. It must come before any
// store of db is made, or their statements go uncounted.
func newMetrics(c Config, db *postgres.DB, log *slog.Logger) (*metrics.Metrics, error) {
	m := metrics.New(metrics.Options{Version: c.Version, Logger: log})
	db.Observe(m.QueryHook(metrics.PoolManent))
	if err := m.ReadFigures(figures(postgres.NewStore(db))); err != nil {
		return nil, fmt.Errorf("read the figures: %w", err)
	}
	if err := m.SQLPool(db.SQL(), metrics.PoolManent); err != nil {
		return nil, fmt.Errorf("watch the database pool: %w", err)
	}
	return m, nil
}
