package graph

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"manent.dev/manent/graph/generated"
)

// Limits of one GraphQL operation. The largest query of the schema (a page
// of deploys with their steps and effective targets) has depth 6.
const (
	DefaultComplexityLimit = 500
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
	CheckOrigin        func(r *http.Request) bool
	AllowIntrospection bool
	// Zero means the default limit.
	ComplexityLimit, DepthLimit, TokenLimit int
	Logger                                  *slog.Logger
}

// NewHandler returns the GraphQL endpoint configured explicitly (DESIGN.md
// §5): POST and graphql-transport-ws (gorilla) transports, depth,
// complexity and token limits, introspection only when allowed, and the
// recover func and error presenter of this package.
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
	srv.SetParserTokenLimit(orDefault(o.TokenLimit, DefaultTokenLimit))
	if o.AllowIntrospection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.FixedComplexityLimit(orDefault(o.ComplexityLimit, DefaultComplexityLimit)))
	srv.Use(DepthLimit(orDefault(o.DepthLimit, DefaultDepthLimit)))
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

// DepthLimit refuses operations whose fields nest deeper than limit.
// Introspection fields are not counted: introspection is allowed or not as a
// whole, and its standard query is deep.
func DepthLimit(limit int) graphql.HandlerExtension { return depthLimit{limit: limit} }

type depthLimit struct{ limit int }

var _ graphql.OperationContextMutator = depthLimit{}

func (depthLimit) ExtensionName() string                          { return "DepthLimit" }
func (depthLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	if depth := selectionDepth(op.SelectionSet, opCtx.Doc.Fragments, d.limit+1); depth > d.limit {
		err := gqlerror.Errorf("operation exceeds the depth limit of %d", d.limit)
		errcode.Set(err, "DEPTH_LIMIT_EXCEEDED")
		return err
	}
	return nil
}

// selectionDepth returns the depth of set, stopping once it passes stop (so
// that a pathological document costs no more than the limit).
func selectionDepth(set ast.SelectionSet, fragments ast.FragmentDefinitionList, stop int) int {
	if stop <= 0 {
		return 0
	}
	deepest := 0
	for _, sel := range set {
		var depth int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			depth = 1 + selectionDepth(s.SelectionSet, fragments, stop-1)
		case *ast.InlineFragment:
			depth = selectionDepth(s.SelectionSet, fragments, stop)
		case *ast.FragmentSpread:
			def := s.Definition
			if def == nil {
				def = fragments.ForName(s.Name)
			}
			if def != nil {
				depth = selectionDepth(def.SelectionSet, fragments, stop)
			}
		}
		deepest = max(deepest, depth)
	}
	return deepest
}
