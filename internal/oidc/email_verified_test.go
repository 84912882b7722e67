package oidc_test

import (
	"context"
	"testing"

	"manent.dev/manent/config"
)

// With user_claim: email (what docs/oidc.md tells
// Google users to set), a token whose email the provider has not verified
// (email_verified: false: a user who typed someone else's address in their
// profile, as Keycloak's account console allows) becomes that person.
func TestUnverifiedEmailIsNoIdentity(t *testing.T) {
	iss := newIssuer(t)
	c := with(iss.claims("mallory", "viewers"), "email", "alice@example.com", "email_verified", false)
	p := provider(t, iss, func(o *config.OIDC) { o.UserClaim = "email" })
	id, err := p.Authenticate(context.Background(), iss.sign(t, c))
	if err == nil {
		t.Errorf("a token with email_verified false signed in as %s", id.Subject)
	}
}

func TestEmailClaimNeedsVerification(t *testing.T) {
	iss := newIssuer(t)
	p := provider(t, iss, func(o *config.OIDC) { o.UserClaim = "email" })
	for _, c := range []struct {
		name     string
		verified any
		ok       bool
	}{
		{"verified", true, true},
		{"not verified", false, false},
		{"verified as text", "true", false},
		{"verification absent", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			claims := with(iss.claims("alice", "viewers"), "email", "alice@example.com")
			if c.verified != nil {
				claims = with(claims, "email_verified", c.verified)
			}
			id, err := p.Authenticate(context.Background(), iss.sign(t, claims))
			if c.ok && (err != nil || id.Subject != "oidc:alice@example.com") {
				t.Fatalf("got %+v, %v; want oidc:alice@example.com", id, err)
			}
			if !c.ok && err == nil {
				t.Fatalf("signed in as %s", id.Subject)
			}
		})
	}
}

// auth.oidc.hosted_domain: only accounts of the domain (Google's hd
// claim), not a personal account nor another domain's.
func TestHostedDomain(t *testing.T) {
	iss := newIssuer(t)
	p := provider(t, iss, func(o *config.OIDC) { o.HostedDomain = "corp.example.com" })
	for _, c := range []struct {
		name string
		hd   any
		ok   bool
	}{
		{"the domain", "corp.example.com", true},
		{"the domain in capitals", "Corp.Example.com", true},
		{"another domain", "example.net", false},
		{"a personal account", nil, false},
		{"not text", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			claims := iss.claims("alice", "viewers")
			if c.hd != nil {
				claims = with(claims, "hd", c.hd)
			}
			id, err := p.Authenticate(context.Background(), iss.sign(t, claims))
			if c.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !c.ok && err == nil {
				t.Fatalf("signed in as %s", id.Subject)
			}
		})
	}
}
