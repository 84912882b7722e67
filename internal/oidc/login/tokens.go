package login

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Tokens are what a sign-in gave, for one manent server.
type Tokens struct {
	// Server is the manent server they are for, as the CLI names it.
	Server   string `json:"server"`
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
	// Audiences are those the server accepts (Settings.Audiences).
	Audiences         []string  `json:"audiences,omitempty"`
	AccessToken       string    `json:"access_token"`
	AccessTokenExpiry time.Time `json:"access_token_expiry"`
	RefreshToken      string    `json:"refresh_token,omitempty"`
	IDToken           string    `json:"id_token,omitempty"`
	IDTokenExpiry     time.Time `json:"id_token_expiry"`
}

// sendsAccessToken reports whether the access token is what the server
// takes: a JWT of the issuer for one of the audiences it accepts. Many
// providers' access tokens are opaque, or for another API (Entra's are
// for Microsoft Graph unless an API scope is asked for); the ID token,
// whose audience is the client, is sent then.
func (t *Tokens) sendsAccessToken() bool {
	if t.IDToken == "" {
		return true
	}
	claims, ok := unverifiedClaims(t.AccessToken)
	if !ok || claims.Issuer != t.Issuer {
		return false
	}
	for _, a := range claims.Audience {
		if slices.Contains(t.Audiences, a) {
			return true
		}
	}
	return false
}

// Bearer is the token the CLI sends to the server.
func (t *Tokens) Bearer() string {
	if t.sendsAccessToken() {
		return t.AccessToken
	}
	return t.IDToken
}

// BearerExpiry is when Bearer expires.
func (t *Tokens) BearerExpiry() time.Time {
	if t.sendsAccessToken() {
		return t.AccessTokenExpiry
	}
	return t.IDTokenExpiry
}

// NeedsRefresh reports whether Bearer has expired at now or is about to.
func (t *Tokens) NeedsRefresh(now time.Time) bool {
	return !now.Add(leeway).Before(t.BearerExpiry())
}

type jwtClaims struct {
	Issuer   string   `json:"iss"`
	Audience audience `json:"aud"`
}

// audience is aud, a string or a list of them.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

// unverifiedClaims reads a JWT's claims without checking its signature:
// enough to choose which token to send, which the server verifies.
func unverifiedClaims(raw string) (jwtClaims, bool) {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return jwtClaims{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return jwtClaims{}, false
	}
	var c jwtClaims
	if json.Unmarshal(b, &c) != nil {
		return jwtClaims{}, false
	}
	return c, true
}
