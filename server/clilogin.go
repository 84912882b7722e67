package server

import (
	"net/http"

	"manent.dev/manent/deploy"
)

// loginSettings handles GET /api/v1/auth/oidc: how manent login signs in
// (the issuer, the CLI's public client, scopes, audiences). It needs no
// token, as the CLI asks before it has one, and tells nothing secret.
// NOT_FOUND when the server has no auth.oidc.
func (a *api) loginSettings(w http.ResponseWriter, r *http.Request) {
	c, _ := a.auth.(credentials)
	if c.oidc == nil {
		writeError(w, r, a.log, deploy.Errorf(deploy.ENOTFOUND,
			"this server has no single sign-on (auth.oidc in manent.yml): use a token (MANENT_TOKEN)"))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, c.oidc.LoginSettings(r.Context()))
}
