package server

import (
	"context"
	"fmt"
	"log/slog"

	"manent.dev/manent/config"
	"manent.dev/manent/deploy"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/itsm"
)

// changeConnector adapts an ITSM connector to the domain's interface.
type changeConnector struct{ c *itsm.Connector }

func (a changeConnector) Open(ctx context.Context, ch deploy.ChangeRequest) (deploy.ChangeTicket, error) {
	t, err := a.c.Open(ctx, itsm.Change{DeploymentID: ch.DeploymentID, Application: ch.Application,
		Environment: ch.Environment, Version: ch.Version, Requester: ch.Requester, Description: ch.Description})
	if err != nil {
		return deploy.ChangeTicket{}, err
	}
	return deploy.ChangeTicket{ID: t.ID, Number: t.Number}, nil
}

func (a changeConnector) Status(ctx context.Context, ticketID string) (deploy.ChangeState, error) {
	s, err := a.c.Status(ctx, ticketID)
	return deploy.ChangeState(s), err
}

func (a changeConnector) Close(ctx context.Context, deploymentID, ticketID, outcome string) error {
	return a.c.Close(ctx, deploymentID, ticketID, outcome)
}

// newChangeConnectors builds the ITSM connectors of governance.connectors;
// their credentials come from the secret providers.
// A credential that cannot be resolved is logged here with its reference,
// for the operator: the deploy's readers see only that it is missing.
func newChangeConnectors(cfg *config.Config, log *slog.Logger) (map[string]deploy.ChangeConnector, error) {
	resolver := secrets.Resolver{
		"env":  secrets.Env{Prefix: cfg.Secrets.EnvPrefix},
		"file": secrets.File{Root: cfg.Secrets.FileRoot},
	}
	out := map[string]deploy.ChangeConnector{}
	for name, c := range cfg.Governance.Connectors {
		resolve := func(ctx context.Context, ref string) (string, error) {
			v, err := resolver.Resolve(ctx, ref)
			if err != nil {
				log.Warn("the credential of a change connector cannot be resolved", "connector", name, "error", err)
			}
			return v, err
		}
		conn, err := itsm.New(c, resolve, nil)
		if err != nil {
			return nil, fmt.Errorf("governance.connectors.%s: %w", name, err)
		}
		out[name] = changeConnector{conn}
	}
	return out, nil
}
