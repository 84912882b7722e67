package engine_test

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
	"manent.dev/manent/internal/specsig"
)

// specSteps put a custom HTTP step before deploy; its JSON body has the
// numbers a careless canonical form would change on a round trip.
var specSteps = append(append([]string{}, defaultSteps[:2]...),
	`{name: notify, mode: mandatory, type: http, max_retries: 0, run: {url: "https://hooks.example.com/deploys/{{ .Application }}", json: {n: 1.50, big: 123456789012, e: 1e3, s: "{{ .Version }}"}}}`,
	defaultSteps[2], defaultSteps[3], defaultSteps[4], defaultSteps[5])

func specKeyring(t *testing.T, keys [][]byte, revoked ...string) *specsig.Keyring {
	t.Helper()
	k, err := specsig.New(keys, revoked)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// dbosJob is the job DBOS keeps as a workflow's input: what a worker runs.
func dbosJob(t *testing.T, db *sql.DB, id string) deploy.Job {
	t.Helper()
	var enc string
	if err := db.QueryRowContext(t.Context(), "SELECT inputs FROM dbos.workflow_input WHERE workflow_uuid = $1", id).Scan(&enc); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	var j deploy.Job
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// alterJob rewrites the job DBOS keeps for id, as whoever can write to the
// database could.
func alterJob(t *testing.T, db *sql.DB, id string, change func(*deploy.Job)) {
	t.Helper()
	j := dbosJob(t, db, id)
	change(&j)
	raw, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE dbos.workflow_input SET inputs = $1 WHERE workflow_uuid = $2",
		base64.StdEncoding.EncodeToString(raw), id); err != nil {
		t.Fatal(err)
	}
}

func customStep(p deploy.Plan) *deploy.PlannedStep {
	for i := range p.Steps {
		if p.Steps[i].Spec != nil {
			return &p.Steps[i]
		}
	}
	return nil
}

func openSQL(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db.SQL()
}

// TestStoredSpecsAreVerifiedBeforeTheyRun submits deploys to a process
// that runs nothing, so their plans wait in DBOS's records: a record read
// back verifies (its hash survived the round trip, numbers of the body
// included), then records are altered or revoked, and the worker that
// takes them fails the custom step (or, for a spec hash the plan's
// signature no longer covers, the deploy at its start), permanently,
// before anything reaches the targets.
func TestStoredSpecsAreVerifiedBeforeTheyRun(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	submitter := newEnvWith(t, envOptions{steps: specSteps, specs: specKeyring(t, [][]byte{key}), noWorker: true, executorID: "api"})
	db := openSQL(t, submitter.url)
	for _, id := range []string{"spec-url", "spec-rehash", "spec-revoked"} {
		submitter.submit(id, "app", "staging")
	}

	stored := dbosJob(t, db, "spec-url")
	notify := customStep(stored.Plan)
	if notify == nil || notify.SpecHash == "" || notify.Signature == "" {
		t.Fatalf("the stored plan has no sealed custom step: %+v", stored.Plan)
	}
	if err := specKeyring(t, [][]byte{key}).Verify(*notify); err != nil {
		t.Fatalf("the plan read back from DBOS does not verify: %v", err)
	}
	if got := notify.Spec.Run.JSON.(map[string]any); got["big"] != 123456789012.0 || got["n"] != 1.5 || got["e"] != 1000.0 {
		t.Fatalf("body = %v", got)
	}
	d, err := submitter.store.Get(submitter.ctx, "spec-url")
	if err != nil {
		t.Fatal(err)
	}
	if rm := customStep(d.Plan); rm == nil || rm.SpecHash != notify.SpecHash {
		t.Fatalf("the read model's spec_hash differs from DBOS's: %+v", rm)
	}
	hash := notify.SpecHash

	alterJob(t, db, "spec-url", func(j *deploy.Job) {
		customStep(j.Plan).Spec.Run.URL = "https://evil.example.com/x"
	})
	alterJob(t, db, "spec-rehash", func(j *deploy.Job) {
		s := customStep(j.Plan)
		s.Spec.Run.URL = "https://evil.example.com/x"
		s.SpecHash, _ = specsig.Hash(s.Spec)
	})

	worker := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, steps: specSteps, executorID: "worker",
		specs: specKeyring(t, [][]byte{key}, hash)})
	for _, c := range []struct {
		id, step string
		reason   error
		text     string
	}{
		{"spec-url", "notify", specsig.ErrTampered, "does not match the plan"},
		// The plan's signature covers the spec hashes: a rehashed
		// specification is refused before the deploy begins.
		{"spec-rehash", deploy.StepConfig, specsig.ErrBadSignature, "no key of pipeline.custom.spec_key_refs signed its steps"},
		{"spec-revoked", "notify", specsig.ErrRevoked, "spec_hash " + hash + " is in pipeline.custom.revoked_specs"},
	} {
		d := worker.waitState(c.id, deploy.StateError)
		s := step(d, c.step)
		if s.State != deploy.StepError || s.Attempts != 1 || !strings.Contains(s.Error, c.text) {
			t.Errorf("%s: %s = %s after %d attempt(s): %q, want %q", c.id, c.step, s.State, s.Attempts, s.Error, c.text)
		}
		if strings.Contains(s.Error, "evil.example.com") || strings.Contains(d.Error, "hooks.example.com") {
			t.Errorf("%s: the error shows a URL: %q", c.id, s.Error)
		}
		if n := worker.plugin.callCount(c.id); n != 0 {
			t.Errorf("%s: the plugin deployed %d time(s) after a refused specification", c.id, n)
		}
		keys, stored := specKeyring(t, [][]byte{key}, hash), dbosJob(t, db, c.id)
		if err := errors.Join(keys.VerifyPlan(stored), keys.Verify(*customStep(stored.Plan))); !errors.Is(err, c.reason) {
			t.Errorf("%s: the stored plan verifies with %v, want %v", c.id, err, c.reason)
		}
	}
}

