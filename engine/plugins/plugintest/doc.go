// Package plugintest is the conformance suite of deploy.Plugin: every plugin
// runs it, through a Harness over real targets, to prove that its deploy,
// activation, checkpoints and rollbacks are idempotent and survive the
// death of the process between any two of them.
//
// It imports deploy, the standard library and testing; only tests import it.
package plugintest
