package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
)

// The service's port: what it hands the engine, on the transaction that
// stores what it accepted.

// WaitInput is the input of the wait workflow: the deploy's ID and what it
// waits for. DBOS keeps a workflow's input in memory for as long as it
// runs, and a wait may last days: the deploy's job (its descriptor,
// effective deploy and signed plan, a few kilobytes) stays in the deploy's
// row, which the wait reads when it lets the deploy go (in the transaction
// that enqueues it), and the deploy workflow checks its plan's signature
// as it always did.
type WaitInput struct {
	ID   string          `json:"id"`
	Wait deploy.WaitPlan `json:"wait"`
	// Job is the whole job, under "deploy", in the waits that an earlier
	// version enqueued (they had no ID of their own): such a wait, resumed
	// after an upgrade, lets go the job it carries, as it would have. The
	// ID of the new form is under another key, so that an earlier version
	// given a wait of the new form finds no deploy and fails the wait
	// rather than run an empty job.
	Job *deploy.Job `json:"deploy,omitempty"`
}

// deployID is the ID of the deploy the wait holds, in either form.
func (in *WaitInput) deployID() string {
	if in.ID == "" && in.Job != nil {
		return in.Job.ID
	}
	return in.ID
}

// EnqueueDeploy enqueues the deploy workflow of j on its environment's
// queue, on tx.
func (e *Engine) EnqueueDeploy(tx any, j deploy.Job) error {
	part := j.Partition()
	_, err := dbos.Enqueue[DeployResult](e.dbos, e.queueFor(part), deployWorkflowName, j,
		dbos.WithEnqueueWorkflowID(j.ID),
		dbos.WithEnqueueQueuePartitionKey(part),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx))
	if err != nil {
		return fmt.Errorf("enqueue deploy workflow: %w", err)
	}
	return nil
}

// EnqueueWait enqueues the wait workflow of j on the wait queue, on tx: the
// transaction that stores j in the deploy's row, whence the wait reads it.
func (e *Engine) EnqueueWait(tx any, j deploy.Job, w deploy.WaitPlan) error {
	opts := []dbos.EnqueueOption{
		dbos.WithEnqueueWorkflowID(waitWorkflowID(j.ID)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx),
	}
	if d := e.startDelay(w); d > 0 {
		opts = append(opts, dbos.WithEnqueueDelay(d))
	}
	_, err := dbos.Enqueue[DeployResult](e.dbos, waitQueue, waitWorkflowName, WaitInput{ID: j.ID, Wait: w}, opts...)
	if err != nil {
		return fmt.Errorf("enqueue wait workflow: %w", err)
	}
	if w.Approvals && !w.ExpiresAt.IsZero() {
		// Submitted AWAITING_APPROVAL: the approvals are asked with it (a
		// wait that begins elsewhere asks them later: waitApprovals).
		n := newNotice(j.ID, deploy.NoticeApproval, "", string(deploy.StateAwaitingApproval))
		return e.recordNotice(tx, n, &j.Descriptor, jobDeployment(&j))
	}
	return nil
}

// startMargin is how long before its time a wait that begins with its time
// starts: DBOS promotes the delayed workflows once a second, on every
// process, then the wait queue's poll dequeues it, on a machine that may
// be loaded.
const startMargin = 5 * time.Second

// startDelay is how long a wait is enqueued DELAYED: one that begins with
// its time (schedule.at, no dependencies to watch meanwhile) stays a row of
// DBOS's until shortly before it, with no goroutine nor memory of its
// worker's for the days it may wait, and waits the last seconds in its
// durable timer, so it lets the deploy go on time. 0 for the others.
func (e *Engine) startDelay(w deploy.WaitPlan) time.Duration {
	if len(w.After) > 0 || w.At == nil {
		return 0
	}
	return time.Until(*w.At) - startMargin - e.cfg.Queues.PollInterval
}

