package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/tokens"
	"manent.dev/manent/internal/websession"
)

// The session cookie of the web interface: the session's opaque ID (the
// binding cookies of sign-ins under way are websession.BindingName's).
const (
	sessionCookie = "manent_session"
	// csrfHeader is the header the web interface sends with every request:
	// a page of another site cannot send it without a CORS preflight,
	// which manent never grants.
	csrfHeader = "X-Manent-CSRF"
)

var errCSRF = deploy.Errorf(deploy.EFORBIDDEN,
	"cross-site request refused: a request signed in by the session cookie must come from this server's pages "+
		"(its Origin) and carry the "+csrfHeader+" header; API clients send Authorization: Bearer <token>")

// webAuth is what the sign-in of the web interface needs: nil sessions
// means no sessions at all (tests of the router without a database).
type webAuth struct {
	sessions *websession.Store
	// signin is nil without auth.oidc.
	signin   *websession.SignIn
	oidcName string
	tokens   *tokens.Authenticator
	// allowTokenSignIn is auth.allow_token_sign_in.
	allowTokenSignIn bool
}

// secure reports whether the session cookie must be Secure: the web
// interface is served over https (server.public_url says so, or the
// request came over TLS).
func (a *api) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(strings.ToLower(a.publicURL), "https://")
}

// origin is the server's origin as the browser sees it: server.public_url,
// or the scheme and host of the request.
func (a *api) origin(r *http.Request) string {
	if a.publicURL != "" {
		return strings.TrimRight(a.publicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// hasSessionCookie reports whether the request carries a session cookie
// (valid or not).
func hasSessionCookie(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	return err == nil && c.Value != ""
}

// sessionIdentity is the identity of the request's session cookie. A
// session opened with a static token holds only while auth.tokens still
// lists that token, with its groups of now.
func (a *api) sessionIdentity(ctx context.Context, r *http.Request) (deploy.Identity, websession.Session, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return deploy.Identity{}, websession.Session{}, errNoCredentials
	}
	return a.sessionByID(ctx, c.Value)
}

// sessionByID is sessionIdentity for the session ID of a cookie.
func (a *api) sessionByID(ctx context.Context, sid string) (deploy.Identity, websession.Session, error) {
	if a.web.sessions == nil {
		return deploy.Identity{}, websession.Session{}, errNoCredentials
	}
	s, err := a.web.sessions.Lookup(ctx, sid)
	if err != nil {
		return deploy.Identity{}, websession.Session{}, err
	}
	if s.Method == websession.MethodToken {
		id, ok := a.web.tokens.BySum(s.TokenSHA256)
		if !ok {
			if err := a.web.sessions.Delete(ctx, sid); err != nil {
				return deploy.Identity{}, websession.Session{}, err
			}
			return deploy.Identity{}, websession.Session{}, websession.ErrNoSession
		}
		s.Identity = id
	}
	return s.Identity, s, nil
}

// sessionIDKey holds, in a websocket's context, the ID of the session
// cookie that authenticated its upgrade.
type sessionIDKey struct{}

// defaultSessionRecheck is how often an open websocket's session is
// checked again: a session signed out or revoked ends its sockets within
// this time, as its next HTTP request is refused at once.
const defaultSessionRecheck = time.Minute

// watchSession returns the context of a websocket authenticated by the
// session sid: it ends, closing the socket, once the session has ended.
// The client connects again and is refused (4403 UNAUTHENTICATED). A
// database that does not answer keeps the socket: the next check decides.
func (a *api) watchSession(ctx context.Context, sid string) context.Context {
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
			_, _, err := a.sessionByID(ctx, sid)
			if err == nil {
				continue
			}
			if deploy.ErrorCode(err) == deploy.EUNAUTHENTICATED {
				return
			}
			if ctx.Err() == nil {
				a.log.WarnContext(ctx, "check a websocket's session", "error", err)
			}
		}
	}()
	return ctx
}

// checkCSRF refuses a state-changing request that the browser's cookie
// would authenticate unless it comes from a page of this server: the
// custom header, and an Origin (browsers send one with every POST) that
// is this server's.
func (a *api) checkCSRF(r *http.Request) error {
	if r.Header.Get(csrfHeader) != "1" || !a.checkOrigin(r) {
		return errCSRF
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		return errCSRF
	}
	return nil
}

