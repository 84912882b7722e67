package engine

import (
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// RetentionResult waits for the retention workflow of day to end and
// returns its result (for the tests of engine_test).
func (e *Engine) RetentionResult(day time.Time) (string, error) {
	h, err := dbos.RetrieveWorkflow[string](e.dbos, retentionWorkflowID(day))
	if err != nil {
		return "", err
	}
	return h.GetResult()
}

// RetentionWorkflowExists reports whether the retention workflow of day was
// enqueued.
func (e *Engine) RetentionWorkflowExists(day time.Time) (bool, error) {
	ws, err := dbos.ListWorkflows(e.dbos, dbos.WithFilterWorkflowIDs(retentionWorkflowID(day)))
	return len(ws) == 1, err
}
