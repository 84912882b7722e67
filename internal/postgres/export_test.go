package postgres

// NewStepByStepRecorder is a Recorder whose Advance always takes the
// general path, one statement per record: the tests hold the one-statement
// path to it.
func NewStepByStepRecorder() *Recorder { return &Recorder{stepByStep: true} }
