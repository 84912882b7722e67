package server

import (
	"log/slog"
	"net/http"

	"manent.dev/manent/config"
	"manent.dev/manent/engine/secrets"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/notify/chat"
	"manent.dev/manent/service"
)

// newChat builds the chat notifier of notifications.chat (nil without
// targets) and the handler of its Slack app's buttons (nil then too). The
// engine's pipeline of events takes the notifier (engine.UseChat).
// Secrets are read through the providers of every other reference of
// manent.yml, at each use.
func newChat(cfg *config.Config, dev bool, svc *service.Service, store *postgres.Store, log *slog.Logger) (*chat.Notifier, http.Handler) {
	env, file := secretProviders(cfg)
	resolver := secrets.Resolver{"env": env, "file": file}
	n := chat.New(cfg, chat.Options{Resolve: resolver.Resolve, PublicURL: cfg.Server.PublicURL, Dev: dev})
	if n == nil {
		return nil, nil
	}
	return n, n.Actions(svc, store, log.With("component", "chat"))
}
