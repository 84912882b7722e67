// Package client is the typed GraphQL client of manent's API: queries and
// mutations over HTTP, subscriptions over graphql-transport-ws, and the
// transport and API errors mapped to UnreachableError and APIError.
//
// It may import deploy, genqlient, gqlparser (its error type), gorilla/websocket
// and the standard library.
package client

//go:generate go run github.com/Khan/genqlient genqlient.yaml
