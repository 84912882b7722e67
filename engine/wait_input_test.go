package engine_test

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
)

// waitInputOf reads the input DBOS keeps for the workflow id, decoded.
func waitInputOf(t *testing.T, db *sql.DB, id string) (map[string]json.RawMessage, []byte) {
	t.Helper()
	var enc string
	if err := db.QueryRowContext(t.Context(), "SELECT inputs FROM dbos.workflow_input WHERE workflow_uuid = $1", id).Scan(&enc); err != nil {
		t.Fatalf("input of %s: %v", id, err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	return in, raw
}

func writeWaitInput(t *testing.T, db *sql.DB, id string, in any) {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE dbos.workflow_input SET inputs = $1 WHERE workflow_uuid = $2",
		base64.StdEncoding.EncodeToString(raw), id); err != nil {
		t.Fatal(err)
	}
}

// TestWaitEnqueuedByAnEarlierVersionResumes: a wait's input is the deploy's
// ID and what it waits for, not the deploy. A wait that an earlier version
// enqueued carries the whole job instead; the workers of this version run
// it from that input, and resume it after a restart (its recorded steps
// replayed against it), and it lets go the job it carries: the deploy
// runs, once, with that job.
func TestWaitEnqueuedByAnEarlierVersionResumes(t *testing.T) {
	gov := prodNeeds(1, time.Hour)
	submitter := newEnvWith(t, envOptions{governor: gov, noWorker: true, executorID: "api"})
	db := openSQL(t, submitter.url)
	submitter.submit("legacy", "app", "prod")
	in, raw := waitInputOf(t, db, "legacy:wait")
	if keys := slices.Sorted(maps.Keys(in)); !slices.Equal(keys, []string{"id", "wait"}) || string(in["id"]) != `"legacy"` {
		t.Errorf("the wait's input holds %v (id %s), want the deploy's ID and its wait", keys, in["id"])
	}
	if len(raw) > 512 {
		t.Errorf("the wait's input is %d bytes: %s", len(raw), raw)
	}

	// The earlier form: the job under "deploy", no ID of its own. Its
	// groups tell which job the deploy runs with.
	job, err := submitter.store.Job(submitter.ctx, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	job.RequesterGroups = []string{"from-the-input"}
	writeWaitInput(t, db, "legacy:wait", map[string]any{"deploy": job, "wait": in["wait"]})

	first := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, governor: gov, executorID: "worker"})
	until(t, "the wait blocks", func() bool { return stepsNamed(t, db, "legacy:wait", "DBOS.sleep") == 1 })
	_ = first.eng.Shutdown(5 * time.Second)
	second := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, governor: gov, executorID: "worker",
		plugin: first.plugin})
	if _, err := second.eng.Approve(as(second, "token:ops1"), "legacy", "ok"); err != nil {
		t.Fatal(err)
	}
	second.waitState("legacy", deploy.StateSuccess)
	if j := dbosJob(t, db, "legacy"); !slices.Equal(j.RequesterGroups, job.RequesterGroups) {
		t.Errorf("the deploy ran with groups %v, want those of the job its wait carried", j.RequesterGroups)
	}
	if n := second.plugin.callCount("legacy"); n != 1 {
		t.Errorf("legacy ran %d times, want once", n)
	}
}

// workflowStatus is the status DBOS records for a workflow.
func workflowStatus(t *testing.T, db *sql.DB, id string) string {
	t.Helper()
	var status string
	if err := db.QueryRowContext(t.Context(), "SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", id).Scan(&status); err != nil {
		t.Fatalf("status of %s: %v", id, err)
	}
	return status
}

// TestAWaitForItsTimeStartsShortlyBeforeIt: a deploy whose wait begins
// with its time holds no running workflow until shortly before it (its
// wait is DELAYED in DBOS), then runs at its time, not before; one
// cancelled meanwhile has its wait taken off the queue.
func TestAWaitForItsTimeStartsShortlyBeforeIt(t *testing.T) {
	e := newEnv(t)
	db := openSQL(t, e.url)
	at := time.Now().UTC().Add(engine.StartMargin + 3*time.Second)
	for _, id := range []string{"on-time", "called-off"} {
		e.submitText(descriptorFor(id, "app", "staging") + fmt.Sprintf("schedule: {at: %q}\n", at.Format(time.RFC3339Nano)))
		if s := workflowStatus(t, db, id+":wait"); s != "DELAYED" {
			t.Errorf("the wait of %s is %s at first, want DELAYED", id, s)
		}
	}
	if _, err := e.eng.Cancel(e.ctx, "called-off"); err != nil {
		t.Fatal(err)
	}
	if s := workflowStatus(t, db, "called-off:wait"); s != "CANCELLED" {
		t.Errorf("the wait of a cancelled deploy is %s, want CANCELLED", s)
	}
	d := e.waitState("on-time", deploy.StateSuccess)
	if d.StartedAt == nil || d.StartedAt.Before(at) {
		t.Errorf("started at %v, before its time %s", d.StartedAt, at)
	}
}
