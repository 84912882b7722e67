package tokens

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
)

// Authenticator implements deploy.Authenticator for auth.tokens.
type Authenticator struct {
	entries []entry
}

type entry struct {
	sum [sha256.Size]byte
	id  deploy.Identity
}

var _ deploy.Authenticator = (*Authenticator)(nil)

// New returns an authenticator for the configured tokens. Entries whose hash
// is not 64 hex digits are skipped (config.Parse refuses them already), so
// they can never match.
func New(tokens []config.Token) *Authenticator {
	a := &Authenticator{}
	for _, t := range tokens {
		raw, err := hex.DecodeString(t.SHA256)
		if err != nil || len(raw) != sha256.Size {
			continue
		}
		e := entry{id: deploy.Identity{Subject: "token:" + t.Name, Groups: slices.Clone(t.Groups)}}
		copy(e.sum[:], raw)
		a.entries = append(a.entries, e)
	}
	return a
}

// Authenticate returns the identity of the token, or EUNAUTHENTICATED. Every
// configured hash is compared in constant time, without stopping at a
// match, so the time taken says nothing about which token is close.
func (a *Authenticator) Authenticate(_ context.Context, token string) (deploy.Identity, error) {
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range a.entries {
		if subtle.ConstantTimeCompare(sum[:], a.entries[i].sum[:]) == 1 {
			match = i
		}
	}
	if token == "" || match < 0 {
		return deploy.Identity{}, deploy.Errorf(deploy.EUNAUTHENTICATED, "invalid token")
	}
	id := a.entries[match].id
	id.Groups = slices.Clone(id.Groups)
	return id, nil
}

// Sum is the hex SHA-256 of a token, as auth.tokens stores it: what a
// session opened with the token keeps of it.
func Sum(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// BySum returns the identity of the token whose hex SHA-256 is sum, as
// auth.tokens lists it now: a session opened with a token ends when the
// token is removed or rotated, and follows a change of its groups.
func (a *Authenticator) BySum(sum string) (deploy.Identity, bool) {
	raw, err := hex.DecodeString(sum)
	if err != nil || len(raw) != sha256.Size {
		return deploy.Identity{}, false
	}
	for i := range a.entries {
		if subtle.ConstantTimeCompare(raw, a.entries[i].sum[:]) == 1 {
			id := a.entries[i].id
			id.Groups = slices.Clone(id.Groups)
			return id, true
		}
	}
	return deploy.Identity{}, false
}
