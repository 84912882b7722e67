package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// refetchAfter is the least time between two fetches of the provider's
// keys. A token under a key ID manent does not know makes it fetch them
// again (the provider rotated its keys), but no more often: a stream of
// made-up key IDs must not turn manent into a client hammering the
// provider.
const refetchAfter = 30 * time.Second

// maxJWKSBytes bounds the provider's key set.
const maxJWKSBytes = 1 << 20

// keySet is the provider's JWKS, cached. It implements go-oidc's KeySet:
// the verifier checks the claims, the key set the signature. It tells
// Verify, through the context, whether the signature held: go-oidc's
// errors do not say which check failed.
type keySet struct {
	url    string
	client *http.Client
	algs   []jose.SignatureAlgorithm
	now    func() time.Time

	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetched time.Time
}

type signatureKey struct{}

// signatureResult is where VerifySignature records its outcome.
type signatureResult struct {
	ok      bool
	payload []byte
	// unavailable is set when the keys could not be fetched: the token
	// may be good.
	unavailable error
}

var errSignature = errors.New("signature does not verify")

func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	payload, unavailable, err := k.verify(ctx, raw)
	if r, _ := ctx.Value(signatureKey{}).(*signatureResult); r != nil {
		r.ok, r.payload, r.unavailable = err == nil, payload, unavailable
	}
	return payload, err
}

// verify returns the payload of a token whose signature holds; when the
// keys could not be fetched, the error is also unavailable.
func (k *keySet) verify(ctx context.Context, raw string) (payload []byte, unavailable, err error) {
	jws, err := jose.ParseSignedCompact(raw, k.algs)
	if err != nil {
		return nil, nil, fmt.Errorf("parse jws: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, nil, errors.New("not one signature")
	}
	h := jws.Signatures[0].Header
	keys, err := k.candidates(ctx, h.KeyID)
	if err != nil {
		return nil, err, err
	}
	for _, key := range keys {
		if key.Algorithm != "" && key.Algorithm != h.Algorithm {
			continue
		}
		if payload, err := jws.Verify(key); err == nil {
			return payload, nil, nil
		}
	}
	return nil, nil, errSignature
}

// candidates are the signing keys of kid (every signing key for a token
// without kid), fetching the key set again when kid is unknown and the
// last fetch is old enough.
func (k *keySet) candidates(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	found := matching(k.keys, kid)
	if len(found) > 0 || (!k.fetched.IsZero() && k.now().Sub(k.fetched) < refetchAfter) {
		return found, nil
	}
	keys, err := k.fetch(context.WithoutCancel(ctx)) // bounded by its own timeout, not by one request
	if err != nil {
		// Try again sooner than after a fetch that worked: there may be
		// no keys at all until then.
		k.fetched = k.now().Add(retryAfter - refetchAfter)
		return nil, err
	}
	k.fetched = k.now()
	k.keys = keys
	return matching(keys, kid), nil
}

func matching(keys []jose.JSONWebKey, kid string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, key := range keys {
		if (key.Use == "" || key.Use == "sig") && (kid == "" || key.KeyID == kid) && key.Valid() && key.IsPublic() {
			out = append(out, key)
		}
	}
	return out
}

func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(ctx, httpTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch the provider's keys: %w", err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the provider's keys: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch the provider's keys: %s", resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJWKSBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("read the provider's keys: %w", err)
	}
	return set.Keys, nil
}
