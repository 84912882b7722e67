// Package login holds the sign-in flows of manent login: the OAuth 2.0
// device authorization grant (RFC 8628) and, for providers without it, the
// authorization code flow with PKCE on a loopback callback (RFC 8252); the
// refresh of the tokens they give; and the file that keeps them, readable
// by its user alone.
//
// It imports deploy (the settings a server publishes), go-oidc, x/oauth2
// and the standard library.
package login
