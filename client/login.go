package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"manent.dev/manent/deploy"
)

// BaseURL is the server's address without the /graphql path: what a
// stored login is keyed by.
func (c *Client) BaseURL() string {
	return strings.TrimSuffix(strings.TrimSuffix(c.endpoint, "/graphql"), "/")
}

// LoginSettings asks the server how manent login signs in
// (GET /api/v1/auth/oidc, without a token). NOT_FOUND when the server has
// no single sign-on.
func (c *Client) LoginSettings(ctx context.Context) (*deploy.LoginSettings, error) {
	if c.addrErr != nil {
		return nil, c.addrErr
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL()+deploy.LoginSettingsPath, nil)
	if err != nil {
		return nil, fmt.Errorf("request to %s: %w", c.server, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	// Not c.httpClient's authenticated transport: this request carries no
	// token, whatever the client holds.
	hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if c.httpClient != nil && c.httpClient.Transport != nil {
		hc.Transport = c.httpClient.Transport
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, c.mapError(ctx, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, c.mapError(ctx, err)
	}
	if resp.StatusCode == http.StatusOK {
		var s deploy.LoginSettings
		if err := json.Unmarshal(body, &s); err != nil {
			return nil, fmt.Errorf("server at %s answered single sign-on settings that are not JSON", c.server)
		}
		return &s, nil
	}
	var rest struct {
		Error struct {
			Code    deploy.Code `json:"code"`
			Message string      `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &rest) == nil && rest.Error.Code != "" {
		return nil, &APIError{Code: rest.Error.Code, Message: rest.Error.Message}
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, &APIError{Code: deploy.ENOTFOUND, Message: "this server has no single sign-on: use a token (MANENT_TOKEN)"}
	}
	return nil, c.httpStatusError(resp.StatusCode, nil)
}