// TestSpecOnAStandardStepIsAudited: a stored plan altered to give a
// standard step a specification is refused before the step runs, and the
// refusal is audited as a custom step's is: step.custom.run, failed,
// permanent, with the hash the plan records. Without signing keys: with
// them, the plan's own signature refuses the altered plan before any step
// (TestStoredPlansAreVerifiedAsAWhole).
func TestSpecOnAStandardStepIsAudited(t *testing.T) {
	submitter := newEnvWith(t, envOptions{steps: specSteps, specs: specKeyring(t, nil), noWorker: true, executorID: "api"})
	db := openSQL(t, submitter.url)
	submitter.submit("spec-standard", "app", "staging")
	var hash string
	alterJob(t, db, "spec-standard", func(j *deploy.Job) {
		notify := *customStep(j.Plan)
		hash = notify.SpecHash
		for i := range j.Plan.Steps {
			if s := &j.Plan.Steps[i]; s.Name == deploy.StepArtifacts {
				s.Spec, s.SpecHash, s.Signature = notify.Spec, notify.SpecHash, notify.Signature
			}
		}
	})
	worker := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, steps: specSteps, executorID: "worker",
		specs: specKeyring(t, nil)})
	d := worker.waitState("spec-standard", deploy.StateError)
	if s := step(d, deploy.StepArtifacts); s.State != deploy.StepError || !strings.Contains(s.Error, "differ from the plan's") {
		t.Fatalf("artifacts step %+v", s)
	}
	if n := worker.plugin.callCount("spec-standard"); n != 0 {
		t.Fatalf("the plugin deployed %d time(s)", n)
	}
	var refusals []map[string]any
	for _, a := range worker.customAudit("spec-standard") {
		if a["step"] == deploy.StepArtifacts {
			refusals = append(refusals, a)
		}
	}
	if len(refusals) == 0 {
		t.Fatal("the refused specification of the artifacts step is not audited")
	}
	for _, a := range refusals {
		if a["outcome"] != "failed" || a["permanent"] != true || a["spec_hash"] != hash || a["actor"] != "token:ci" ||
			!strings.Contains(toJSON(a["error"]), "differ from the plan's") {
			t.Errorf("audit entry %+v", a)
		}
	}
}
