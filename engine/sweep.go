package engine

import (
	"context"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// The sweeper. A wait for dependencies sleeps in one durable Recv until
// its expiry, and is woken by a Send when a dependency ends: from a step
// of the dependency's workflow after its end, or from whatever ended it
// outside its workflow (a cancel, the end of its own wait). Such a Send
// is best effort: a crash between the end and the Send, or the database
// away at that instant, loses it, and nothing else would wake the wait
// before its expiry (a day by default, up to 30). Rather than each wait
// looking on its own every few seconds (10,000 waits: thousands of reads
// a minute), every worker looks for all of them every
// chains.poll_interval in one query, and sends the wake-up only to the
// waits that need one: no dependency still active, no message unread. A
// wait for a dependency that has not ended is never woken by it, so the
// sweeper wakes none in the common case. Two workers may both send to a
// wait in the same instant: it reads its dependencies once more, which is
// harmless. (The other wake-ups of a wait commit with what they announce:
// an answer to its approvals, Answered; a cancel, finishedOutside; its
// time is its own timer.)

// sweepBatch bounds the wake-ups of one sweep; the next sweep finds those
// left (those woken now have a message unread).
const sweepBatch = 1000

func (e *Engine) chainsPollInterval() time.Duration {
	if d := e.cfg.Chains.PollInterval; d > 0 {
		return d
	}
	return deploy.DefaultChainsPoll
}

// sweep wakes the waits for dependencies whose wake-up never came.
func (e *Engine) sweep(ctx context.Context) {
	defer e.sweeps.Add(1)
	ids, err := e.store.WaitsToWake(ctx, waitWorkflows, sweepBatch)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("look for waits to wake", "error", err)
		}
		return
	}
	if len(ids) == 0 {
		return
	}
	msgs := make([]dbos.SendMessage, len(ids))
	for i, id := range ids {
		msgs[i] = dbos.SendMessage{DestinationID: waitWorkflowID(id), Message: "look", Topic: topicWait}
	}
	if err := dbos.SendBulk(e.dbos, msgs); err != nil {
		// One bad destination fails the whole batch: one at a time then.
		e.log.Debug("wake waits in one batch", "error", err)
		for _, id := range ids {
			e.Wake(id)
		}
	}
	e.log.Info("woke deploys whose dependencies ended without waking them", "count", len(ids))
}
