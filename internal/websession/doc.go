// Package websession holds the sessions of the web interface and its
// OpenID Connect sign-in: the authorization code flow with PKCE, state and
// nonce, kept server-side and taken back once, and the sessions in
// PostgreSQL, whose IDs the browser holds in a cookie and the database only
// as hashes.
//
// It imports deploy, internal/oidc, bun, x/oauth2 and the standard library.
package websession
