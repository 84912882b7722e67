package graph

import (
	"context"
	"log/slog"

	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// Resolver is the root of the GraphQL resolvers. Resolvers decode the
// request, call Service (which authorizes the identity in the context) and
// convert its answer; they hold no state of their own.
type Resolver struct {
	Service deploy.Service
	// Dora serves doraMetrics; nil answers an internal error.
	Dora   DoraReader
	Events deploy.Events
	// Hub, when set, shares the reads of the subscriptions (see Live).
	Hub    *Hub
	Logger *slog.Logger
}

func (r *Resolver) logger() *slog.Logger {
	if r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}

func (r *Resolver) live() Live {
	return Live{Service: r.Service, Events: r.Events, Hub: r.Hub, Logger: r.logger()}
}

// toModelEvents converts updates as gqlgen reads them; it closes its channel
// when updates closes, which completes the subscription.
func toModelEvents(ctx context.Context, updates <-chan Update) <-chan *model.DeploymentEvent {
	out := make(chan *model.DeploymentEvent)
	go func() {
		defer close(out)
		for u := range updates {
			m := u.model
			if m == nil {
				m = toModelDeployment(u.Deployment)
			}
			ev := &model.DeploymentEvent{Kind: u.Kind, Deployment: m, LogLines: toModelLogLines(u.Logs)}
			select {
			case out <- ev:
			case <-ctx.Done():
				// The producer stops on the same ctx; keep reading so that it
				// is never blocked on a send.
				for range updates {
				}
				return
			}
		}
	}()
	return out
}