func stateChanging(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// sessionJSON is what GET /auth/session answers: who is signed in, and
// how the sign-in page may sign someone in.
type sessionJSON struct {
	Identity  *identityJSON `json:"identity"`
	Method    string        `json:"method,omitempty"`
	ExpiresAt *time.Time    `json:"expiresAt,omitempty"`
	SignIn    signInJSON    `json:"signIn"`
}

type identityJSON struct {
	Subject string   `json:"subject"`
	Groups  []string `json:"groups"`
}

type signInJSON struct {
	// OIDC is the provider's name (auth.oidc.name), null without one.
	OIDC  *string `json:"oidc"`
	Token bool    `json:"token"`
}

func (a *api) sessionBody(s *websession.Session) sessionJSON {
	body := sessionJSON{SignIn: signInJSON{Token: a.web.allowTokenSignIn}}
	if a.web.signin != nil {
		name := a.web.oidcName
		body.SignIn.OIDC = &name
	}
	if s != nil {
		groups := s.Identity.Groups
		if groups == nil {
			groups = []string{}
		}
		exp := s.ExpiresAt
		body.Identity, body.Method, body.ExpiresAt = &identityJSON{Subject: s.Identity.Subject, Groups: groups}, s.Method, &exp
	}
	return body
}

// authRoutes adds the sign-in routes of the web interface to mux.
func (a *api) authRoutes(mux *routeMux) {
	mux.HandleFunc("GET /auth/session", a.getSession)
	mux.HandleFunc("GET /auth/login", a.login)
	mux.HandleFunc("GET /auth/callback", a.callback)
	mux.HandleFunc("POST /auth/token", a.tokenSignIn)
	mux.HandleFunc("POST /auth/logout", a.logout)
	mux.HandleFunc("POST /auth/logout-everywhere", a.logoutEverywhere)
	mux.HandleFunc("/auth/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND, "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
}

func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }

func (a *api) getSession(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if !hasSessionCookie(r) {
		writeJSON(w, http.StatusOK, a.sessionBody(nil))
		return
	}
	_, s, err := a.sessionIdentity(r.Context(), r)
	if errors.Is(err, websession.ErrNoSession) {
		a.clearSessionCookie(w, r)
		writeJSON(w, http.StatusOK, a.sessionBody(nil))
		return
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, a.sessionBody(&s))
}

// callbackURL is where the provider sends the browser back.
func (a *api) callbackURL(r *http.Request) string { return a.origin(r) + "/auth/callback" }

// nextPath is a path of this server to go to after signing in, /activity
// for anything else (another site, a scheme-relative //host). Control
// characters and backslashes are refused outright rather than cleaned:
// browsers drop tabs and newlines from a Location and read \ as /, so
// "/\t/evil.example" or "/\\evil.example" would leave this server. What
// is kept is re-encoded from its parse (u.RequestURI), never echoed.
func nextPath(next string) string {
	const fallback = "/activity"
	if len(next) > 2048 || strings.ContainsRune(next, '\\') || strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fallback
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return fallback
	}
	out := u.RequestURI()
	if strings.HasPrefix(out, "//") || strings.HasPrefix(u.Path, "/auth/") || strings.HasPrefix(out, "/auth/") {
		return fallback
	}
	return out
}

// login starts the OIDC sign-in: it records the flow and sends the
// browser to the provider.
func (a *api) login(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if a.web.signin == nil || a.web.sessions == nil {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND, "single sign-on is not configured (auth.oidc)"))
		return
	}
	started, err := a.web.signin.Start(r.Context(), a.callbackURL(r), nextPath(r.URL.Query().Get("next")))
	if errors.Is(err, websession.ErrTooManySignIns) {
		// Someone is starting sign-ins faster than they finish: refused
		// until the oldest expire, so that the table stays bounded.
		a.log.WarnContext(r.Context(), "oidc sign-in refused", "error", err)
		w.Header().Set("Retry-After", "60")
		http.Error(w, "Sign-in is unavailable: "+err.Error()+".", http.StatusServiceUnavailable)
		return
	}
	if err != nil {
		a.log.WarnContext(r.Context(), "oidc sign-in could not start", "error", err)
		http.Redirect(w, r, "/signin?signin_error="+websession.ReasonUnavailable, http.StatusSeeOther)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: websession.BindingName(started.State), Value: started.Binding, Path: "/auth/callback",
		MaxAge: int(websession.FlowLifetime.Seconds()), HttpOnly: true, Secure: a.secure(r), SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, started.URL, http.StatusFound)
}

// callback finishes the OIDC sign-in and opens the session. A failure
// sends the browser to the sign-in page with the reason's code only: the
// cause is logged, never put in a URL.
func (a *api) callback(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if a.web.signin == nil || a.web.sessions == nil {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND, "single sign-on is not configured (auth.oidc)"))
		return
	}
	binding, name := "", websession.BindingName(r.URL.Query().Get("state"))
	if c, err := r.Cookie(name); err == nil {
		binding = c.Value
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/auth/callback", MaxAge: -1,
		HttpOnly: true, Secure: a.secure(r), SameSite: http.SameSiteLaxMode})
	id, next, err := a.web.signin.Finish(r.Context(), a.callbackURL(r), r.URL.Query(), binding)
	if err != nil {
		reason := websession.ReasonUnavailable
		var f *websession.Failure
		if errors.As(err, &f) {
			reason = f.Reason
		}
		a.log.WarnContext(r.Context(), "oidc sign-in refused", "reason", reason, "error", err)
		http.Redirect(w, r, "/signin?signin_error="+reason, http.StatusSeeOther)
		return
	}
	if _, err := a.openSession(w, r, websession.Session{Identity: id, Method: websession.MethodOIDC}); err != nil {
		a.log.ErrorContext(r.Context(), "open session", "error", err)
		http.Redirect(w, r, "/signin?signin_error="+websession.ReasonUnavailable, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// openSession creates a session and sets its cookie, ending the one the
// browser had.
func (a *api) openSession(w http.ResponseWriter, r *http.Request, s websession.Session) (websession.Session, error) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := a.web.sessions.Delete(r.Context(), c.Value); err != nil {
			return websession.Session{}, err
		}
	}
	id, created, err := a.web.sessions.Create(r.Context(), s)
	if err != nil {
		return websession.Session{}, err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", Expires: created.ExpiresAt,
		MaxAge: int(a.web.sessions.TTL().Seconds()), HttpOnly: true, Secure: a.secure(r), SameSite: http.SameSiteLaxMode})
	a.log.InfoContext(r.Context(), "signed in to the web interface", "subject", s.Identity.Subject, "method", s.Method,
		"expires_at", created.ExpiresAt)
	return created, nil
}

