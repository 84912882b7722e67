package websession

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"time"

	"golang.org/x/oauth2"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/oidc"
)

// flowLifetime is how long a sign-in may take between manent's redirect to
// the provider and the provider's back: time to type a password and a
// second factor, not to keep a state around.
const flowLifetime = 10 * time.Minute

// Why a sign-in failed, as the sign-in page tells it: the codes of
// /signin?signin_error=. The cause itself is logged, never shown in a URL.
const (
	// ReasonExpired: a state manent did not issue, already used, too old,
	// or that another browser started.
	ReasonExpired = "expired"
	// ReasonDenied: the provider answered with an error (the user
	// declined, or the provider refused manent's request).
	ReasonDenied = "denied"
	// ReasonRefused: the provider's answer did not pass (a code it would
	// not exchange, an ID token that does not verify, a foreign nonce).
	ReasonRefused = "refused"
	// ReasonOverage: the provider left the groups out (GROUPS_OVERAGE).
	ReasonOverage = "overage"
	// ReasonUnavailable: the provider could not be reached, or manent
	// failed.
	ReasonUnavailable = "unavailable"
)

// Failure is a sign-in that did not sign anyone in.
type Failure struct {
	Reason string
	Err    error
}

func (f *Failure) Error() string { return "sign-in " + f.Reason + ": " + f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

func fail(reason string, format string, a ...any) error {
	return &Failure{Reason: reason, Err: fmt.Errorf(format, a...)}
}

// SignIn is the authorization code flow of the web interface, with PKCE
// (S256), state and nonce. What the flow must remember between the
// redirect and the callback is kept server-side, in PostgreSQL, keyed by
// the state's hash: any API process can finish a sign-in another started,
// and a state is taken back once only.
type SignIn struct {
	store    *Store
	provider *oidc.Provider
}

// NewSignIn returns the sign-in through provider, with its flows in store.
func NewSignIn(store *Store, provider *oidc.Provider) *SignIn {
	return &SignIn{store: store, provider: provider}
}

// Started is a sign-in under way: the provider's URL to send the browser
// to, its state, and the binding to set in a cookie of that browser
// (Finish asks for it back).
type Started struct {
	URL, State, Binding string
}

// MaxOpenFlows bounds the sign-ins under way: each GET /auth/login, which
// anyone may send, records one for flowLifetime. Beyond it, Start refuses
// (ErrTooManySignIns) rather than let the table grow without end.
const MaxOpenFlows = 10000

// ErrTooManySignIns is a sign-in refused because MaxOpenFlows are under
// way already.
var ErrTooManySignIns = errors.New("too many sign-ins are under way on this server: try again in a few minutes")

// FlowLifetime is how long a sign-in may take (the binding cookie's
// lifetime).
const FlowLifetime = flowLifetime

// Start records a new sign-in; next is where the browser goes once signed
// in.
func (s *SignIn) Start(ctx context.Context, redirectURL, next string) (Started, error) {
	cfg, err := s.provider.OAuth2Config(ctx, redirectURL)
	if err != nil {
		return Started{}, err
	}
	now := s.store.now().UTC()
	if err := s.store.purge(ctx, now); err != nil {
		return Started{}, err
	}
	// Counted up to the bound only: the count costs no more than the bound,
	// however many rows an attack left.
	var open int
	if err := s.store.db.NewRaw(`SELECT count(*) FROM (SELECT 1 FROM manent.signin_flows WHERE expires_at > ? LIMIT ?) AS f`,
		now, s.store.maxFlows()).Scan(ctx, &open); err != nil {
		return Started{}, fmt.Errorf("count sign-ins: %w", err)
	}
	if open >= s.store.maxFlows() {
		return Started{}, ErrTooManySignIns
	}
	state, nonce, verifier, binding := randomID(), randomID(), oauth2.GenerateVerifier(), randomID()
	_, err = s.store.db.NewRaw(`INSERT INTO manent.signin_flows (state_hash, binding_hash, nonce, verifier, next_path, expires_at)
		VALUES (?, ?, ?, ?, ?, ?)`, digest(state), digest(binding), nonce, verifier, next, now.Add(flowLifetime)).Exec(ctx)
	if err != nil {
		return Started{}, fmt.Errorf("record sign-in: %w", err)
	}
	u := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("nonce", nonce))
	return Started{URL: u, State: state, Binding: binding}, nil
}