// EnqueueRelease enqueues the release workflow on the wait queue, on tx.
func (e *Engine) EnqueueRelease(tx any, p deploy.ReleasePlan) error {
	_, err := dbos.Enqueue[ReleaseResult](e.dbos, waitQueue, releaseWorkflowName, p,
		dbos.WithEnqueueWorkflowID(releaseWorkflowID(p.ID)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
		dbos.WithEnqueueTransaction(tx))
	if err != nil {
		return fmt.Errorf("enqueue release workflow: %w", err)
	}
	return nil
}

// EnqueueSchedule enqueues the workflow of a schedule generation, on tx
// (nil: on its own).
func (e *Engine) EnqueueSchedule(tx any, g deploy.ScheduleGeneration) error {
	return e.enqueueSchedule(tx, g, scheduleWorkflowID(g.Name, g.Generation))
}

func (e *Engine) enqueueSchedule(tx any, g deploy.ScheduleGeneration, id string) error {
	opts := []dbos.EnqueueOption{
		dbos.WithEnqueueWorkflowID(id),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
	}
	if tx != nil {
		opts = append(opts, dbos.WithEnqueueTransaction(tx))
	}
	if _, err := dbos.Enqueue[string](e.dbos, waitQueue, scheduleWorkflowName, g, opts...); err != nil {
		return fmt.Errorf("enqueue schedule workflow: %w", err)
	}
	return nil
}

// StopSchedule tells the workflows a schedule generation may be waiting in
// to stop now rather than at their tick.
func (e *Engine) StopSchedule(name string, generation int, lastTick *time.Time) {
	e.send(scheduleWorkflowID(name, generation), "stop", topicSchedule)
	if lastTick != nil {
		e.send(scheduleTickWorkflowID(name, generation, *lastTick), "stop", topicSchedule)
	}
}

// Wake tells the wait workflow of a deploy to look again.
func (e *Engine) Wake(id string) { e.send(waitWorkflowID(id), "look", topicWait) }

// Answered wakes the wait of a deploy whose approval was answered, on tx,
// the transaction that stores the answer: DBOS keeps the message with it,
// so no crash between the two can leave an answer unread until the
// approvals expire.
func (e *Engine) Answered(tx any, id string) error {
	if err := dbos.Send(e.dbos, waitWorkflowID(id), "look", topicWait, dbos.WithSendTransaction(tx)); err != nil {
		return fmt.Errorf("wake the wait of %s: %w", id, err)
	}
	return nil
}

// StopRelease stops the workflow of a release.
func (e *Engine) StopRelease(id string) {
	if err := dbos.CancelWorkflow(e.dbos, releaseWorkflowID(id)); err != nil {
		e.log.Warn("cancel release workflow", "release", id, "error", err)
	}
}

// send delivers a message to a workflow, best effort: a wait for
// dependencies whose wake-up is lost is woken by the sweeper (sweep.go),
// the other workflows that wait for one look again on their own after a
// while.
func (e *Engine) send(workflowID, msg, topic string) {
	if err := dbos.Send(e.dbos, workflowID, msg, topic); err != nil {
		e.log.Debug("wake workflow", "workflow", workflowID, "error", err)
	}
}

// Cancelled follows up a cancel the store accepted, the one place that
// does: a deploy that had not started stops waiting or leaves its queue,
// the deploys waiting on it look again, and a change ticket opened while
// it waited is closed. A running deploy stops by itself at its next step,
// or at once in a rollout's bake.
func (e *Engine) Cancelled(ctx context.Context, d *deploy.Deployment, res deploy.CancelResult) {
	if !res.Immediate {
		// A rollout baking between two waves stops baking now.
		e.send(d.ID, "cancel", topicRollout)
		return
	}
	e.wakeWaiters(ctx, d.ID)
	if res.Before.Waiting() {
		// The wait workflow was woken by the cancel's commit
		// (finishedOutside): it stops waiting at once. One that waits
		// for its time may not have started yet (startDelay): it is
		// taken off the queue rather than left to start and find the
		// deploy cancelled.
		if res.Before == deploy.StateDelayed {
			if err := dbos.CancelWorkflow(e.dbos, waitWorkflowID(d.ID)); err != nil {
				e.log.Warn("cancel the wait workflow", "deployment", d.ID, "error", err)
			}
		}
		return
	}
	if err := dbos.CancelWorkflow(e.dbos, d.ID); err != nil {
		// Take it off the queue so it never holds a slot. A workflow that
		// was dequeued in the same instant finds it CANCELLED and stops.
		e.log.Warn("cancel queued workflow", "deployment", d.ID, "error", err)
	}
	e.closeChangeOfCancelled(ctx, d)
}

// RolloutRequested wakes a deploy's workflow waiting in its rollout (a
// bake, a pause, a wave's approval, a deferral) on tx, the transaction
// that stores what it is to read (a request, an answer): DBOS keeps the
// message with it, so the workflow reads it at once, and no crash or
// failure between the two can leave a request stored without its wake-up.
// Between two batches, the workflow reads the request anyway.
func (e *Engine) RolloutRequested(tx any, id string) error {
	if err := dbos.Send(e.dbos, id, "look", topicRollout, dbos.WithSendTransaction(tx)); err != nil {
		return fmt.Errorf("wake the workflow of %s: %w", id, err)
	}
	return nil
}

// Rejected follows up a rejection the store recorded with the end of the
// deploy (and the wake-up of its wait, which stops and closes a change
// ticket opened for it: Answered): what waits on the deploy looks again.
func (e *Engine) Rejected(ctx context.Context, id string) {
	e.wakeWaiters(ctx, id)
}

// cancel cancels a deploy on behalf of a release (no permission check: the
// release's own policy, or a cancel already authorized). only restricts it
// to deploys in those states; a deploy that ended meanwhile is left alone.
func (e *Engine) cancel(ctx context.Context, id, actor string, only []deploy.State) error {
	d, err := e.store.Get(ctx, id)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if d.State.Terminal() || (only != nil && !slices.Contains(only, d.State)) {
		return nil
	}
	res, err := e.store.RequestCancel(ctx, id, actor)
	if deploy.ErrorCode(err) == deploy.ECONFLICT {
		return nil
	}
	if err != nil {
		return err
	}
	e.Cancelled(ctx, d, res)
	return nil
}

// wakeAfter wakes what waits on a deploy that ended, as a step of its
// workflow: its release first (which cancels the deploys it will not run
// before the dependents look, so they find themselves CANCELLED rather than
// DEPENDENCY_FAILED), then its dependents.
func (e *Engine) wakeAfter(ctx dbos.Context, id string, fin deploy.Finished) error {
	if fin.Release == "" && len(fin.Dependents) == 0 {
		return nil
	}
	_, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		if fin.Release != "" {
			e.wakeRelease(c, fin.Release, id)
		}
		for _, dep := range fin.Dependents {
			e.Wake(dep)
		}
		return true, nil
	}, dbos.WithStepName(stepWake))
	return err
}

