package login

import (
	"errors"
	"fmt"
)

// The outcomes of a sign-in that the user must act on.
var (
	// ErrExpired is a device code that expired before the user approved it.
	ErrExpired = errors.New("the sign-in code expired before it was approved: run manent login again")
	// ErrDenied is a sign-in the user (or the provider) refused.
	ErrDenied = errors.New("the sign-in was denied at the identity provider")
	// ErrSignInAgain is a login whose refresh token the provider no
	// longer takes (expired, revoked, already spent).
	ErrSignInAgain = errors.New("the stored sign-in has expired or was revoked: run manent login again")
	// ErrNotSignedIn is a server without a stored login.
	ErrNotSignedIn = errors.New("not signed in")
)

// ProviderError is a provider that could not be reached or answered what
// a provider should not.
type ProviderError struct {
	Issuer string
	Err    error
}

func (e *ProviderError) Error() string {
	return fmt.Sprintf("identity provider %s: %v", e.Issuer, e.Err)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// VerificationHostError is a device authorization whose verification URL
// is not on the issuer's host: a server or endpoint that is not the
// provider's could send the user to a look-alike page to phish the
// password, so it is never shown.
type VerificationHostError struct {
	URLHost, IssuerHost string
}

func (e *VerificationHostError) Error() string {
	return fmt.Sprintf("refused: the verification address the identity provider sent is on %q, not on the issuer's host %s "+
		"(a look-alike page could steal your password); ask your administrator, or try manent login --flow code",
		e.URLHost, e.IssuerHost)
}

// InsecureIssuerError is an issuer that is neither https nor on a
// loopback host: tokens and passwords would cross a network in the clear.
type InsecureIssuerError struct {
	Issuer string
}

func (e *InsecureIssuerError) Error() string {
	return fmt.Sprintf("refused: the identity provider the server names, %s, is not https "+
		"(only a provider on this machine may use http): its tokens would cross the network in the clear", e.Issuer)
}
