// Package devoidc is the OpenID Connect provider of manent-server dev and
// of the tests: in process, on loopback, in memory, with the demo's users
// and a signing key made at start. It serves authorization code with PKCE,
// the device authorization grant and refresh tokens, through zitadel's op
// package. Never a production provider.
//
// It imports zitadel/oidc, go-jose and the standard library.
package devoidc
