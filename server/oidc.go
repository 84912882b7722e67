package server

import (
	"context"
	"fmt"
	"time"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/devoidc"
	"manent.dev/manent/internal/oidc"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/tokens"
	"manent.dev/manent/internal/websession"
)

// credentials authenticate a bearer token: a static token of auth.tokens
// first (compared locally, never sent anywhere), then, when auth.oidc is
// set, a JWT of its provider.
type credentials struct {
	tokens *tokens.Authenticator
	oidc   *oidc.Provider
}

func (c credentials) Authenticate(ctx context.Context, token string) (deploy.Identity, error) {
	id, err := c.tokens.Authenticate(ctx, token)
	if err == nil || c.oidc == nil {
		return id, err
	}
	return c.oidc.Authenticate(ctx, token)
}

// startDevOIDC starts the development provider of manent-server dev and,
// when manent.yml has no auth.oidc, points auth.oidc at it.
func (s *Server) startDevOIDC(c Config, cfg *config.Config) error {
	if c.DevOIDC == "" {
		return nil
	}
	if cfg.Auth.OIDC != nil {
		s.log.Info("auth.oidc is set in manent.yml: the development oidc provider is not started", "issuer", cfg.Auth.OIDC.Issuer)
		return nil
	}
	p, err := devoidc.Start(devoidc.Options{Listen: c.DevOIDC})
	if err != nil {
		return fmt.Errorf("%w (give manent-server dev --oidc-listen another loopback address, or empty for none)", err)
	}
	s.onClose("development oidc provider", p.Close)
	s.devOIDC = p
	o := &config.OIDC{}
	o.SetDefaults()
	o.Issuer, o.ClientID, o.Name = p.Issuer(), devoidc.ClientID, "the demo provider"
	cfg.Auth.OIDC = o
	return nil
}

// oidcClientSecret reads auth.oidc.client_secret_ref, at start-up, before
// anything is opened: one that cannot be read stops the start, naming its
// reference, never a value.
func oidcClientSecret(ctx context.Context, cfg *config.Config) (string, error) {
	o := cfg.Auth.OIDC
	if o == nil || o.ClientSecretRef == "" {
		return "", nil
	}
	v, err := keyReader(cfg).Resolve(ctx, o.ClientSecretRef)
	if err != nil {
		return "", fmt.Errorf("auth.oidc.client_secret_ref: %w", err)
	}
	return v, nil
}

// newOIDC returns the provider of auth.oidc, nil when there is none. It is
// discovered now, but one that does not answer does not stop the start:
// the static tokens keep working, and OIDC tokens are refused with an
// internal error (logged) until a later request finds the provider again.
func newOIDC(ctx context.Context, cfg *config.Config, secret string, s *Server) *oidc.Provider {
	o := cfg.Auth.OIDC
	if o == nil {
		return nil
	}
	p := oidc.New(oidc.Options{Config: *o, ClientSecret: secret, Logger: s.log.With("component", "oidc")})
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := p.Discover(wait); err != nil {
		s.log.Warn("the oidc provider of auth.oidc does not answer: its tokens are refused until it does "+
			"(static tokens work); manent tries again at the next oidc token", "issuer", o.Issuer, "error", err)
	}
	return p
}

// newWebAuth builds the sign-in of the web interface: sessions in db, the
// OIDC sign-in when auth.oidc is set, token sign-in when
// auth.allow_token_sign_in is on.
func newWebAuth(cfg *config.Config, db *postgres.DB, idp *oidc.Provider, static *tokens.Authenticator) webAuth {
	store := websession.NewStore(db.Bun(), websession.Options{TTL: cfg.Auth.Session.TTL, IdleTimeout: cfg.Auth.Session.IdleTimeout})
	w := webAuth{sessions: store, tokens: static, allowTokenSignIn: cfg.Auth.AllowTokenSignIn}
	if idp != nil {
		w.signin, w.oidcName = websession.NewSignIn(store, idp), idp.Name()
	}
	return w
}
