package oidc

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Leeway is how far the clocks of manent and of the provider may drift
// apart: a token is still taken this long after its exp, and this long
// before its nbf.
const Leeway = 30 * time.Second

// maxTokenBytes bounds what is parsed: a JWT of a user with a thousand
// groups is far below it.
const maxTokenBytes = 64 << 10

// Timeouts of the calls to the provider, and how long after a failed
// discovery the next request tries again (until then, OIDC tokens are
// refused at once instead of each waiting on a provider that is down).
const (
	httpTimeout = 10 * time.Second
	retryAfter  = 5 * time.Second
)

// Options configure a Provider.
type Options struct {
	Config config.OIDC
	// ClientSecret is the resolved auth.oidc.client_secret_ref, "" for a
	// public client. Never logged.
	ClientSecret string
	// HTTPClient calls the provider; nil is one with a 10 s timeout.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Now is the clock tokens are checked against; nil is time.Now.
	Now func() time.Time
}

// Provider is the OIDC provider of auth.oidc. It implements
// deploy.Authenticator for bearer JWTs and is safe for concurrent use.
// Discovery happens at the first need and again after a failure, so that
// manent starts (and its static tokens work) while the provider is down.
type Provider struct {
	cfg    config.OIDC
	secret string
	client *http.Client
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	disc     *discovered
	failedAt time.Time
	failure  error
}

// discovered is what the provider's discovery document gave.
type discovered struct {
	provider *gooidc.Provider
	verifier *gooidc.IDTokenVerifier
	algs     []string
}

var _ deploy.Authenticator = (*Provider)(nil)

