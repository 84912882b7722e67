package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Prompt is what the user must do to approve a sign-in: open URL (and,
// for the device grant, type UserCode there; CompleteURL holds it
// already).
type Prompt struct {
	URL         string
	CompleteURL string
	UserCode    string
	Expires     time.Time
}

// Flow is how a sign-in meets the user and the clock.
type Flow struct {
	// Prompt shows the user what to do.
	Prompt func(Prompt) error
	// Sleep waits d, or until ctx ends; nil is a real wait. Tests record
	// the intervals instead of waiting them out.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (f Flow) sleep(ctx context.Context, d time.Duration) error {
	if f.Sleep != nil {
		return f.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RFC 8628: the default polling interval, and what slow_down adds to it.
const (
	defaultInterval = 5 * time.Second
	slowDownStep    = 5 * time.Second
	maxInterval     = time.Minute
)

type deviceAuthorization struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	// Google spells it verification_url.
	VerificationURL string `json:"verification_url"`
	ExpiresIn       int64  `json:"expires_in"`
	Interval        int64  `json:"interval"`
}

type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

// Device signs in with the device authorization grant (RFC 8628): it asks
// the provider for a code, shows its verification URL (only when on the
// issuer's host) and code, and polls the token endpoint at the interval
// the provider asks for, 5 s slower at each slow_down, until the user
// approves (tokens), denies (ErrDenied) or the code expires (ErrExpired).
func (p *Provider) Device(ctx context.Context, f Flow) (*Tokens, error) {
	if !p.HasDeviceFlow() {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: errors.New("it has no device authorization endpoint")}
	}
	start := p.now()
	var da deviceAuthorization
	if e, err := p.post(ctx, p.endpoint.DeviceAuthURL, url.Values{
		"client_id": {p.settings.ClientID}, "scope": {strings.Join(p.scopes, " ")},
	}, &da); err != nil {
		return nil, err
	} else if e != nil {
		return nil, p.refusal(e)
	}
	if da.VerificationURI == "" {
		da.VerificationURI = da.VerificationURL
	}
	if da.DeviceCode == "" || da.UserCode == "" || da.VerificationURI == "" {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: errors.New("its device authorization answered no code or verification address")}
	}
	if err := p.checkVerificationURL(da.VerificationURI); err != nil {
		return nil, err
	}
	prompt := Prompt{URL: da.VerificationURI, UserCode: da.UserCode}
	if da.VerificationURIComplete != "" {
		if err := p.checkVerificationURL(da.VerificationURIComplete); err != nil {
			return nil, err
		}
		prompt.CompleteURL = da.VerificationURIComplete
	}
	lifetime := 10 * time.Minute
	if da.ExpiresIn > 0 {
		lifetime = time.Duration(min(da.ExpiresIn, 3600)) * time.Second
	}
	prompt.Expires = start.Add(lifetime)
	interval := defaultInterval
	if da.Interval > 0 {
		interval = min(time.Duration(da.Interval)*time.Second, maxInterval)
	}
	if f.Prompt != nil {
		if err := f.Prompt(prompt); err != nil {
			return nil, err
		}
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"},
		"device_code": {da.DeviceCode}, "client_id": {p.settings.ClientID}}
	for {
		if err := f.sleep(ctx, interval); err != nil {
			return nil, err
		}
		if !p.now().Before(prompt.Expires) {
			return nil, ErrExpired
		}
		var tr tokenResponse
		e, err := p.post(ctx, p.endpoint.TokenURL, form, &tr)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return p.tokens(ctx, tr.token(p.now()), "", nil)
		}
		switch e.Code {
		case "authorization_pending":
		case "slow_down":
			// RFC 8628 §3.5: 5 s more for this and every later request.
			interval = min(interval+slowDownStep, maxInterval)
		case "expired_token":
			return nil, ErrExpired
		case "access_denied":
			return nil, ErrDenied
		default:
			return nil, p.refusal(e)
		}
	}
}

// checkVerificationURL refuses a verification URL that is not on the
// issuer's host, or not https when the issuer is.
func (p *Provider) checkVerificationURL(raw string) error {
	iss, err := url.Parse(p.settings.Issuer)
	if err != nil {
		return &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return &VerificationHostError{URLHost: raw, IssuerHost: iss.Host}
	}
	if !strings.EqualFold(u.Hostname(), iss.Hostname()) || u.User != nil || (iss.Scheme == "https" && u.Scheme != "https") {
		return &VerificationHostError{URLHost: u.Host, IssuerHost: iss.Host}
	}
	return nil
}

func (p *Provider) refusal(e *oauthError) error {
	msg := e.Code
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return &ProviderError{Issuer: p.settings.Issuer, Err: fmt.Errorf("refused: %s", msg)}
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	IDToken      string `json:"id_token"`
	ExpiresIn    int64  `json:"expires_in"`
}

func (r tokenResponse) token(now time.Time) *oauth2.Token {
	t := &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken}
	if r.ExpiresIn > 0 {
		t.Expiry = now.Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	return t.WithExtra(map[string]any{"id_token": r.IDToken})
}

// post sends a form to an endpoint of the provider: out is filled on 200,
// the OAuth error is returned on 400 and 401, anything else is an error.
func (p *Provider) post(ctx context.Context, endpoint string, form url.Values, out any) (*oauthError, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, &ProviderError{Issuer: p.settings.Issuer, Err: err}
	}
	switch resp.StatusCode {
	case http.StatusOK:
		if err := json.Unmarshal(body, out); err != nil {
			return nil, &ProviderError{Issuer: p.settings.Issuer, Err: fmt.Errorf("%s answered what is not JSON", endpoint)}
		}
		return nil, nil
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden:
		var e oauthError
		if json.Unmarshal(body, &e) == nil && e.Code != "" {
			return &e, nil
		}
	}
	return nil, &ProviderError{Issuer: p.settings.Issuer, Err: fmt.Errorf("%s answered %s", endpoint, resp.Status)}
}
