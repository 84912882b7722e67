package devoidc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Tokens are what the provider's token endpoint answers.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
}

// DeviceCode is the answer of the device authorization endpoint.
type DeviceCode struct {
	DeviceCode      string `json:"device_code"`
	UserCode        string `json:"user_code"`
	VerificationURI string `json:"verification_uri"`
	Interval        int    `json:"interval"`
	ExpiresIn       int    `json:"expires_in"`
}

// TokenError is an OAuth 2.0 error answer (authorization_pending,
// slow_down, access_denied, expired_token, invalid_grant).
type TokenError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *TokenError) Error() string { return "oauth2: " + e.Code + ": " + e.Description }

// SignIn signs a user in through the provider's real endpoints, as the CLI
// and a person at the verification page would with the device
// authorization grant: the tests and the demo's scripts get tokens this
// way without a browser.
func (p *Provider) SignIn(ctx context.Context, name string) (Tokens, error) {
	i := slices.IndexFunc(p.users, func(u User) bool { return u.Name == name })
	if i < 0 {
		return Tokens{}, fmt.Errorf("no user %s", name)
	}
	dc, err := p.StartDevice(ctx, "openid profile email groups offline_access")
	if err != nil {
		return Tokens{}, err
	}
	if err := p.Verify(ctx, dc, name, p.users[i].Password, true); err != nil {
		return Tokens{}, err
	}
	return p.PollDevice(ctx, dc)
}

// StartDevice asks the device authorization endpoint for a code.
func (p *Provider) StartDevice(ctx context.Context, scope string) (DeviceCode, error) {
	var dc DeviceCode
	err := p.post(ctx, p.issuer+"/device_authorization", url.Values{"client_id": {ClientID}, "scope": {scope}}, &dc)
	return dc, err
}

// Verify answers the verification page for dc as user: allow or deny.
func (p *Provider) Verify(ctx context.Context, dc DeviceCode, user, password string, allow bool) error {
	decision := "allow"
	if !allow {
		decision = "deny"
	}
	form := url.Values{"user_code": {dc.UserCode}, "username": {user}, "password": {password}, "decision": {decision}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dc.VerificationURI, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("verification page: %s", resp.Status)
	}
	return nil
}

// PollDevice asks the token endpoint once for the tokens of dc; a
// *TokenError says why there are none (yet).
func (p *Provider) PollDevice(ctx context.Context, dc DeviceCode) (Tokens, error) {
	var t Tokens
	err := p.post(ctx, p.issuer+"/oauth/token", url.Values{"client_id": {ClientID},
		"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {dc.DeviceCode}}, &t)
	return t, err
}

// Refresh exchanges a refresh token for new tokens.
func (p *Provider) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	var t Tokens
	err := p.post(ctx, p.issuer+"/oauth/token", url.Values{"client_id": {ClientID},
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}}, &t)
	return t, err
}

func (p *Provider) post(ctx context.Context, endpoint string, form url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		te := &TokenError{}
		if json.Unmarshal(body, te) != nil || te.Code == "" {
			return fmt.Errorf("%s: %s", endpoint, resp.Status)
		}
		return te
	}
	return json.Unmarshal(body, out)
}
