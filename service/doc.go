// Package service is manent's application service (deploy.Service): every
// method authorizes the identity of its context, the submission checks run
// in the spec's order, and reads go through the read model; what must last
// (deploys, waits, releases, schedules) is handed to the engine through the
// Engine port, in the transaction that stores it.
//
// It imports deploy, chains, config, descriptor, dora, engine/rollout (the pure
// planner, which the engine shares), internal/crontick, internal/specsig and the
// standard library; never engine, internal/postgres, graph or server.
package service
