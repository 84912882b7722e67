package engine

import (
	"context"
	"fmt"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
)

// A worker process works on at most queues.worker_concurrency deploys and
// undos at once: each holds one of its slots while it works, and a rollout
// gives its slot back while it waits (a bake, a pause, a wave's approval,
// a deferral), which may last days. DBOS's own worker concurrency cannot
// tell a waiting workflow from a working one (it counts every workflow the
// process runs), so the deploy queues have none: their partition limit
// alone keeps an environment's slot, across all workers, waiting or not.

// slots are the work slots of one process.
type slots chan struct{}

// take takes a slot, waiting for one while ctx lasts; queued says (once)
// that it had to wait.
func (s slots) take(ctx context.Context, queued func()) error {
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	if queued != nil {
		queued()
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stopped while waiting for a slot of this worker: %w", context.Cause(ctx))
	}
}

func (s slots) give() { <-s }

// takeSlot makes the run hold a work slot of the process (a no-op when it
// holds one).
func (r *run) takeSlot(ctx dbos.Context) error {
	if r.slot {
		return nil
	}
	err := r.e.slots.take(ctx, func() {
		r.note("", "info", "waiting for a free slot of this worker (queues.worker_concurrency: %d)", cap(r.e.slots))
	})
	if err != nil {
		return err
	}
	r.slot = true
	return nil
}

// leaveSlot gives the run's work slot back, if it holds one.
func (r *run) leaveSlot() {
	if r.slot {
		r.slot = false
		r.e.slots.give()
	}
}

// idle gives the run's slot back for a wait of its rollout, and returns
// what takes one again when the wait ends, unless it ended in an error
// (*err, the wait's result): whatever follows (the next batch, a rollback,
// the cleanup) is work. Deferred by the wait:
//
//	defer r.idle(ctx, &err)()
func (r *run) idle(ctx dbos.Context, err *error) func() {
	r.leaveSlot()
	return func() {
		if *err == nil {
			*err = r.takeSlot(ctx)
		}
	}
}
