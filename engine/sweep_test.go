package engine_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
)

// delayedFor is a deploy that waits for its time an hour away: a
// dependency that ends only when the test ends it.
func delayedFor(id string) string {
	at := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	return descriptorFor(id, "app", "prod") + fmt.Sprintf("schedule: {at: %q}\n", at)
}

// until waits for cond, looking every 20 ms, for at most a minute.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within a minute", what)
		}
	}
}

// stepsNamed counts the steps named name that DBOS recorded for a workflow.
func stepsNamed(t *testing.T, db *sql.DB, workflowID, name string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM dbos.operation_outputs
		WHERE workflow_uuid = $1 AND function_name = $2`, workflowID, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sweepsAfter returns once the engine has swept n more times: at least n-1
// sweeps began after the call.
func sweepsAfter(t *testing.T, e *env, n int64) {
	t.Helper()
	target := e.eng.Sweeps() + n
	until(t, fmt.Sprintf("%d sweeps", n), func() bool { return e.eng.Sweeps() >= target })
}

// TestSweeperWakesTheWaitsNoSendWoke: a wait for dependencies sleeps until
// a Send wakes it, and does not look on its own. When its dependencies end
// without that Send (it was lost in a crash: here they end in the
// database, or through the store alone, as the process that ended them
// would have before it died), the sweeper wakes it: a dependency that
// succeeded lets the deploy go, one cancelled or removed (as retention
// removes the deploys that ended) ends it DEPENDENCY_FAILED. A wait with a dependency still active is not
// woken, and no wait reads its dependencies again until then, however
// many sweeps pass.
func TestSweeperWakesTheWaitsNoSendWoke(t *testing.T) {
	e := newEnvWith(t, envOptions{engineYAML: "chains: {poll_interval: 100ms}"})
	db := openSQL(t, e.url)
	children := map[string][]string{
		"succeeds": {"dep-ok"}, "cancelled": {"dep-cancelled"}, "removed": {"dep-removed"},
		"partly": {"dep-first", "dep-second"},
	}
	for _, deps := range children {
		for _, dep := range deps {
			e.submitText(delayedFor(dep))
		}
	}
	for child, deps := range children {
		e.submitText(withAfter(descriptorFor(child, "app", "staging"), deps...))
	}
	for child := range children {
		// Blocked in its Recv: DBOS recorded its timer.
		until(t, child+" waits", func() bool { return stepsNamed(t, db, child+":wait", "DBOS.sleep") == 1 })
	}
	sweepsAfter(t, e, 3)
	for child := range children {
		if n := stepsNamed(t, db, child+":wait", engine.StepAfterEvaluate); n != 1 {
			t.Errorf("%s read its dependencies %d times while they all waited, want once", child, n)
		}
	}

	succeed := func(id string) {
		t.Helper()
		// The lifecycle's own path, in one transaction, with no wake-up.
		tx, err := db.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		for _, state := range []deploy.State{deploy.StateEnqueued, deploy.StatePending, deploy.StateSuccess} {
			if _, err := tx.ExecContext(t.Context(), `UPDATE manent.deployments SET state = $1, finished_at = now() WHERE id = $2`,
				state, id); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	succeed("dep-ok")
	succeed("dep-first")
	// The store's cancel alone: the engine's follow-up, which wakes the
	// dependents, never ran.
	if _, err := e.store.RequestCancel(e.ctx, "dep-cancelled", "token:ci"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `DELETE FROM manent.deployments WHERE id = 'dep-removed'`); err != nil {
		t.Fatal(err)
	}
	e.waitState("succeeds", deploy.StateSuccess)
	for child, want := range map[string]string{"cancelled": "dep-cancelled ended CANCELLED", "removed": "dep-removed no longer exists"} {
		if d := e.waitState(child, deploy.StateDependencyFailed); !strings.Contains(d.Error, want) {
			t.Errorf("%s: error %q, want %q", child, d.Error, want)
		}
	}

	sweepsAfter(t, e, 3)
	if n := stepsNamed(t, db, "partly:wait", engine.StepAfterEvaluate); n != 1 {
		t.Errorf("partly was woken %d times while dep-second waited, want never", n-1)
	}
	succeed("dep-second")
	e.waitState("partly", deploy.StateSuccess)
}

// TestCancelWakesTheWaitWithItsCommit: a deploy cancelled while it waits
// for its approvals has its wait woken by the cancel's own transaction:
// even when the engine's follow-up never runs (the store's cancel alone,
// as when the process dies right after it), the wait ends at once rather
// than when the approvals expire.
func TestCancelWakesTheWaitWithItsCommit(t *testing.T) {
	e := newEnvWith(t, envOptions{governor: prodNeeds(1, time.Hour)})
	db := openSQL(t, e.url)
	e.submit("lonely", "app", "prod")
	until(t, "lonely waits", func() bool { return stepsNamed(t, db, "lonely:wait", "DBOS.sleep") == 1 })
	if _, err := e.store.RequestCancel(e.ctx, "lonely", "token:ci"); err != nil {
		t.Fatal(err)
	}
	e.waitWorkflowEnded("lonely:wait")
}
