package engine

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// DBOS recovers only its own executor's workflows when it launches. A worker
// that never comes back would strand its deploys, so workers record a
// heartbeat, and a live worker takes over the deploys of one silent for
// engine.executor_timeout: it fences the dead executor (one winner, decided
// by PostgreSQL) and puts its workflows back on their queues with
// ResumeWorkflows, where DBOS replays their completed steps. A process that
// was only paused learns it was fenced from its heartbeat or its poll of
// the fence (every second), then writes nothing more (unfenced) and stops.
// Until it knows, the end of an operation it was running may still be
// written (the same record the new owner writes again), but DBOS refuses
// that process the record of the step: the workflow goes on only where it
// was taken over.

// fence is closed when this process learns it was fenced.
type fence struct {
	once sync.Once
	ch   chan struct{}
}

func (f *fence) trip() { f.once.Do(func() { close(f.ch) }) }

// Drain stops this process from taking deploys off the queues; the deploys
// it runs go on. A fenced process drains at once, and an operator can drain
// a worker before maintenance.
func (e *Engine) Drain() {
	e.dbos.ListenQueues(e.dbos, noQueue)
}

func (e *Engine) tripFence() {
	e.log.Error("this executor was fenced: another worker took over its deploys; stopping",
		"executor_id", e.cfg.Server.ExecutorID)
	e.Drain()
	e.fenced.trip()
}

// Fenced is closed when another worker has taken over this process's
// deploys: the process must stop (the server exits with an error).
func (e *Engine) Fenced() <-chan struct{} { return e.fenced.ch }

// register records this worker and starts its heartbeat.
func (e *Engine) register(ctx context.Context) error {
	host, _ := os.Hostname()
	if err := e.store.RegisterExecutor(ctx, e.cfg.Server.ExecutorID, host, os.Getpid()); err != nil {
		return fmt.Errorf("register executor: %w", err)
	}
	return nil
}

// fencePoll is how often a worker looks whether another took over its
// deploys, beside its heartbeat (which may be rarer).
const fencePoll = time.Second

// watchFence trips the fence as soon as the executor's row says another
// worker took over its deploys: the process then begins no more steps.
func (e *Engine) watchFence(ctx context.Context) {
	t := time.NewTicker(min(fencePoll, e.cfg.Engine.HeartbeatInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.fenced.ch:
			return
		case <-t.C:
		}
		if fenced, err := e.store.ExecutorFenced(ctx, e.cfg.Server.ExecutorID); err == nil && fenced {
			e.tripFence()
			return
		}
	}
}

// heartbeat runs until ctx ends: heartbeats, and recovery passes when enabled.
//
// After a failed heartbeat (the database away), a worker waits a whole
// executor_timeout of good heartbeats before it takes over anyone: every
// worker was silent during the outage, and none of them is dead.
func (e *Engine) heartbeat(ctx context.Context) {
	t := time.NewTicker(e.cfg.Engine.HeartbeatInterval)
	defer t.Stop()
	healthySince := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fenced, err := e.store.Heartbeat(ctx, e.cfg.Server.ExecutorID)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("heartbeat", "error", err)
			}
			healthySince = time.Now()
			continue
		}
		if fenced {
			e.tripFence()
			return
		}
		if err := e.spreadPolling(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("set the queues' polling interval", "error", err)
		}
		if e.cfg.Engine.AutoRecovering() && time.Since(healthySince) >= e.cfg.Engine.ExecutorTimeout {
			if _, err := e.RecoverExecutors(ctx, nil, false); err != nil && ctx.Err() == nil {
				e.log.Warn("recover dead executors", "error", err)
			}
		}
	}
}

// Recovered is one executor taken over and the deploys put back on their queues.
type Recovered struct {
	ExecutorID string   `json:"executor_id"`
	Workflows  []string `json:"workflows"`
}

// RecoverExecutors takes over the deploys of dead executors: those named
// (all silent ones when none is), silent for engine.executor_timeout unless
// force. Executors another worker fenced first are skipped.
func (e *Engine) RecoverExecutors(ctx context.Context, executorIDs []string, force bool) ([]Recovered, error) {
	before := time.Now().Add(-e.cfg.Engine.ExecutorTimeout)
	ids := executorIDs
	if len(ids) == 0 {
		stale, err := e.store.StaleExecutors(ctx, before)
		if err != nil {
			return nil, err
		}
		ids = stale
	}
	out := []Recovered{}
	for _, id := range ids {
		if id == e.cfg.Server.ExecutorID && e.worker {
			continue
		}
		won, err := e.store.FenceExecutor(ctx, id, e.cfg.Server.ExecutorID, before, force)
		if err != nil {
			return out, err
		}
		if !won {
			continue
		}
		deploys, err := e.store.ExecutorWorkflows(ctx, id, workflowNames)
		if err != nil {
			return out, err
		}
		byQueue := map[string][]string{}
		rec := Recovered{ExecutorID: id, Workflows: []string{}}
		for _, d := range deploys {
			q := e.queueFor(d.Partition)
			switch {
			case eventQueue(d.Workflow, d.Partition) != "":
				q = eventQueue(d.Workflow, d.Partition)
			case !onDeployQueue(d.Workflow):
				// Waits, releases and schedules live on the wait queue.
				q = waitQueue
			}
			byQueue[q] = append(byQueue[q], d.ID)
			rec.Workflows = append(rec.Workflows, d.ID)
		}
		queues := make([]string, 0, len(byQueue))
		for q := range byQueue {
			queues = append(queues, q)
		}
		sort.Strings(queues)
		for _, q := range queues {
			// Back on the deploy queue with their partition key, so the
			// one-deploy-per-environment rule holds for recovered deploys too.
			if _, err := dbos.ResumeWorkflows[DeployResult](e.dbos, byQueue[q], dbos.WithResumeQueue(q)); err != nil {
				return out, fmt.Errorf("resume deploys of executor %s: %w", id, err)
			}
		}
		if len(rec.Workflows) > 0 {
			e.log.Warn("took over the deploys of a dead executor", "executor_id", id, "workflows", rec.Workflows)
		}
		out = append(out, rec)
	}
	return out, nil
}
