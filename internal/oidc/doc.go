// Package oidc turns the JWTs of the OpenID Connect provider of
// auth.oidc into identities (oidc:<user> with the groups of the groups
// claim), and holds what the sign-in flows need of the provider: its
// discovery, its OAuth 2.0 endpoints and the verifier.
//
// It imports deploy, config, go-oidc, go-jose, x/oauth2 and the standard
// library.
package oidc
