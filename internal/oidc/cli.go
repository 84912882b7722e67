package oidc

import (
	"context"
	"manent.dev/manent/deploy"
)

// LoginSettings are what manent login needs of auth.oidc: the issuer, the
// public client of the CLI, the scopes and the audiences bearer tokens may
// carry. Nothing secret. DeviceAuthorization is read from the provider's
// discovery document when it answers (false while it does not: the CLI
// reads the document itself anyway).
func (p *Provider) LoginSettings(ctx context.Context) deploy.LoginSettings {
	s := deploy.LoginSettings{Issuer: p.cfg.Issuer, Name: p.cfg.Name, ClientID: p.cfg.CLIClient(),
		Scopes: p.cfg.RequestedScopes(), Audiences: p.cfg.AllowedAudiences()}
	if ep, err := p.Endpoint(ctx); err == nil {
		s.DeviceAuthorization = ep.DeviceAuthURL != ""
	}
	return s
}
