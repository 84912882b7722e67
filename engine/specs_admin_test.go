package engine_test

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/engine"
)

// alterEmbeddedJob rewrites the job that the input of the workflow id holds
// under key (the deploy of a wait, the template of a schedule), as whoever
// can write to the database could.
func alterEmbeddedJob(t *testing.T, db *sql.DB, id, key string, change func(*deploy.Job)) {
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
	var j deploy.Job
	if err := json.Unmarshal(in[key], &j); err != nil {
		t.Fatal(err)
	}
	change(&j)
	if in[key], err = json.Marshal(j); err != nil {
		t.Fatal(err)
	}
	if raw, err = json.Marshal(in); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE dbos.workflow_input SET inputs = $1 WHERE workflow_uuid = $2",
		base64.StdEncoding.EncodeToString(raw), id); err != nil {
		t.Fatal(err)
	}
}

func scheduled(id, cron, extra string) string {
	return strings.Replace(descriptorFor(id, "app", "staging"), "artifact:", "schedule: {cron: \""+cron+"\"}\nartifact:", 1) + extra
}

// TestAdminSpecsReadsTheTemplatesTheTicksRun: a tick runs the template of
// its schedule workflow's input, so admin specs reads that, not the
// schedule's row: a template altered there is reported (mismatch), and a
// workflow of an older generation, which stops without ticking, is not.
func TestAdminSpecsReadsTheTemplatesTheTicksRun(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	e := newEnvWith(t, envOptions{steps: planSteps(h), rootCAs: h.roots(), noWorker: true, executorID: "api"})
	db := openSQL(t, e.url)
	// Generation 1 runs extra; generation 2, the one in force, does not.
	e.submitText(scheduled("nightly", "0 3 * * *", "steps: {extra: true}\n"))
	e.submitText(scheduled("nightly", "0 3 * * *", ""))
	hash := ""
	alterEmbeddedJob(t, db, "nightly:schedule:2", "template", func(j *deploy.Job) {
		for i := range j.Plan.Steps {
			if s := &j.Plan.Steps[i]; s.Name == "notify" {
				hash = s.SpecHash
				s.Spec.Run.URL = "https://evil.example.com/"
			}
		}
	})
	uses, err := e.eng.SpecUses(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.SpecUse{{Kind: engine.SpecUseSchedule, ID: "nightly", Status: engine.SpecUseActive, Application: "app",
		Environment: "staging", Step: "notify", SpecHash: hash, Mismatch: true}}
	if !reflect.DeepEqual(uses, want) {
		t.Errorf("admin specs:\n got %+v\nwant %+v", uses, want)
	}
}
