package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// DBOS keeps the configuration of a queue, its polling interval included,
// in its own table, shared by every process, and each worker polls every
// queue it listens to at that interval. At queues.poll_interval, N workers
// would poll each queue N times as often as one, and a poll costs the
// database whether or not it finds work: an idle worker's polls of its five
// queues cost it about 60 ms of CPU a second and PostgreSQL about 25 ms, and
// while deploys wait, a poll of the deploy queue tries every environment
// that has one (docs/benchmarks.md, BenchmarkWorkers). So the interval
// stored is poll_interval (event_poll_interval for the events' queues) ×
// the live workers: the installation polls each
// queue about once per poll_interval, whatever its number of workers, and a
// deploy waits for the first poll of any of them (on average poll_interval
// × N/(N+1) instead of poll_interval/2 with one worker).

// pollWindow is how recent a worker's heartbeat must be for the polling to
// count it: three heartbeats, so one late heartbeat does not count a
// worker out, and a stopped worker stops counting within seconds (the
// takeover's executor_timeout is longer).
func (e *Engine) pollWindow() time.Duration { return 3 * e.cfg.Engine.HeartbeatInterval }

// pollInterval is the interval of a queue polled every base by one worker,
// for workers live workers.
func (e *Engine) pollInterval(base time.Duration, workers int) time.Duration {
	return base * time.Duration(max(workers, 1))
}

// startPollWorkers is the count of workers the queues are registered for:
// a starting worker counts itself, an api process (which polls nothing)
// only the workers. Without the executors table yet, it is one: the first
// heartbeat corrects it.
func (e *Engine) startPollWorkers(ctx context.Context) int {
	n, err := e.store.LiveExecutors(ctx, time.Now().Add(-e.pollWindow()))
	if err != nil {
		e.log.Debug("count live workers for the queues' polling", "error", err)
		n = 0
	}
	if e.worker {
		n++
	}
	return n
}

// spreadPolling sets the polling interval of manent's queues for the
// workers live now, where the stored one differs: after a worker started
// or stopped, or another process registered the queues with its own count.
func (e *Engine) spreadPolling(ctx context.Context) error {
	n, err := e.store.LiveExecutors(ctx, time.Now().Add(-e.pollWindow()))
	if err != nil {
		return err
	}
	queues, err := dbos.ListQueues(e.dbos)
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	for _, q := range queues {
		base, ok := e.polled[q.GetName()]
		want := e.pollInterval(base, n)
		if !ok || closeTo(q.GetPollingInterval(), want) {
			continue
		}
		if err := q.SetPollingInterval(e.dbos, want); err != nil {
			return fmt.Errorf("set the polling interval of %s: %w", q.GetName(), err)
		}
	}
	return nil
}

// closeTo compares intervals as DBOS stores them (seconds, a float).
func closeTo(a, b time.Duration) bool {
	d := a - b
	return d < time.Millisecond && d > -time.Millisecond
}
