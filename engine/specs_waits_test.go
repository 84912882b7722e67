package engine_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/specsig"
)

func dropStep(name string) func(*deploy.Job) {
	return func(j *deploy.Job) {
		j.Plan.Steps = slices.DeleteFunc(j.Plan.Steps, func(s deploy.PlannedStep) bool { return s.Name == name })
	}
}

// alterRowPlan rewrites the plan that a deploy's row holds, as whoever can
// write to the database could.
func alterRowPlan(t *testing.T, db *sql.DB, id string, change func(*deploy.Job)) {
	t.Helper()
	var raw []byte
	if err := db.QueryRowContext(t.Context(), "SELECT plan FROM manent.deployments WHERE id = $1", id).Scan(&raw); err != nil {
		t.Fatalf("plan of %s: %v", id, err)
	}
	j := deploy.Job{ID: id}
	if err := json.Unmarshal(raw, &j.Plan); err != nil {
		t.Fatal(err)
	}
	change(&j)
	raw, err := json.Marshal(j.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), "UPDATE manent.deployments SET plan = $1 WHERE id = $2", raw, id); err != nil {
		t.Fatal(err)
	}
}

// refusedAtConfig checks that the deploy ended at its config step, refused
// by the plan's signature, with nothing of the plan run.
func refusedAtConfig(t *testing.T, e *env, h *hookServer, d *deploy.Deployment) {
	t.Helper()
	want := "the plan of deploy " + d.ID + ": no key of pipeline.custom.spec_key_refs signed its steps"
	if s := step(d, deploy.StepConfig); s.State != deploy.StepError || !strings.Contains(s.Error, want) {
		t.Errorf("%s: config = %s: %q, want %q", d.ID, s.State, s.Error, want)
	}
	if n := e.plugin.callCount(d.ID) + len(h.keysOf("/notify/"+d.ID)) + len(h.keysOf("/extra/"+d.ID)); n != 0 {
		t.Errorf("%s: %d operation(s) of the plan ran after it was refused", d.ID, n)
	}
}

// TestPlansThatWaitAreVerifiedWhenTheyRun: a plan does not only wait in a
// deploy's queue. Whoever writes the database alters the plan of a deploy
// waiting for another (in its row, which its manent.wait workflow lets go)
// and the template of a recurring schedule (the input of its
// manent.schedule workflow, which every tick copies): the deploy, once let
// go, and the tick's deploy are refused at their start; a schedule whose
// custom step is revoked fails that step at its tick; the plans left alone
// run.
func TestPlansThatWaitAreVerifiedWhenTheyRun(t *testing.T) {
	t.Parallel() // waits for a wall-clock minute: the schedules' first tick
	h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	key := []byte(strings.Repeat("w", 32))
	submitter := newEnvWith(t, envOptions{steps: planSteps(h), rootCAs: h.roots(), specs: specKeyring(t, [][]byte{key}),
		noWorker: true, executorID: "api"})
	db := openSQL(t, submitter.url)
	submitter.submitText(descriptorFor("first", "app", "staging"))
	for _, id := range []string{"waits-intact", "waits-altered"} {
		submitter.submitText(descriptorFor(id, "app", "staging") + "after: [first]\n")
	}
	submitter.submitText(scheduled("tick-altered", "* * * * *", ""))
	submitter.submitText(scheduled("tick-revoked", "* * * * *", "steps: {extra: true}\n"))
	alterRowPlan(t, db, "waits-altered", dropStep("notify"))
	alterEmbeddedJob(t, db, "tick-altered:schedule:1", "template", dropStep("notify"))
	extra := ""
	uses, err := submitter.eng.SpecUses(submitter.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uses {
		if u.ID == "tick-revoked" && u.Step == "extra" {
			extra = u.SpecHash
		}
	}
	if extra == "" {
		t.Fatalf("admin specs does not find the template's extra step: %+v", uses)
	}

	ctx, cancel := context.WithTimeout(submitter.ctx, 150*time.Second)
	defer cancel()
	events := submitter.events.Subscribe(ctx, "")
	worker := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, steps: planSteps(h), rootCAs: h.roots(),
		executorID: "worker", specs: specKeyring(t, [][]byte{key}, extra)})
	for _, id := range []string{"first", "waits-intact"} {
		worker.waitState(id, deploy.StateSuccess)
	}
	refusedAtConfig(t, worker, h, worker.waitState("waits-altered", deploy.StateError))

	ticks := map[string]string{}
	for len(ticks) < 2 {
		select {
		case ev := <-events:
			if name, ok := deploy.TickSchedule(ev.DeploymentID); ok && ticks[name] == "" {
				ticks[name] = ev.DeploymentID
			}
		case <-ctx.Done():
			t.Fatalf("the schedules did not tick: %v", ticks)
		}
	}
	refusedAtConfig(t, worker, h, worker.waitState(ticks["tick-altered"], deploy.StateError))
	d := worker.waitState(ticks["tick-revoked"], deploy.StateError)
	if s := step(d, "extra"); s.State != deploy.StepError || !strings.Contains(s.Error, "spec_hash "+extra+" is in pipeline.custom.revoked_specs") {
		t.Errorf("the revoked step of a tick: %s %q", s.State, s.Error)
	}
	if n := len(h.keysOf("/extra/" + d.ID)); n != 0 {
		t.Errorf("the revoked step sent %d request(s)", n)
	}
}

// TestKeyRotationThroughTheEngine: a plan signed with the old key runs on
// workers that list the new key first and the old one after it, beside
// the plans the new key signs; once the old key is removed, a plan it
// signed is refused before the deploy begins.
func TestKeyRotationThroughTheEngine(t *testing.T) {
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	for _, c := range []struct {
		name    string
		workers [][]byte
		want    deploy.State
	}{
		{name: "during the rotation", workers: [][]byte{newKey, oldKey}, want: deploy.StateSuccess},
		{name: "after it", workers: [][]byte{newKey}, want: deploy.StateError},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHookServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
			submitter := newEnvWith(t, envOptions{steps: planSteps(h), rootCAs: h.roots(), specs: specKeyring(t, [][]byte{oldKey}),
				noWorker: true, executorID: "api"})
			submitter.submitText(descriptorFor("signed-old", "app", "staging"))
			worker := newEnvWith(t, envOptions{url: submitter.url, dir: submitter.dir, steps: planSteps(h), rootCAs: h.roots(),
				executorID: "worker", specs: specKeyring(t, c.workers)})
			d := worker.waitState("signed-old", c.want)
			if c.want == deploy.StateError {
				refusedAtConfig(t, worker, h, d)
			}
			// What the worker's keys sign now, they verify.
			worker.submitText(descriptorFor("signed-new", "app", "staging"))
			worker.waitState("signed-new", deploy.StateSuccess)
			job := dbosJob(t, openSQL(t, worker.url), "signed-new")
			if err := specKeyring(t, [][]byte{newKey}).VerifyPlan(job); err != nil {
				t.Errorf("the new key does not verify what the worker signed: %v", err)
			}
			if err := specKeyring(t, [][]byte{oldKey}).VerifyPlan(job); !errors.Is(err, specsig.ErrBadSignature) {
				t.Errorf("the old key verifies what the new one signed: %v", err)
			}
		})
	}
}
