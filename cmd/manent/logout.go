package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"manent.dev/manent/client"
	"manent.dev/manent/internal/oidc/login"
)

func (a *app) logoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "logout",
		Short:       "Remove the stored sign-in for the server (and revoke it at the identity provider)",
		Args:        noArgs,
		Annotations: map[string]string{annotationNoLogin: "true"},
		RunE: a.runE(func(cmd *cobra.Command, _ []string) error {
			store, err := a.loginStore()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			server := client.New(a.server, "").BaseURL()
			if _, err := store.Load(server); errors.Is(err, login.ErrNotSignedIn) {
				a.progressf("Not signed in to %s.", server)
				return nil
			}
			// Under the login's lock, as a refresh is: a command refreshing
			// at the same time would otherwise store new tokens after the
			// file is gone (a login that survives logout), or have its new
			// refresh token left unrevoked.
			unlock, err := store.Lock(server)
			if err != nil {
				return err
			}
			defer unlock()
			tok, err := store.Load(server)
			var insecure *login.InsecureFileError
			switch {
			case errors.Is(err, login.ErrNotSignedIn):
				a.progressf("Not signed in to %s.", server)
				return nil
			case errors.As(err, &insecure):
				// Removing it is the cure the refusal names: go on.
			case err != nil:
				return err
			}
			if tok != nil {
				a.revoke(ctx, tok)
			}
			if _, err := store.Remove(server); err != nil {
				return err
			}
			a.progressf("Signed out of %s.", server)
			return nil
		}),
	}
}

// revoke revokes a login at its provider, when it can: the file goes
// anyway, and tokens that could not be revoked expire by themselves.
func (a *app) revoke(ctx context.Context, tok *login.Tokens) {
	prov, err := login.Discover(ctx, login.Settings{Issuer: tok.Issuer, ClientID: tok.ClientID}, a.loginHTTP, a.loginNow)
	if err == nil {
		_, err = prov.Revoke(ctx, tok)
	}
	if err != nil {
		a.progressf("warning: could not revoke the sign-in at the identity provider (%v); its tokens expire by themselves.", err)
	}
}
