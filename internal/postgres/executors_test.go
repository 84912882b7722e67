package postgres_test

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

func TestFenceExecutorHasOneWinner(t *testing.T) {
	f := newFixture(t)
	s, ctx := f.store, f.ctx
	if err := s.RegisterExecutor(ctx, "w1", "host", 1); err != nil {
		t.Fatal(err)
	}
	if fenced, err := s.Heartbeat(ctx, "w1"); err != nil || fenced {
		t.Fatalf("heartbeat = %v, %v", fenced, err)
	}
	// Not silent yet: nobody may fence it, unless forced.
	if won, err := s.FenceExecutor(ctx, "w1", "x", time.Now().Add(-time.Hour), false); err != nil || won {
		t.Fatalf("fenced a live executor: %v, %v", won, err)
	}
	stale, err := s.StaleExecutors(ctx, time.Now().Add(time.Hour))
	if err != nil || len(stale) != 1 || stale[0] != "w1" {
		t.Fatalf("stale = %v, %v", stale, err)
	}
	var wins sync.WaitGroup
	results := make(chan bool, 10)
	// Silent since before (the heartbeat above is older), as a taker with
	// a timeout computes it.
	before := time.Now()
	for i := 0; i < 10; i++ {
		wins.Add(1)
		go func() {
			defer wins.Done()
			won, err := s.FenceExecutor(ctx, "w1", "taker", before, false)
			if err != nil {
				t.Error(err)
			}
			results <- won
		}()
	}
	wins.Wait()
	close(results)
	n := 0
	for won := range results {
		if won {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d takers won the fence, want 1", n)
	}
	if fenced, err := s.Heartbeat(ctx, "w1"); err != nil || !fenced {
		t.Fatalf("heartbeat of a fenced executor = %v, %v", fenced, err)
	}
	if fenced, err := s.ExecutorFenced(ctx, "w1"); err != nil || !fenced {
		t.Fatalf("ExecutorFenced = %v, %v", fenced, err)
	}
	// A restart under the same ID lifts the fence.
	if err := s.RegisterExecutor(ctx, "w1", "host", 2); err != nil {
		t.Fatal(err)
	}
	if fenced, err := s.ExecutorFenced(ctx, "w1"); err != nil || fenced {
		t.Fatalf("after restart ExecutorFenced = %v, %v", fenced, err)
	}
	// Before DBOS created its tables, no executor runs anything.
	workflows, err := s.ExecutorWorkflows(ctx, "w1", []string{"manent.deploy"})
	if err != nil || len(workflows) != 0 {
		t.Fatalf("workflows = %v, %v", workflows, err)
	}
	if fenced, err := s.ExecutorFenced(ctx, "unknown"); err != nil || fenced {
		t.Fatalf("ExecutorFenced of an unknown executor = %v, %v", fenced, err)
	}
}

// The workflows of an executor are read from DBOS's table, as DBOS records
// them: PENDING ones of the names asked, oldest first.
func TestExecutorWorkflows(t *testing.T) {
	f := newFixture(t)
	if err := dbos.Migrate(f.ctx, f.url); err != nil {
		t.Fatalf("DBOS migrate: %v", err)
	}
	rows := []struct {
		id, executor, status, name, queue, partition string
		created                                      int64
	}{
		{"late", "w1", "PENDING", "manent.deploy", "deploys", "demo/app/prod", 3},
		{"early", "w1", "PENDING", "manent.deploy", "deploys", "demo/app/staging", 1},
		{"wait", "w1", "PENDING", "manent.wait", "", "", 2},
		{"other-name", "w1", "PENDING", "manent.schedule", "", "", 4},
		{"done", "w1", "SUCCESS", "manent.deploy", "deploys", "demo/app/qa", 5},
		{"elsewhere", "w2", "PENDING", "manent.deploy", "deploys", "demo/app/dev", 6},
	}
	for _, r := range rows {
		if err := f.exec(`INSERT INTO dbos.workflow_status (workflow_uuid, executor_id, status, name, queue_name, queue_partition_key, created_at)
			VALUES (?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?)`, r.id, r.executor, r.status, r.name, r.queue, r.partition, r.created); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		executor string
		names    []string
		want     []deploy.ExecutorDeploy
	}{
		{"deploys and waits", "w1", []string{"manent.deploy", "manent.wait"}, []deploy.ExecutorDeploy{
			{ID: "early", Workflow: "manent.deploy", Queue: "deploys", Partition: "demo/app/staging"},
			{ID: "wait", Workflow: "manent.wait"},
			{ID: "late", Workflow: "manent.deploy", Queue: "deploys", Partition: "demo/app/prod"},
		}},
		{"one name", "w1", []string{"manent.wait"}, []deploy.ExecutorDeploy{{ID: "wait", Workflow: "manent.wait"}}},
		{"another executor", "w2", []string{"manent.deploy"}, []deploy.ExecutorDeploy{
			{ID: "elsewhere", Workflow: "manent.deploy", Queue: "deploys", Partition: "demo/app/dev"}}},
		{"unknown executor", "w3", []string{"manent.deploy"}, []deploy.ExecutorDeploy{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.store.ExecutorWorkflows(f.ctx, tt.executor, tt.names)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ExecutorWorkflows = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestLiveExecutors counts the executors with a recent heartbeat, fenced
// ones left out.
func TestLiveExecutors(t *testing.T) {
	f := newFixture(t)
	s, ctx := f.store, f.ctx
	for _, id := range []string{"w1", "w2", "w3"} {
		if err := s.RegisterExecutor(ctx, id, "host", 1); err != nil {
			t.Fatal(err)
		}
	}
	if won, err := s.FenceExecutor(ctx, "w3", "w1", time.Now(), true); err != nil || !won {
		t.Fatalf("fence w3: %v, %v", won, err)
	}
	if n, err := s.LiveExecutors(ctx, time.Now().Add(-time.Minute)); err != nil || n != 2 {
		t.Fatalf("live executors in the last minute = %d, %v, want 2", n, err)
	}
	if n, err := s.LiveExecutors(ctx, time.Now().Add(time.Minute)); err != nil || n != 0 {
		t.Fatalf("live executors since a minute ahead = %d, %v, want 0", n, err)
	}
}
