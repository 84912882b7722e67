package postgres

// NewStepByStepRecorder is a Recorder whose Advance always takes the
// general path, one statement per record: the tests hold the one-statement
// path to it.
func NewStepByStepRecorder() *Recorder { return &Recorder{stepByStep: true} }

// SubmitAudit is the deployment.submit entry CreateDeployment writes, for
// the tests that check it against what AppendAudit writes.
var SubmitAudit = submitAudit
