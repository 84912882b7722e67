package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/metrics"
)

// closeForbidden is the close code of graphql-transport-ws for a refused
// connection_init.
const closeForbidden = 4403

var errNoCredentials = deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required: send Authorization: Bearer <token>, or sign in to the web interface")

// bearer returns the token of an Authorization header value, "" when there
// is none.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// authenticate returns the identity of a request's bearer token.
func (a *api) authenticate(ctx context.Context, header string) (deploy.Identity, error) {
	token, ok := bearer(header)
	if !ok {
		return deploy.Identity{}, errNoCredentials
	}
	id, err := a.auth.Authenticate(ctx, token)
	if err != nil {
		return deploy.Identity{}, err
	}
	if id.Anonymous() {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "invalid token")
	}
	return id, nil
}

// requestIdentity authenticates a request by its bearer token or, without
// one, by the session cookie of the web interface; a request the cookie
// authenticates that may change something must pass checkCSRF.
func (a *api) requestIdentity(r *http.Request) (deploy.Identity, error) {
	header := r.Header.Get("Authorization")
	if header != "" || !hasSessionCookie(r) {
		return a.authenticate(r.Context(), header)
	}
	id, _, err := a.sessionIdentity(r.Context(), r)
	if err != nil {
		return deploy.Identity{}, err
	}
	if stateChanging(r.Method) {
		if err := a.checkCSRF(r); err != nil {
			return deploy.Identity{}, err
		}
	}
	return id, nil
}

// requireREST authenticates a REST request; a refusal is a 401 JSON error.
func (a *api) requireREST(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := a.requestIdentity(r)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		next(w, r.WithContext(deploy.WithIdentity(r.Context(), id)))
	}
}

// requireGraphQL authenticates a GraphQL request over HTTP; a refusal is a
// GraphQL error with code UNAUTHENTICATED (status 401). A websocket upgrade
// is authenticated later, in connection_init (browsers cannot set headers
// on it), unless it carries an Authorization header.
func (a *api) requireGraphQL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		if isWebsocket(r) {
			if !a.checkOrigin(r) {
				writeGraphQLError(w, r, a.log, http.StatusForbidden,
					deploy.Errorf(deploy.EFORBIDDEN, "websocket origin not allowed"))
				return
			}
			// gqlgen serves the connection until it closes: this counts it
			// while it is open, subscribers with it.
			defer a.liveConnection(metrics.TransportWebsocket)()
			if header == "" {
				// The cookie of the web interface; without a valid one,
				// connection_init must authenticate.
				if c, err := r.Cookie(sessionCookie); err == nil {
					id, _, err := a.sessionByID(r.Context(), c.Value)
					switch {
					case err == nil:
						ctx := context.WithValue(deploy.WithIdentity(r.Context(), id), sessionIDKey{}, c.Value)
						r = r.WithContext(ctx)
					case deploy.ErrorCode(err) != deploy.EUNAUTHENTICATED:
						// The store failed: not a reason to sign the page out.
						writeGraphQLError(w, r, a.log, http.StatusInternalServerError, err)
						return
					}
				}
				next.ServeHTTP(w, r)
				return
			}
		}
		// Every GraphQL request over HTTP is a POST, and may hold a mutation:
		// a cookie's must pass checkCSRF.
		id, err := a.requestIdentity(r)
		if err != nil {
			writeGraphQLError(w, r, a.log, httpStatus(deploy.ErrorCode(err)), err)
			return
		}
		// gqlgen reads the whole body: bound it (a descriptor of maxDescriptor
		// bytes, escaped in JSON, fits).
		r.Body = http.MaxBytesReader(w, r.Body, 4*maxDescriptor)
		next.ServeHTTP(w, r.WithContext(deploy.WithIdentity(r.Context(), id)))
	})
}

// wsInit authenticates a websocket in connection_init, from
// {"Authorization": "Bearer <token>"} or {"token": "<token>"}, or keeps the
// identity of the upgrade request's header or session cookie (a session's
// socket closes once the session ends). A refusal closes the socket
// with 4403.
func (a *api) wsInit(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	header := p.Authorization()
	if header == "" && p.GetString("token") != "" {
		header = "Bearer " + p.GetString("token")
	}
	if header == "" && !deploy.IdentityFrom(ctx).Anonymous() {
		if sid, ok := ctx.Value(sessionIDKey{}).(string); ok {
			return a.watchSession(ctx, sid), nil, nil
		}
		return ctx, nil, nil
	}
	id, err := a.authenticate(ctx, header)
	if err != nil {
		code := deploy.ErrorCode(err)
		if code != deploy.EGROUPSOVERAGE {
			code = deploy.EUNAUTHENTICATED
		}
		reason := string(code)
		if c := deploy.ErrorCode(err); c != deploy.EUNAUTHENTICATED && c != deploy.EGROUPSOVERAGE {
			// Do not tell a client about an internal failure in a close frame.
			a.log.ErrorContext(ctx, "websocket authentication failed", "error", err)
			reason = "authentication failed"
		}
		ctx = transport.WithWebsocketCloseCode(transport.AppendCloseReason(ctx, reason), closeForbidden)
		return ctx, nil, deploy.Errorf(code, "%s", reason)
	}
	return a.watchBearer(deploy.WithIdentity(ctx, id), header), nil, nil
}

// watchBearer closes a websocket once the bearer token it signed in with
// no longer authenticates (an OIDC token past its expiry, groups now over
// the limit): a subscription lives no longer than its credentials. The
// token is checked as every request checks it, each sessionRecheck.
func (a *api) watchBearer(ctx context.Context, header string) context.Context {
	every := a.sessionRecheck
	if every <= 0 {
		every = defaultSessionRecheck
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := a.authenticate(ctx, header)
			switch code := deploy.ErrorCode(err); {
			case err == nil:
			case code == deploy.EUNAUTHENTICATED || code == deploy.EGROUPSOVERAGE:
				return
			case ctx.Err() == nil:
				// The provider did not answer: the token is not refused.
				a.log.WarnContext(ctx, "check a websocket's token", "error", err)
			}
		}
	}()
	return ctx
}

func isWebsocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// checkOrigin accepts a websocket from a page of this server (same host as
// the request, or the configured public URL) and from clients that are not
// browsers (no Origin header): a page of another site must not use the
// browser's credentials here.
func (a *api) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	if a.publicURL == "" {
		return false
	}
	pub, err := url.Parse(a.publicURL)
	return err == nil && strings.EqualFold(pub.Scheme, u.Scheme) && strings.EqualFold(pub.Host, u.Host)
}
