package graph

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"

	"manent.dev/manent/graph/generated"
)

// Limits of one GraphQL operation (limits.go). The largest operations of
// the CLI and the web interface have about 220 fields, depth 7 and
// complexity about 42,000 (the inbox: up to 500 deploys awaiting approval,
// each with its approval context; a page of 50 releases, each counted with
// its 100 deploys at most); the standard introspection query of GraphQL
// tools has depth 6 and about 220 fields.
const (
	DefaultComplexityLimit = 50000
	DefaultFieldLimit      = 500
	DefaultDepthLimit      = 12
	DefaultTokenLimit      = 15000
)

// HandlerOptions configures the GraphQL endpoint. Authentication is the
// caller's: an HTTP middleware for POST, InitFunc for websockets.
type HandlerOptions struct {
	Resolver *Resolver
	// InitFunc authenticates a websocket in connection_init.
	InitFunc transport.WebsocketInitFunc
	// CheckOrigin accepts or refuses the Origin of a websocket upgrade.
	CheckOrigin func(r *http.Request) bool
	// MayIntrospect reports whether the caller may read the schema
	// (Administrators, Everyone); nil allows no one.
	MayIntrospect func(ctx context.Context) bool
	// Zero means the default limit.
	ComplexityLimit, FieldLimit, DepthLimit, TokenLimit int
	Logger                                              *slog.Logger
}

// NewHandler returns the GraphQL endpoint configured explicitly (DESIGN.md
// §5): POST and graphql-transport-ws (gorilla) transports, depth,
// complexity and token limits that cover introspection too, introspection
// only for the callers allowed, and the recover func and error presenter of
// this package.
func NewHandler(o HandlerOptions) *handler.Server {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	srv := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: o.Resolver}))
	srv.AddTransport(transport.Websocket{
		Implementation: gorillaWebsocket{upgrader: websocket.Upgrader{
			CheckOrigin:     o.CheckOrigin,
			ReadBufferSize:  4096,
			WriteBufferSize: 4096,
			// gqlgen answers a failed upgrade itself.
			Error: func(http.ResponseWriter, *http.Request, int, error) {},
		}},
		InitFunc:              o.InitFunc,
		InitTimeout:           10 * time.Second,
		KeepAlivePingInterval: 15 * time.Second,
		// No PingPongInterval: a server ping carries no subscription ID and
		// genqlient's websocket client (the CLI) treats that as an error.
	})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	tokens, fields := orDefault(o.TokenLimit, DefaultTokenLimit), orDefault(o.FieldLimit, DefaultFieldLimit)
	srv.SetParserTokenLimit(tokens)
	// In this order: an oversized operation is refused as such, whoever
	// sends it and whatever it asks for (FieldLimit before validation, the
	// others after it).
	srv.Use(FieldLimit(fields, tokens))
	srv.Use(ComplexityLimit(orDefault(o.ComplexityLimit, DefaultComplexityLimit), fields))
	srv.Use(DepthLimit(orDefault(o.DepthLimit, DefaultDepthLimit)))
	srv.Use(Introspection(o.MayIntrospect))
	srv.AroundResponses(Memoize)
	srv.AroundFields(markResolverErrors)
	srv.SetErrorPresenter(ErrorPresenter(log))
	srv.SetRecoverFunc(Recover(log))
	return srv
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