// New returns the provider of o.Config; it does not call it (see
// Discover).
func New(o Options) *Provider {
	p := &Provider{cfg: o.Config, secret: o.ClientSecret, client: o.HTTPClient, log: o.Logger, now: o.Now}
	if p.client == nil {
		p.client = &http.Client{Timeout: httpTimeout}
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// Issuer is the configured issuer URL.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// Name is what the sign-in page calls the provider.
func (p *Provider) Name() string { return p.cfg.Name }

// Discover reads the provider's discovery document unless it was read
// already. Its error names the issuer and the cause, never a secret.
func (p *Provider) Discover(ctx context.Context) error {
	_, err := p.discovery(ctx, true)
	return err
}

func (p *Provider) discovery(ctx context.Context, force bool) (*discovered, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.disc != nil {
		return p.disc, nil
	}
	if !force && !p.failedAt.IsZero() && time.Since(p.failedAt) < retryAfter {
		return nil, p.failure
	}
	// A request that ends while the provider is read must not count as the
	// provider's failure: the timeout of discover bounds the wait instead.
	d, err := p.discover(context.WithoutCancel(ctx))
	if err != nil {
		p.failedAt, p.failure = time.Now(), err
		return nil, err
	}
	p.disc, p.failedAt, p.failure = d, time.Time{}, nil
	p.log.Info("oidc provider discovered", "issuer", p.cfg.Issuer, "algorithms", d.algs)
	return d, nil
}

func (p *Provider) discover(ctx context.Context) (*discovered, error) {
	ctx, cancel := context.WithTimeout(gooidc.ClientContext(ctx, p.client), httpTimeout)
	defer cancel()
	gp, err := gooidc.NewProvider(ctx, p.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc discovery of %s: %w", p.cfg.Issuer, err)
	}
	var meta struct {
		JWKSURI string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := gp.Claims(&meta); err != nil || meta.JWKSURI == "" {
		return nil, fmt.Errorf("oidc discovery of %s: no jwks_uri", p.cfg.Issuer)
	}
	algs := slices.Clone(p.cfg.AllowedAlgorithms)
	if len(algs) == 0 {
		for _, a := range meta.Algs {
			if slices.Contains(config.SigningAlgorithms, a) {
				algs = append(algs, a)
			}
		}
	}
	if len(algs) == 0 {
		algs = []string{"RS256"} // the one OIDC requires every provider to offer
	}
	keys := &keySet{url: meta.JWKSURI, client: p.client, now: p.now}
	for _, a := range algs {
		keys.algs = append(keys.algs, jose.SignatureAlgorithm(a))
	}
	v := gooidc.NewVerifier(p.cfg.Issuer, keys, &gooidc.Config{
		SkipClientIDCheck:    true, // the audiences are checked against auth.oidc.audiences below
		SupportedSigningAlgs: algs,
		Now:                  func() time.Time { return p.now().Add(-Leeway) },
	})
	return &discovered{provider: gp, verifier: v, algs: algs}, nil
}

// Endpoint is the provider's OAuth 2.0 endpoints (authorization, token,
// device authorization), for the sign-in flows.
func (p *Provider) Endpoint(ctx context.Context) (oauth2.Endpoint, error) {
	d, err := p.discovery(ctx, false)
	if err != nil {
		return oauth2.Endpoint{}, err
	}
	return d.provider.Endpoint(), nil
}

// OAuth2Config is the OAuth 2.0 client of manent at the provider, with the
// scopes of auth.oidc, for a flow that redirects to redirectURL.
func (p *Provider) OAuth2Config(ctx context.Context, redirectURL string) (*oauth2.Config, error) {
	ep, err := p.Endpoint(ctx)
	if err != nil {
		return nil, err
	}
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.secret, Endpoint: ep,
		RedirectURL: redirectURL, Scopes: p.cfg.RequestedScopes()}, nil
}

// Authenticate implements deploy.Authenticator: the identity of a bearer
// JWT of the provider. EUNAUTHENTICATED for a token that is not one, with
// a message that says why and never shows the token; EGROUPSOVERAGE for a
// token whose groups the provider left out.
func (p *Provider) Authenticate(ctx context.Context, token string) (deploy.Identity, error) {
	t, err := p.Verify(ctx, token)
	if err != nil {
		return deploy.Identity{}, err
	}
	return t.Identity, nil
}

// Token is a verified JWT of the provider.
type Token struct {
	Identity deploy.Identity
	// Claims are all its claims (numbers as json.Number).
	Claims map[string]any
	// Nonce is its nonce claim, which the browser's flow compares with
	// the one it sent.
	Nonce  string
	Expiry time.Time
}

// Verify checks a JWT of the provider: its shape and algorithm, its
// issuer, its signature against the provider's keys, its exp and nbf
// (with Leeway), its audience (one of auth.oidc.audiences), then maps its
// claims. The checks that need no network come first, so that a string
// that is not the provider's JWT never makes manent fetch its keys.
func (p *Provider) Verify(ctx context.Context, raw string) (*Token, error) {
	return p.verify(ctx, raw, p.cfg.AllowedAudiences(), "one of auth.oidc.audiences")
}

// VerifyIDToken checks the ID token the token endpoint answered to one of
// manent's own sign-in flows: Verify's checks, but with an audience that
// holds the client ID itself, and a nonce that is the one the flow sent,
// so that an ID token of another sign-in, replayed, is refused.
func (p *Provider) VerifyIDToken(ctx context.Context, raw, nonce string) (*Token, error) {
	t, err := p.verify(ctx, raw, []string{p.cfg.ClientID}, "auth.oidc.client_id")
	if err != nil {
		return nil, err
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(t.Nonce), []byte(nonce)) != 1 {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its nonce is not the one of this sign-in (an ID token of another sign-in, replayed?)")
	}
	return t, nil
}

// verify is Verify with the audiences a token may carry, named by
// audienceName in the refusal.
func (p *Provider) verify(ctx context.Context, raw string, audiences []string, audienceName string) (*Token, error) {
	header, unverified, err := parseUnverified(raw)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(config.SigningAlgorithms, header.Alg) {
		return nil, errAlgorithm
	}
	if iss, _ := unverified["iss"].(string); !issuerMatches(p.cfg.Issuer, iss) {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: it was not issued by the identity provider of auth.oidc")
	}
	d, err := p.discovery(ctx, false)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(d.algs, header.Alg) {
		return nil, errAlgorithm
	}
	sig := &signatureResult{}
	_, verr := d.verifier.Verify(context.WithValue(ctx, signatureKey{}, sig), raw)
	if sig.unavailable != nil {
		return nil, fmt.Errorf("oidc provider %s: %w", p.cfg.Issuer, sig.unavailable)
	}
	if !sig.ok {
		p.log.DebugContext(ctx, "oidc token signature refused", "error", verr)
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its signature does not verify with the identity provider's keys")
	}
	claims, err := decodeClaims(sig.payload)
	if err != nil {
		return nil, err
	}
	expiry, err := p.checkTimes(claims)
	if err != nil {
		return nil, err
	}
	if !audienceAllowed(claims["aud"], audiences) {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: its audience is not %s (it was issued for another application)", audienceName)
	}
	if !p.partyAllowed(claims, audiences) {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
			"token refused: it names several audiences, and its azp (the client it was issued to) is not manent's "+
				"(auth.oidc.client_id, cli_client_id or audiences)")
	}
	if hd := p.cfg.HostedDomain; hd != "" {
		// Google signs in any Google account for a client; hd names the
		// Workspace domain of the account, absent for a personal one.
		if got, _ := claims["hd"].(string); !strings.EqualFold(got, hd) {
			return nil, deploy.Errorf(deploy.EUNAUTHENTICATED,
				"token refused: its account is not of the domain %s (auth.oidc.hosted_domain; its hd claim differs or is absent)", hd)
		}
	}
	id, err := identity(claims, p.cfg.UserClaim, p.cfg.GroupsClaim)
	if err != nil {
		return nil, err
	}
	if verr != nil {
		// Every check above passed, so go-oidc refused something else
		// (a distributed claim without its source).
		p.log.DebugContext(ctx, "oidc token refused", "error", verr)
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "token refused: its claims are malformed")
	}
	nonce, _ := claims["nonce"].(string)
	return &Token{Identity: id, Claims: claims, Nonce: nonce, Expiry: expiry}, nil
}

