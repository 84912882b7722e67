// Package custom is the kinds of the custom steps of manent.yml: http, a
// request sent from the worker, and command, a command run on the targets
// over SSH. Both run the specification the plan captured, verified before
// every attempt, with the placeholders filled for their context, only the
// secrets of the run (or of the dry run), every line they log masked, and
// an audit entry step.custom.run for every operation.
//
// It may import deploy, config, engine/steps, engine/secrets,
// internal/jsonpath, internal/mask, internal/placeholder,
// internal/safehttp, internal/sshcommand, internal/sshexec and the
// standard library; never DBOS: a kind acts, the engine records.
package custom
