package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/crontick"
)

// Recurring schedules (schedule.cron): a schedule workflow, one per tick of
// a schedule generation, on the wait queue, sleeps until its tick (a
// durable timer: a restart neither loses nor doubles it), starts the
// deploy <name>@<UTC time> with the plan captured at submission, and
// enqueues the workflow of the next tick.
//
// A tick missed while no worker ran (downtime) is run once when a worker
// comes back, not once per missed tick: the latest missed tick runs, and
// the next one is counted from it.
//
// The ID of a tick's deploy is derived (deploy.TickID): a deploy that holds
// it and that this schedule's tick did not create is never taken for the
// tick's. The tick then starts nothing and is recorded as failed, with why
// and an audit entry, and the schedule goes on with its next tick.

type tickPlan struct {
	Stop bool      `json:"stop,omitempty"`
	Tick time.Time `json:"tick"`
}

// scheduleWorkflowFn waits for one tick, starts its deploy, and hands over
// to the workflow of the next tick: each workflow stays short (DBOS replays
// a workflow's whole history when it recovers it), and its sequence of
// steps depends only on recorded results, never on the clock.
func (e *Engine) scheduleWorkflow(ctx dbos.Context, in deploy.ScheduleGeneration) (string, error) {
	p, err := readStep(ctx, stepScheduleNext, func(c context.Context) (tickPlan, error) {
		return e.nextTick(c, in)
	})
	if err != nil {
		return "", err
	}
	if p.Stop {
		return "stopped", nil
	}
	for {
		// Always one Recv, then a recorded decision: a resumed workflow
		// replays the same steps whatever the time is now.
		msg, err := sleepOrWake(ctx, topicSchedule, time.Until(p.Tick))
		if err != nil {
			return "", fmt.Errorf("wait for the next tick: %w", err)
		}
		if msg == "stop" {
			return "stopped", nil
		}
		reached, err := dbos.RunAsStep(ctx, func(context.Context) (bool, error) {
			return !time.Now().Before(p.Tick), nil
		}, dbos.WithStepName(stepScheduleReached))
		if err != nil {
			return "", err
		}
		if reached {
			break
		}
	}
	stop, err := readStep(ctx, stepScheduleTick, func(c context.Context) (bool, error) {
		return e.tick(c, in, p.Tick)
	})
	if err != nil {
		return "", err
	}
	if stop {
		return "stopped", nil
	}
	return "ticked", nil
}

// nextTick finds the tick to run next: the first after the last one run;
// if that is long past (the workers were down), the latest missed tick.
func (e *Engine) nextTick(ctx context.Context, in deploy.ScheduleGeneration) (tickPlan, error) {
	sc, err := e.store.GetSchedule(ctx, in.Name)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return tickPlan{Stop: true}, nil
	}
	if err != nil {
		return tickPlan{}, err
	}
	if sc.Generation != in.Generation {
		return tickPlan{Stop: true}, nil
	}
	sched, err := crontick.Parse(in.Cron, in.TimeZone)
	if err != nil {
		return tickPlan{}, deploy.Permanent(err)
	}
	base := in.Since
	if sc.LastTick != nil && sc.LastTick.After(base) {
		base = *sc.LastTick
	}
	tick := sched.Plan(base, time.Now())
	next := tick.UTC()
	if _, err := e.store.RecordTick(ctx, in.Name, in.Generation, base, "", &next); err != nil {
		return tickPlan{}, err
	}
	return tickPlan{Tick: tick.UTC()}, nil
}

// tick starts the deploy of a tick (idempotent by its ID) and records it,
// or records why it could not.
func (e *Engine) tick(ctx context.Context, in deploy.ScheduleGeneration, tick time.Time) (bool, error) {
	sc, err := e.store.GetSchedule(ctx, in.Name)
	if deploy.ErrorCode(err) == deploy.ENOTFOUND {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if sc.Generation != in.Generation {
		return true, nil
	}
	di := in.Template
	di.ID = deploy.TickID(in.Name, tick)
	di.Descriptor.ID = di.ID
	now := time.Now().UTC()
	dep := deploy.Deployment{ID: di.ID, Tenant: di.Effective.Tenant, Application: di.Descriptor.Application,
		Environment: di.Descriptor.Environment, State: deploy.StateEnqueued, Requester: di.Requester,
		RequesterGroups: di.RequesterGroups, CreatedAt: now, UpdatedAt: now, Artifact: di.Descriptor.Artifact, Descriptor: di.Descriptor,
		Effective: di.Effective, Plan: di.Plan, Schedule: in.Name}
	existing, created, err := e.store.CreateDeployment(ctx, dep, func(tx any) error { return e.EnqueueDeploy(tx, di) })
	if err != nil {
		return false, err
	}
	sched, err := crontick.Parse(in.Cron, in.TimeZone)
	if err != nil {
		return false, deploy.Permanent(err)
	}
	next := sched.Next(tick)
	var ok bool
	// A step run again finds the deploy it created: that one is the tick's.
	if want := (deploy.Derived{ID: di.ID, Resource: dep.Resource(), Schedule: in.Name}); created || want.Is(existing) {
		ok, err = e.store.RecordTick(ctx, in.Name, in.Generation, tick, di.ID, &next)
	} else {
		ok, err = e.store.RecordTickFailure(ctx, in.Name, in.Generation, tick, deploy.ErrorMessage(want.Taken()), di.Requester, &next)
	}
	if err != nil || !ok {
		return !ok, err
	}
	successor := in
	successor.Since = tick
	if err := e.enqueueSchedule(nil, successor, scheduleTickWorkflowID(in.Name, in.Generation, tick)); err != nil {
		return false, fmt.Errorf("hand over to the next tick: %w", err)
	}
	return false, nil
}
