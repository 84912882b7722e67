// Package rollout is the pure rollout planner: a deploy's targets and its
// rollout in, every target's outcome (targeted, excluded, rejected) and the
// passes and batches out. No I/O and no clock: the submission, validate
// and the engine's config step plan the same input to the same plan.
//
// It imports deploy and the standard library.
package rollout
