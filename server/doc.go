// Package server is manent-server's composition root: Main wires the
// configuration, PostgreSQL, the events fan-out, authentication, the
// authorizer and the engine, and serves /graphql, the REST API with its SSE
// stream, health checks and the web interface. It holds no SQL and no
// business rules.
//
// It may import the standard library, gqlgen and every package of manent
// except cmd and e2e; only cmd/manent-server imports it.
package server