func (a *api) clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: a.secure(r), SameSite: http.SameSiteLaxMode})
}

// tokenSignIn opens a session with a static token the sign-in page posts
// (auth.allow_token_sign_in): the page keeps nothing, the server checks
// the token and sets the same cookie as the OIDC sign-in.
func (a *api) tokenSignIn(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if !a.web.allowTokenSignIn || a.web.sessions == nil {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND, "signing in with a token is off (auth.allow_token_sign_in)"))
		return
	}
	if err := a.checkCSRF(r); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<10)).Decode(&body); err != nil || body.Token == "" {
		writeError(w, r, a.log, deploy.Errorf(deploy.EUNPROCESSABLE, `the body must be {"token": "<token>"}`))
		return
	}
	id, err := a.web.tokens.Authenticate(r.Context(), strings.TrimSpace(body.Token))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	s := websession.Session{Identity: id, Method: websession.MethodToken, TokenSHA256: tokens.Sum(strings.TrimSpace(body.Token))}
	created, err := a.openSession(w, r, s)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, a.sessionBody(&created))
}

// logout ends this browser's session.
func (a *api) logout(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if err := a.checkCSRF(r); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" && a.web.sessions != nil {
		if err := a.web.sessions.Delete(r.Context(), c.Value); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	a.clearSessionCookie(w, r)
	w.WriteHeader(http.StatusNoContent)
}

// logoutEverywhere ends every session of the signed-in identity, in every
// browser.
func (a *api) logoutEverywhere(w http.ResponseWriter, r *http.Request) {
	noStore(w)
	if err := a.checkCSRF(r); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	id, _, err := a.sessionIdentity(r.Context(), r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	n, err := a.web.sessions.DeleteSubject(r.Context(), id.Subject)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.clearSessionCookie(w, r)
	a.log.InfoContext(r.Context(), "signed out everywhere", "subject", id.Subject, "ended", n)
	writeJSON(w, http.StatusOK, map[string]int{"ended": n})
}

// revokeSessions is DELETE /api/v1/sessions?subject=<identity>: an
// administrator ends every session of an identity (someone who left, a
// laptop lost). It does not revoke the provider's tokens.
func (a *api) revokeSessions(w http.ResponseWriter, r *http.Request) {
	subject := r.URL.Query().Get("subject")
	if subject == "" || len(subject) > 512 {
		writeError(w, r, a.log, deploy.Errorf(deploy.EUNPROCESSABLE, "subject is required: the identity whose sessions end (oidc:alice, token:ci)"))
		return
	}
	// A session is not a tenant's: ending another identity's is for the
	// administrators of every tenant, never of one.
	every := deploy.Resource{Tenant: "*", Application: "*", Environment: "*"}
	if !a.service.Can(r.Context(), every, deploy.PermAdmin) {
		a.auditSessions(r, "sessions.revoke.refused", subject, map[string]any{"code": deploy.EFORBIDDEN})
		writeError(w, r, a.log, deploy.Errorf(deploy.EFORBIDDEN, "only an administrator of every tenant may end the sessions of another identity"))
		return
	}
	n := 0
	if a.web.sessions != nil {
		var err error
		if n, err = a.web.sessions.DeleteSubject(r.Context(), subject); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	a.auditSessions(r, "sessions.revoke", subject, map[string]any{"ended": n})
	a.log.InfoContext(r.Context(), "sessions revoked", "subject", subject, "by", deploy.IdentityFrom(r.Context()).Subject, "ended", n)
	writeJSON(w, http.StatusOK, map[string]int{"ended": n})
}

// auditor appends to the audit log.
type auditor interface {
	AppendAudit(ctx context.Context, e deploy.AuditEntry) error
}

// auditSessions records an end of sessions asked by an administrator (or
// refused), the identity whose sessions they were as its target.
func (a *api) auditSessions(r *http.Request, action, subject string, details map[string]any) {
	if a.audit == nil {
		return
	}
	e := deploy.AuditEntry{Time: time.Now().UTC(), Actor: deploy.IdentityFrom(r.Context()).Subject, Action: action,
		Target: deploy.EscapeText(subject), Details: details}
	if err := a.audit.AppendAudit(r.Context(), e); err != nil {
		a.log.ErrorContext(r.Context(), "append the audit entry of ended sessions", "action", action, "error", err)
	}
}
