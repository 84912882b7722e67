package devoidc

import (
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// client is manent at the provider: a public native client (no secret,
// PKCE), so that the browser flow, the CLI's loopback callback (any port,
// RFC 8252) and the device grant all use it.
type client struct {
	id        string
	redirects []string
}

var _ op.Client = (*client)(nil)

func (c *client) GetID() string                       { return c.id }
func (c *client) RedirectURIs() []string              { return c.redirects }
func (c *client) PostLogoutRedirectURIs() []string    { return c.redirects }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeNative }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) LoginURL(id string) string            { return loginPath + "?authRequestID=" + id }
func (c *client) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (c *client) IDTokenLifetime() time.Duration       { return tokenLifetime }
func (c *client) DevMode() bool                        { return true }
func (c *client) IsScopeAllowed(string) bool           { return false }
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *client) ClockSkew() time.Duration             { return 0 }

func (c *client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken, oidc.GrantTypeDeviceCode}
}

func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// authRequest is one authorization code flow, from /authorize to the
// token exchange.
type authRequest struct {
	id          string
	clientID    string
	redirectURI string
	state       string
	nonce       string
	scopes      []string
	response    oidc.ResponseType
	mode        oidc.ResponseMode
	challenge   *oidc.CodeChallenge
	created     time.Time

	subject  string
	authTime time.Time
	done     bool
}

var _ op.AuthRequest = (*authRequest)(nil)

func (a *authRequest) GetID() string                         { return a.id }
func (a *authRequest) GetACR() string                        { return "" }
func (a *authRequest) GetAudience() []string                 { return []string{a.clientID} }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetClientID() string                   { return a.clientID }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.response }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.mode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

func (a *authRequest) GetAMR() []string {
	if a.done {
		return []string{"pwd"}
	}
	return nil
}

// refreshToken is a refresh token's grant; the token itself is the key
// it is stored under.
type refreshToken struct {
	clientID string
	subject  string
	audience []string
	scopes   []string
	authTime time.Time
	amr      []string
	expires  time.Time
}

var _ op.RefreshTokenRequest = (*refreshRequest)(nil)

type refreshRequest struct{ t *refreshToken }

func (r *refreshRequest) GetAMR() []string            { return r.t.amr }
func (r *refreshRequest) GetAudience() []string       { return r.t.audience }
func (r *refreshRequest) GetAuthTime() time.Time      { return r.t.authTime }
func (r *refreshRequest) GetClientID() string         { return r.t.clientID }
func (r *refreshRequest) GetScopes() []string         { return r.t.scopes }
func (r *refreshRequest) GetSubject() string          { return r.t.subject }
func (r *refreshRequest) SetCurrentScopes(s []string) { r.t.scopes = s }
