// Package graph is manent's GraphQL API: the gqlgen resolvers beside the
// schema (graph/schema), the converters from the domain to the GraphQL
// models, the one error presenter, the live follow loops shared with the SSE
// stream and the hub that fans each change out to them with one read, and
// the configured gqlgen handler.
//
// It may import deploy, dora, graph/generated, graph/model, gqlgen, gqlparser,
// gorilla/websocket and the standard library; never engine, server or
// internal/*.
package graph
