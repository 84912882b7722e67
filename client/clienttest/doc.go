// Package clienttest is a tiny GraphQL server for tests of code built on
// package client: it answers queries and mutations by operation name over
// HTTP, and subscriptions over graphql-transport-ws, from functions the test
// gives. It is a test double of the network peer, not of the client.
//
// It may import gorilla/websocket and the standard library; never client:
// client's own tests use it.
package clienttest
