// Package gates checks a rollout's health gates after a wave's bake: an
// HTTP gate calls every target of the wave, a Prometheus gate runs an
// instant query and holds its value to bounds. Every check ends in exactly
// one of pass, fail, inconclusive and no_data, never in an error, and
// Decide turns a wave's results into what the rollout does next.
//
// It may import deploy, internal/safehttp, internal/urltemplate and the
// standard library; never DBOS: a gate checks, the engine records.
package gates
