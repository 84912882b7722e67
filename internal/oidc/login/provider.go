package login

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// leeway is how long before its expiry a token is refreshed, and how far
// the clocks of the CLI and of the provider may drift apart.
const leeway = time.Minute

// Provider is the identity provider of a manent server, as its discovery
// document describes it.
type Provider struct {
	settings   Settings
	client     *http.Client
	now        func() time.Time
	endpoint   oauth2.Endpoint
	revocation string
	scopes     []string
	verifier   *gooidc.IDTokenVerifier
}

// Discover reads the discovery document of s.Issuer: the issuer it names
// must be s.Issuer exactly (go-oidc checks it), so a document served
// elsewhere cannot redirect the sign-in. client calls the provider (nil:
// one with a 30 s timeout), now is the clock tokens are checked against
// (nil: time.Now).
func Discover(ctx context.Context, s Settings, client *http.Client, now func() time.Time) (*Provider, error) {
	if s.Issuer == "" || s.ClientID == "" {
		return nil, errors.New("the server's single sign-on settings name no issuer or client ID")
	}
	if err := CheckIssuer(s.Issuer); err != nil {
		return nil, err
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	if now == nil {
		now = time.Now
	}
	gp, err := gooidc.NewProvider(gooidc.ClientContext(ctx, client), s.Issuer)
	if err != nil {
		return nil, &ProviderError{Issuer: s.Issuer, Err: err}
	}
	var meta struct {
		Revocation string   `json:"revocation_endpoint"`
		Scopes     []string `json:"scopes_supported"`
	}
	if err := gp.Claims(&meta); err != nil {
		return nil, &ProviderError{Issuer: s.Issuer, Err: fmt.Errorf("discovery document: %w", err)}
	}
	ep := gp.Endpoint()
	// A public client: the client ID goes in the form, never a secret.
	ep.AuthStyle = oauth2.AuthStyleInParams
	scopes := slices.Clone(s.Scopes)
	if len(scopes) == 0 {
		scopes = []string{gooidc.ScopeOpenID}
	}
	// A refresh token spares the user a sign-in every quarter of an hour;
	// offline_access asks for one where the provider knows the scope (some
	// refuse scopes they do not list).
	if slices.Contains(meta.Scopes, gooidc.ScopeOfflineAccess) && !slices.Contains(scopes, gooidc.ScopeOfflineAccess) {
		scopes = append(scopes, gooidc.ScopeOfflineAccess)
	}
	v := gp.VerifierContext(gooidc.ClientContext(context.WithoutCancel(ctx), client),
		&gooidc.Config{ClientID: s.ClientID, Now: now})
	return &Provider{settings: s, client: client, now: now, endpoint: ep, revocation: meta.Revocation,
		scopes: scopes, verifier: v}, nil
}

// CheckIssuer refuses an issuer the CLI would send a password or a token
// to in the clear: it must be https, but on a loopback host (a
// development provider). The server checks its auth.oidc.issuer so too,
// but the CLI does not take the server's word: a server reached over
// plain http, or one that is not what it seems, could name any issuer.
func CheckIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return &ProviderError{Issuer: issuer, Err: errors.New("its issuer is not an absolute URL")}
	}
	if u.Scheme == "https" || (u.Scheme == "http" && Loopback(u.Hostname())) {
		return nil
	}
	return &InsecureIssuerError{Issuer: issuer}
}

// Loopback reports whether host is this machine: localhost or a loopback
// address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// HasDeviceFlow reports whether the provider serves the device
// authorization grant.
func (p *Provider) HasDeviceFlow() bool { return p.endpoint.DeviceAuthURL != "" }

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.settings.Issuer }

func (p *Provider) oauth2Config(redirectURL string) *oauth2.Config {
	return &oauth2.Config{ClientID: p.settings.ClientID, Endpoint: p.endpoint, Scopes: p.scopes, RedirectURL: redirectURL}
}

func (p *Provider) context(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, p.client)
}

// tokens turns a token endpoint's answer into Tokens, after checking its ID
// token: the provider's signature, this client as audience, not expired,
// and, for the code flow, the nonce the flow sent.
func (p *Provider) tokens(ctx context.Context, t *oauth2.Token, nonce string, previous *Tokens) (*Tokens, error) {
	if t.AccessToken == "" {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: errors.New("the token endpoint answered no access token")}
	}
	out := &Tokens{Issuer: p.settings.Issuer, ClientID: p.settings.ClientID, Audiences: slices.Clone(p.settings.Audiences),
		AccessToken: t.AccessToken, AccessTokenExpiry: t.Expiry.UTC(), RefreshToken: t.RefreshToken}
	if previous != nil {
		out.Server = previous.Server
		if out.RefreshToken == "" {
			// RFC 6749 §6: without a new refresh token, the old one stays.
			out.RefreshToken = previous.RefreshToken
		}
		out.IDToken, out.IDTokenExpiry = previous.IDToken, previous.IDTokenExpiry
	}
	if raw, _ := t.Extra("id_token").(string); raw != "" {
		id, err := p.verifier.Verify(ctx, raw)
		if err != nil {
			return nil, fmt.Errorf("the identity provider's ID token does not verify: %w", err)
		}
		if nonce != "" && id.Nonce != nonce {
			return nil, errors.New("the identity provider's ID token is not for this sign-in (its nonce differs)")
		}
		out.IDToken, out.IDTokenExpiry = raw, id.Expiry.UTC()
	} else if previous == nil {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: errors.New("the token endpoint answered no ID token (is openid among the scopes?)")}
	}
	if out.AccessTokenExpiry.IsZero() {
		// No expires_in: the access token is taken to live as long as the
		// ID token, the only expiry known.
		out.AccessTokenExpiry = out.IDTokenExpiry
	}
	return out, nil
}

// Refresh spends t's refresh token for new tokens. The provider may make
// refresh tokens single-use: the caller stores the result at once. A
// refresh token the provider refuses is ErrSignInAgain.
func (p *Provider) Refresh(ctx context.Context, t *Tokens) (*Tokens, error) {
	if t.RefreshToken == "" {
		return nil, ErrSignInAgain
	}
	ts := p.oauth2Config("").TokenSource(p.context(ctx), &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)})
	nt, err := ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.ErrorCode == "invalid_token") {
			return nil, ErrSignInAgain
		}
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	out, err := p.tokens(ctx, nt, "", t)
	if err != nil {
		return nil, err
	}
	if out.BearerExpiry().Before(p.now().Add(leeway)) {
		// A refresh that gave no new token of the kind sent (an ID token
		// not renewed) leaves nothing to send.
		return nil, ErrSignInAgain
	}
	return out, nil
}

// Revoke revokes t's refresh token (and with it, at most providers, the
// access tokens it gave) at the provider's revocation endpoint (RFC 7009).
// revoked is false when the provider has none.
func (p *Provider) Revoke(ctx context.Context, t *Tokens) (revoked bool, err error) {
	if p.revocation == "" {
		return false, nil
	}
	tok, hint := t.RefreshToken, "refresh_token"
	if tok == "" {
		tok, hint = t.AccessToken, "access_token"
	}
	form := url.Values{"token": {tok}, "token_type_hint": {hint}, "client_id": {p.settings.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.revocation, strings.NewReader(form.Encode()))
	if err != nil {
		return false, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.client.Do(req)
	if err != nil {
		return false, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return false, &ProviderError{Issuer: p.settings.Issuer, Err: fmt.Errorf("revocation answered %s", resp.Status)}
	}
	return true, nil
}