// BindingName is the name of the binding cookie of the sign-in of state:
// one per sign-in, so that sign-ins started in two tabs of a browser both
// finish.
func BindingName(state string) string {
	return "manent_signin_" + base64.RawURLEncoding.EncodeToString(digest(state))[:16]
}

// Finish takes the provider's answer at the callback (its query), with the
// binding of the browser's cookie: it takes the sign-in back (once),
// exchanges the code with the PKCE verifier and verifies the ID token
// (issuer, signature, expiry, the client ID as audience, the nonce), then
// maps its claims as a bearer token's are. It returns the identity and
// where to send the browser; a *Failure says why not.
func (s *SignIn) Finish(ctx context.Context, redirectURL string, q url.Values, binding string) (deploy.Identity, string, error) {
	state := q.Get("state")
	if state == "" || len(state) > 256 {
		return deploy.Identity{}, "", fail(ReasonExpired, "the callback has no state")
	}
	// The flow is taken back only with its browser's binding: a callback
	// opened in another browser (someone who learnt the state) finds
	// nothing, and leaves the victim's sign-in to finish.
	var nonce, verifier, next string
	var expires time.Time
	err := s.store.db.NewRaw(`DELETE FROM manent.signin_flows WHERE state_hash = ? AND binding_hash = ?
		RETURNING nonce, verifier, next_path, expires_at`, digest(state), digest(binding)).Scan(ctx,
		&nonce, &verifier, &next, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return deploy.Identity{}, "", fail(ReasonExpired,
			"a state manent did not issue, used already, or started in another browser (its binding cookie is missing or another)")
	}
	if err != nil {
		return deploy.Identity{}, "", &Failure{Reason: ReasonUnavailable, Err: fmt.Errorf("take sign-in back: %w", err)}
	}
	if !s.store.now().Before(expires) {
		return deploy.Identity{}, "", fail(ReasonExpired, "the sign-in was started more than %s ago", flowLifetime)
	}
	if e := q.Get("error"); e != "" {
		return deploy.Identity{}, "", fail(ReasonDenied, "the identity provider answered %.64q", e)
	}
	code := q.Get("code")
	if code == "" {
		return deploy.Identity{}, "", fail(ReasonRefused, "the callback has no code")
	}
	cfg, err := s.provider.OAuth2Config(ctx, redirectURL)
	if err != nil {
		return deploy.Identity{}, "", &Failure{Reason: ReasonUnavailable, Err: err}
	}
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return deploy.Identity{}, "", fail(ReasonRefused, "the identity provider would not exchange the code: %s", re.ErrorCode)
		}
		return deploy.Identity{}, "", &Failure{Reason: ReasonUnavailable, Err: fmt.Errorf("exchange the code: %w", err)}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return deploy.Identity{}, "", fail(ReasonRefused, "the identity provider sent no ID token (is openid in auth.oidc.scopes?)")
	}
	t, err := s.provider.VerifyIDToken(ctx, raw, nonce)
	if err != nil {
		switch deploy.ErrorCode(err) {
		case deploy.EGROUPSOVERAGE:
			return deploy.Identity{}, "", &Failure{Reason: ReasonOverage, Err: err}
		case deploy.EUNAUTHENTICATED:
			return deploy.Identity{}, "", &Failure{Reason: ReasonRefused, Err: err}
		}
		return deploy.Identity{}, "", &Failure{Reason: ReasonUnavailable, Err: err}
	}
	return t.Identity, next, nil
}