// wakeWaiters wakes what waits on a deploy that ended outside its own
// workflow (a cancel, the end of a wait).
func (e *Engine) wakeWaiters(ctx context.Context, id string) {
	if rel, err := untilAvailable(ctx, func() (string, error) { return e.store.DeploymentRelease(ctx, id) }); err == nil && rel != "" {
		e.wakeRelease(ctx, rel, id)
	}
	ids, err := untilAvailable(ctx, func() ([]string, error) { return e.store.Dependents(ctx, id) })
	if err != nil {
		e.log.Warn("list dependents", "deployment", id, "error", err)
		return
	}
	for _, dep := range ids {
		e.Wake(dep)
	}
}

// wakeRelease applies the release's onFailure to its deploys not started
// yet when deploymentID, one of them, failed, and wakes the release
// workflow so it reads the states again.
func (e *Engine) wakeRelease(ctx context.Context, releaseID, deploymentID string) {
	if err := e.stopOnFailure(ctx, releaseID, deploymentID); err != nil {
		e.log.Warn("stop release", "release", releaseID, "deployment", deploymentID, "error", err)
	}
	e.send(releaseWorkflowID(releaseID), "look", topicRelease)
}

// untilAvailable calls fn until it succeeds or fails for another reason
// than the database being out of reach, waiting with a capped backoff: an
// infrastructure fault never ends a workflow.
func untilAvailable[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 10*time.Second) {
		v, err := fn()
		if err == nil || !deploy.Unavailable(err) {
			return v, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return v, err
		}
	}
}