// issuerMatches reports whether a token's iss is the configured issuer.
// Google's tokens may leave the scheme out; go-oidc, which checks iss
// again after the signature, allows that for Google alone, and so does
// manent.
func issuerMatches(configured, iss string) bool {
	return iss == configured || (configured == "https://accounts.google.com" && iss == "accounts.google.com")
}

var (
	errInvalid   = deploy.Errorf(deploy.EUNAUTHENTICATED, "invalid token")
	errAlgorithm = deploy.Errorf(deploy.EUNAUTHENTICATED,
		"token refused: it is not signed with an algorithm auth.oidc allows (never none or a shared secret)")
)

type jwtHeader struct {
	Alg string `json:"alg"`
}

// parseUnverified reads the header and the claims of a compact JWS without
// checking anything: only to refuse early what cannot be the provider's.
// A string that is not a JWT is "invalid token", as an unknown static
// token is.
func parseUnverified(raw string) (jwtHeader, map[string]any, error) {
	parts := strings.Split(raw, ".")
	if len(raw) > maxTokenBytes || len(parts) != 3 {
		return jwtHeader{}, nil, errInvalid
	}
	var h jwtHeader
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil || json.Unmarshal(hb, &h) != nil || h.Alg == "" {
		return jwtHeader{}, nil, errInvalid
	}
	pb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return jwtHeader{}, nil, errInvalid
	}
	claims, err := decodeClaims(pb)
	if err != nil {
		return jwtHeader{}, nil, err
	}
	return h, claims, nil
}

func decodeClaims(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var c map[string]any
	if err := dec.Decode(&c); err != nil || c == nil {
		return nil, errInvalid
	}
	return c, nil
}

// checkTimes checks exp (required) and nbf (optional), and returns the
// expiry.
func (p *Provider) checkTimes(c map[string]any) (time.Time, error) {
	now := p.now()
	exp, ok := numericDate(c["exp"])
	if !ok {
		return time.Time{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "token refused: it has no expiry (exp)")
	}
	if now.After(exp.Add(Leeway)) {
		return time.Time{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "token expired: sign in again")
	}
	if raw, present := c["nbf"]; present {
		nbf, ok := numericDate(raw)
		if !ok {
			return time.Time{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "token refused: its nbf is not a date")
		}
		if now.Add(Leeway).Before(nbf) {
			return time.Time{}, deploy.Errorf(deploy.EUNAUTHENTICATED,
				"token refused: it is not valid yet (nbf; are the clocks of manent and of the identity provider apart?)")
		}
	}
	return exp, nil
}

func numericDate(v any) (time.Time, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return time.Time{}, false
	}
	f, err := n.Float64()
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(int64(f), 0), true
}

// partyAllowed applies OpenID Connect Core §3.1.3.7 to a token whose aud
// lists more than one audience: its azp, the client it was issued to,
// must be one of manent's clients, else a token another application
// obtained with manent among its audiences would act as manent's.
func (p *Provider) partyAllowed(claims map[string]any, audiences []string) bool {
	list, ok := claims["aud"].([]any)
	if !ok || len(list) <= 1 {
		return true
	}
	azp, ok := claims["azp"].(string)
	if !ok || azp == "" {
		return false
	}
	return azp == p.cfg.ClientID || azp == p.cfg.CLIClient() || slices.Contains(audiences, azp)
}

// audienceAllowed reports whether aud (a string or a list of strings)
// holds one of the allowed audiences.
func audienceAllowed(aud any, allowed []string) bool {
	switch a := aud.(type) {
	case string:
		return slices.Contains(allowed, a)
	case []any:
		for _, v := range a {
			if s, ok := v.(string); ok && slices.Contains(allowed, s) {
				return true
			}
		}
	}
	return false
}
