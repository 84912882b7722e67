// Package engine holds manent's durable side, as DBOS workflows and steps:
// the deploy (its pipeline, checkpoints and automatic rollback), the wait
// before its queue (dependencies, time, approvals, change ticket), composite
// releases, recurring schedules, and the takeover of dead workers. It
// implements the service's port (enqueue, wake, cancel) and calls the
// service back through Checks; the kinds of steps live in engine/steps.
//
// It may import deploy, chains, config, engine/steps, engine/custom, engine/gates, engine/plugins,
// engine/secrets, internal/dberr, internal/pgxquerier, internal/crontick, internal/safehttp, internal/specsig, internal/sshexec, DBOS,
// pgx and the standard library; never service, server, graph or
// internal/postgres.
package engine
