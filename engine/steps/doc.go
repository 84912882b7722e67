// Package steps is the registry of step kinds: what one operation of a
// planned step does when it runs, when it dry-runs, and, for kinds that can
// be undone, the checkpoint taken before it and its compensation. The
// standard steps (config, secrets, artifacts, qa, deploy, post-test,
// activation, cleanup) register here; custom steps and rollout batches add
// their kinds without touching the workflow that runs them.
//
// It may import deploy, config, engine/plugins/local (the archive check),
// engine/secrets, internal/mask (which secrets can be masked),
// internal/safehttp, internal/specsig, internal/urltemplate and the
// standard library; never DBOS: a kind acts, the engine records.
package steps
