package engine_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/specsig"
)

// planSteps: a mandatory custom step that acts as a control (notify), and
// an optional one that descriptors turn on (extra), both against h.
func planSteps(h *hookServer) []string {
	return []string{
		"{name: artifacts, mode: mandatory}",
		`{name: notify, mode: mandatory, type: http, max_retries: 0, run: {url: "` + h.URL + `/notify/{{ .DeploymentID }}"}}`,
		"{name: deploy, mode: mandatory}",
		`{name: extra, mode: optional, enabled: false, type: http, max_retries: 0, run: {url: "` + h.URL + `/extra/{{ .DeploymentID }}"}}`,
		"{name: activation, mode: optional}",
	}
}

func (e *env) submitText(text string) {
	e.t.Helper()
	if _, err := e.eng.Submit(e.ctx, []byte(text), deploy.SubmitOptions{}); err != nil {
		e.t.Fatalf("submit: %v", err)
	}
}

// TestStoredPlansAreVerifiedAsAWhole: the signature of each specification
// says what a custom step does; the plan's says which steps the deploy
// runs. Whoever writes DBOS's records drops the mandatory custom step
// notify (a control) from a queued deploy's plan, moves it after deploy,
// puts in the signed step extra that the descriptor left off (copied from
// another deploy's plan), gives a deploy another deploy's whole signed
// plan, turns a dry run into a run, or strips the plan's signature: the
// worker refuses each plan, permanently, before any step does anything,
// while the plans left alone run to SUCCESS.
func TestStoredPlansAreVerifiedAsAWhole(t *testing.T) {
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	key := []byte(strings.Repeat("p", 32))
	submitter := newEnvWith(t, envOptions{steps: planSteps(h), rootCAs: h.roots(), specs: specKeyring(t, [][]byte{key}),
		noWorker: true, executorID: "api"})
	db := openSQL(t, submitter.url)
	tampered := []string{"drop-notify", "move-notify", "insert-extra", "moved-plan", "dry-to-run", "stripped"}
	for _, id := range append([]string{"intact", "with-extra"}, tampered...) {
		text := descriptorFor(id, "app", "staging")
		switch id {
		case "with-extra":
			text += "steps: {extra: true}\n"
		case "dry-to-run":
			text += "dryRun: true\n"
		}
		submitter.submitText(text)
	}
	withExtra := dbosJob(t, db, "with-extra")
	if withExtra.Plan.Signature == "" {
		t.Fatalf("the stored plan is not signed: %+v", withExtra.Plan)
	}
	if err := specKeyring(t, [][]byte{key}).VerifyPlan(withExtra); err != nil {
		t.Fatalf("the plan read back from DBOS does not verify: %v", err)
	}
	without := func(j *deploy.Job, name string) {
		j.Plan.Steps = slices.DeleteFunc(j.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == name })
	}
	alterJob(t, db, "drop-notify", func(j *deploy.Job) { without(j, "notify") })
	alterJob(t, db, "move-notify", func(j *deploy.Job) {
		i := slices.IndexFunc(j.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == "notify" })
		j.Plan.Steps[i], j.Plan.Steps[i+1] = j.Plan.Steps[i+1], j.Plan.Steps[i]
	})
	alterJob(t, db, "insert-extra", func(j *deploy.Job) {
		i := slices.IndexFunc(withExtra.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == "extra" })
		j.Plan.Steps = slices.Insert(j.Plan.Steps, i, withExtra.Plan.Steps[i])
	})
	alterJob(t, db, "moved-plan", func(j *deploy.Job) { j.Plan = withExtra.Plan })
	alterJob(t, db, "dry-to-run", func(j *deploy.Job) { j.Descriptor.DryRun, j.Effective.DryRun = false, false })
	alterJob(t, db, "stripped", func(j *deploy.Job) { j.Plan.Signature = "" })

	worker := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, steps: planSteps(h), rootCAs: h.roots(),
		executorID: "worker", specs: specKeyring(t, [][]byte{key})})
	for _, id := range []string{"intact", "with-extra"} {
		worker.waitState(id, deploy.StateSuccess)
		if n := len(h.keysOf("/notify/" + id)); n != 1 {
			t.Errorf("%s: notify ran %d time(s), want 1", id, n)
		}
	}
	for _, id := range tampered {
		d := worker.waitState(id, deploy.StateError)
		want := "the plan of deploy " + id + ": no key of pipeline.custom.spec_key_refs signed its steps"
		if id == "stripped" {
			want = "the plan of deploy stripped: pipeline.custom.spec_key_refs requires signed plans"
		}
		if s := step(d, deploy.StepConfig); s.State != deploy.StepError || s.Attempts != 1 || !strings.Contains(s.Error, want) {
			t.Errorf("%s: config = %s after %d attempt(s): %q, want %q", id, s.State, s.Attempts, s.Error, want)
		}
		for _, s := range d.Steps {
			if s.Name != deploy.StepConfig && s.Name != deploy.StepCleanup && s.StartedAt != nil {
				t.Errorf("%s: step %s started after the plan was refused", id, s.Name)
			}
		}
		if n := worker.plugin.callCount(id); n != 0 {
			t.Errorf("%s: the plugin deployed %d time(s) after a refused plan", id, n)
		}
		if n := len(h.keysOf("/notify/"+id)) + len(h.keysOf("/extra/"+id)); n != 0 {
			t.Errorf("%s: %d request(s) of custom steps after a refused plan", id, n)
		}
		reason := specsig.ErrBadSignature
		if id == "stripped" {
			reason = specsig.ErrUnsigned
		}
		if err := specKeyring(t, [][]byte{key}).VerifyPlan(dbosJob(t, db, id)); !errors.Is(err, reason) || !deploy.IsPermanent(err) {
			t.Errorf("%s: VerifyPlan of the stored job = %v, want a permanent %v", id, err, reason)
		}
	}
}
