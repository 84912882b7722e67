package engine

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// Names under which workflows and queues are stored in DBOS's tables: they
// are part of the on-disk format, a rename strands the deploys in flight.
const (
	appName          = "manent"
	deployWorkflow   = "manent.deploy"
	deployQueue      = "manent.deploy"
	noQueue          = "manent.none"
	defaultBaseRetry = 1
)

func (e *Engine) setupDBOS(ctx context.Context, url string) error {
	c, err := dbos.NewContext(ctx, dbos.Config{
		AppName:     appName,
		DatabaseURL: url,
		Logger:      e.log.With("component", "dbos"),
		// Pinned: DBOS defaults to a hash of the binary, and a rebuilt server
		// would then never recover the deploys in flight.
		ApplicationVersion: e.cfg.Engine.ApplicationVersion,
		ExecutorID:         e.cfg.Server.ExecutorID,
	})
	if err != nil {
		return fmt.Errorf("create dbos context: %w", err)
	}
	e.dbos = c
	dbos.RegisterWorkflow(c, e.deployWorkflow,
		dbos.WithWorkflowName(deployWorkflow),
		dbos.WithMaxRecoveryAttempts(e.cfg.Engine.MaxRecoveryAttempts))

	dbos.RegisterWorkflow(c, e.scheduleWorkflowFn,
		dbos.WithWorkflowName(scheduleWorkflow),
		dbos.WithMaxRecoveryAttempts(e.cfg.Engine.MaxRecoveryAttempts))
	dbos.RegisterWorkflow(c, e.approvalWorkflowFn,
		dbos.WithWorkflowName(approvalWorkflow),
		dbos.WithMaxRecoveryAttempts(e.cfg.Engine.MaxRecoveryAttempts))
	// Composite releases (release.go) follow their deploys on the wait queue.
	dbos.RegisterWorkflow(c, e.releaseWorkflowFn,
		dbos.WithWorkflowName(releaseWorkflow),
		dbos.WithMaxRecoveryAttempts(e.cfg.Engine.MaxRecoveryAttempts))
	// The wait queue holds deploys waiting for approvals: no partition and
	// no deploy slot, so a waiting deploy never blocks its environment.
	// No concurrency limit: a waiting deploy costs a sleeping Recv.
	if _, err := dbos.RegisterQueue(c, waitQueue,
		dbos.WithQueueBasePollingInterval(e.cfg.Queues.PollInterval),
		dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate)); err != nil {
		return fmt.Errorf("register queue %s: %w", waitQueue, err)
	}
	names := []string{waitQueue}
	for _, n := range e.queueConcurrencies() {
		name := queueName(n)
		_, err := dbos.RegisterQueue(c, name,
			dbos.WithPartitionConcurrency(n),
			dbos.WithWorkerConcurrency(e.cfg.Queues.WorkerConcurrency),
			dbos.WithQueueBasePollingInterval(e.cfg.Queues.PollInterval),
			dbos.WithQueueOnConflict(dbos.QueueConflictAlwaysUpdate))
		if err != nil {
			return fmt.Errorf("register queue %s: %w", name, err)
		}
		names = append(names, name)
	}
	if !e.worker {
		// An api process enqueues but never dequeues: it listens to a queue
		// that does not exist.
		names = []string{noQueue}
	}
	c.ListenQueues(c, names...)
	return nil
}

// queueConcurrencies lists the distinct per-environment concurrencies: one
// DBOS queue each, since DBOS's partition limit is queue-wide.
func (e *Engine) queueConcurrencies() []int {
	set := map[int]bool{1: true}
	for _, n := range e.cfg.Queues.Environments {
		if n > 0 {
			set[n] = true
		}
	}
	out := make([]int, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func queueName(concurrency int) string {
	if concurrency <= 1 {
		return deployQueue
	}
	return deployQueue + ".c" + strconv.Itoa(concurrency)
}

// queueFor returns the queue of a partition (tenant/application/environment).
func (e *Engine) queueFor(partition string) string {
	return queueName(e.cfg.Queues.Environments[partition])
}
