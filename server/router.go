package server

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/graph"
)

// api holds what the HTTP layer needs. Main fills it from the real adapters;
// tests may fill it with fakes of the deploy interfaces.
type api struct {
	service deploy.Service
	// audit appends the entries of what the server does itself (ending
	// sessions); nil in tests of the router alone.
	audit  auditor
	events deploy.Events
	// hub shares the reads of the live subscriptions; nil reads them per
	// subscriber (tests with fakes).
	hub  *graph.Hub
	auth deploy.Authenticator
	// ready reports whether the process can serve (the database answers).
	ready func(context.Context) error
	log   *slog.Logger
	// publicURL is server.public_url: the origin of the web interface when
	// it is not the host the request names (a proxy in front).
	publicURL string
	// introspection is server.introspection: who may read the schema.
	introspection string
	// heartbeat is the period of the SSE comments that keep proxies from
	// closing an idle stream.
	heartbeat time.Duration
	// spa is the built web interface.
	spa fs.FS
	// demoTargets, when set, is served read-only at /demo/ (Config.DemoTargets).
	demoTargets string
	// chatActions answers the buttons of the chat messages (Slack signs
	// them: no bearer token); nil without notifications.chat.
	chatActions http.Handler
	// web is the sign-in and the sessions of the web interface.
	web webAuth
	// sessionRecheck is how often a websocket's session is checked again;
	// 0 is defaultSessionRecheck.
	sessionRecheck time.Duration
}

func (a *api) live() graph.Live {
	return graph.Live{Service: a.service, Events: a.events, Hub: a.hub, Logger: a.log}
}

// routes returns the server's HTTP handler.
func (a *api) routes() http.Handler {
	return a.mux().ServeMux
}

// routeMux is the server's ServeMux, keeping the patterns registered on
// it: the authorization matrix (authz_matrix_test.go) checks that every
// route has a row, so a route added here without one fails the tests.
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

// mux builds the router: every route of the server is registered here.
func (a *api) mux() *routeMux {
	if a.heartbeat <= 0 {
		a.heartbeat = 15 * time.Second
	}
	gql := graph.NewHandler(graph.HandlerOptions{
		Resolver:      &graph.Resolver{Service: a.service, Dora: doraReader(a.service), Events: a.events, Hub: a.hub, Logger: a.log},
		InitFunc:      a.wsInit,
		CheckOrigin:   a.checkOrigin,
		MayIntrospect: a.mayIntrospect(),
		Logger:        a.log,
	})
	mux := &routeMux{ServeMux: http.NewServeMux()}
	mux.Handle("/graphql", a.requireGraphQL(gql))
	mux.HandleFunc("POST /api/v1/deployments", a.requireREST(a.submit(false)))
	mux.HandleFunc("POST /api/v1/deployments/plan", a.requireREST(a.submit(true)))
	mux.HandleFunc("GET /api/v1/deployments/{id}", a.requireREST(a.status))
	mux.HandleFunc("GET /api/v1/deployments/{id}/events", a.requireREST(a.stream))
	mux.HandleFunc("GET "+deploy.LoginSettingsPath, a.loginSettings)
	mux.HandleFunc("DELETE /api/v1/sessions", a.requireREST(a.revokeSessions))
	noEndpoint := func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND, "no such endpoint: %s %s", r.Method, r.URL.Path))
	}
	// Registered whether or not chat is configured, so that every route is
	// in the router's list (the authorization matrix reads it); without
	// notifications.chat it answers as an unknown endpoint.
	if a.chatActions != nil {
		mux.Handle("POST /api/v1/chat/slack/actions", a.chatActions)
	} else {
		mux.HandleFunc("POST /api/v1/chat/slack/actions", noEndpoint)
	}
	mux.HandleFunc("/api/", noEndpoint)
	a.authRoutes(mux)
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /readyz", a.readyz)
	if a.demoTargets != "" {
		mux.Handle("GET /demo/", demoHandler(a.demoTargets))
		mux.Handle("GET /demo-fleet/{path...}", demoFleetHandler(a.demoTargets))
	}
	mux.Handle("/", spaHandler(a.spa))
	return mux
}

// mayIntrospect turns server.introspection into the policy of the GraphQL
// handler; none (and anything else) allows no one.
func (a *api) mayIntrospect() func(context.Context) bool {
	switch a.introspection {
	case config.IntrospectionAdmins:
		return graph.Administrators(a.service)
	case config.IntrospectionAll:
		return graph.Everyone
	}
	return nil
}

func healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (a *api) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if a.ready != nil {
		if err := a.ready(ctx); err != nil {
			// The cause is logged, not shown: it may name hosts and users.
			a.log.WarnContext(ctx, "not ready", "error", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// doraReader is the service's DORA metrics, nil when it computes none.
func doraReader(s deploy.Service) graph.DoraReader {
	d, _ := s.(graph.DoraReader)
	return d
}
