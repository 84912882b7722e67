package postgres_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/postgres"
)

// Counts reads the deploys by state, and DBOS's workflows not ended by
// queue and status; before DBOS has made its tables, no workflows.
func TestCounts(t *testing.T) {
	f := newFixture(t)
	f.create(deployment("queued-1", "staging"))
	f.create(deployment("queued-2", "prod"))
	f.pending("running", "qa")

	got, err := f.store.Counts(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := postgres.Counts{Deploys: map[deploy.State]int{deploy.StateEnqueued: 2, deploy.StatePending: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Counts before DBOS = %+v, want %+v", got, want)
	}

	if err := dbos.Migrate(f.ctx, f.url); err != nil {
		t.Fatalf("DBOS migrate: %v", err)
	}
	for _, w := range []struct{ id, status, queue string }{
		{"a", "ENQUEUED", "manent.deploy"}, {"b", "ENQUEUED", "manent.deploy"}, {"c", "PENDING", "manent.deploy"},
		{"d", "PENDING", "manent.wait"}, {"e", "PENDING", ""},
		// Ended: not counted.
		{"f", "SUCCESS", "manent.deploy"}, {"g", "ERROR", "manent.wait"},
	} {
		if err := f.exec(`INSERT INTO dbos.workflow_status (workflow_uuid, status, name, queue_name) VALUES (?, ?, 'manent.deploy', NULLIF(?, ''))`,
			w.id, w.status, w.queue); err != nil {
			t.Fatal(err)
		}
	}
	got, err = f.store.Counts(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	want.Workflows = []postgres.WorkflowCount{
		{Queue: "", Status: "PENDING", Count: 1},
		{Queue: "manent.deploy", Status: "ENQUEUED", Count: 2},
		{Queue: "manent.deploy", Status: "PENDING", Count: 1},
		{Queue: "manent.wait", Status: "PENDING", Count: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Counts = %+v\nwant %+v", got, want)
	}
}

// The observed recorder reports a step once its end is recorded, and
// nothing for a start alone.
func TestObservedRecorderReportsEndedSteps(t *testing.T) {
	f := newFixture(t)
	f.pending("observed", "staging")
	var ended []deploy.Step
	rec := postgres.NewObservedRecorder(func(s deploy.Step) { ended = append(ended, s) })
	start := time.Now().UTC().Add(-time.Second)
	next := deploy.Step{DeploymentID: "observed", Name: deploy.StepConfig, Kind: deploy.KindRun, State: deploy.StepRunning, StartedAt: &start}
	if err := f.inTx(func(q dbos.Querier) error {
		_, err := rec.Advance(f.ctx, q, nil, deploy.StepEffects{}, &next, deploy.BeginOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 0 {
		t.Fatalf("a start reported %+v", ended)
	}
	done := next
	end := time.Now().UTC()
	done.State, done.FinishedAt, done.Attempts = deploy.StepSuccess, &end, 1
	if err := f.inTx(func(q dbos.Querier) error {
		_, err := rec.Advance(f.ctx, q, &done, deploy.StepEffects{}, nil, deploy.BeginOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0].Name != deploy.StepConfig || ended[0].State != deploy.StepSuccess || !ended[0].FinishedAt.Equal(end) {
		t.Errorf("reported %+v, want the config step's end", ended)
	}
}
