package engine

// Sweeps counts the sweeps of the waits for dependencies this engine has
// done (for the tests of engine_test).
func (e *Engine) Sweeps() int64 { return e.sweeps.Load() }

// StepAfterEvaluate is the step in which a wait reads its dependencies.
const StepAfterEvaluate = stepAfterEvaluate

// StartMargin is how long before its time a wait for its time starts.
const StartMargin = startMargin
