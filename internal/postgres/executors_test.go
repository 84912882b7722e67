package postgres_test

import (
	"sync"
	"testing"
	"time"
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
	deploys, err := s.ExecutorDeploys(ctx, "w1")
	if err != nil || len(deploys) != 0 {
		t.Fatalf("deploys = %v, %v", deploys, err)
	}
}
