package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"manent.dev/manent/deploy"
)

// TestDeadWorkerIsTakenOver: worker a runs a deploy and goes silent in its
// deploy step; worker b notices, fences a, puts the deploy back on its
// queue and finishes it, replaying the steps a completed. When a wakes up,
// it finds itself fenced and runs nothing more.
func TestDeadWorkerIsTakenOver(t *testing.T) {
	// a never heartbeats during the test, so it looks dead to b, whose
	// timeout is short.
	a := newEnvWith(t, envOptions{executorID: "worker-a",
		engineYAML: "engine: {heartbeat_interval: 1h, executor_timeout: 3h}"})

	stuck := make(chan struct{})
	wake := make(chan struct{})
	var woken sync.Once
	t.Cleanup(func() { woken.Do(func() { close(wake) }) })
	a.plugin.deploy = func(_ context.Context, req deploy.PluginRequest) error {
		if a.plugin.callCount(req.DeploymentID) == 1 {
			close(stuck)
			<-wake // worker a "pauses" in the middle of its deploy step
		}
		return nil
	}
	a.submit("taken-over", "app", "staging")
	<-stuck
	before := a.wait("taken-over", func(d *deploy.Deployment) bool { return step(d, "deploy").State == deploy.StepRunning })
	if before.State != deploy.StatePending {
		t.Fatalf("state %s, want PENDING", before.State)
	}
	// Worker a is "dead": it takes nothing more off the queues. b starts
	// only now, so the deploy is certainly worker a's.
	a.eng.Drain()
	b := newEnvWith(t, envOptions{url: a.url, dir: a.dir, executorID: "worker-b", plugin: a.plugin,
		engineYAML: "engine: {heartbeat_interval: 100ms, executor_timeout: 300ms}"})

	d := b.waitState("taken-over", deploy.StateSuccess)
	for _, name := range []string{"config", "secrets", "artifacts", "qa"} {
		if s := step(d, name); s.Attempts != 1 {
			t.Errorf("step %s ran %d times, want once (replayed by b)", name, s.Attempts)
		}
	}
	if n := a.plugin.activationCount("taken-over"); n != 1 {
		t.Fatalf("activation ran %d times, want once", n)
	}

	// Worker a wakes up: its deploy step returns. Whatever it does next
	// (replay b's recorded steps, or stop at the fence if it had picked the
	// deploy up again), it must not run a step b ran.
	woken.Do(func() { close(wake) })
	if fenced, err := a.store.Heartbeat(a.ctx, "worker-a"); err != nil || !fenced {
		t.Fatalf("worker a's heartbeat: fenced=%v, %v", fenced, err)
	}
	_ = a.eng.Shutdown(10 * time.Second)
	if n := a.plugin.activationCount("taken-over"); n != 1 {
		t.Fatalf("activation ran %d times after a woke up, want once", n)
	}
	final, err := b.store.Get(b.ctx, "taken-over")
	if err != nil || final.State != deploy.StateSuccess {
		t.Fatalf("final = %+v, %v", final, err)
	}
}
