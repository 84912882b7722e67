package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	"github.com/robfig/cron/v3"

	"manent.dev/manent/deploy"
)

// Recurring schedules (schedule.cron): a manent.schedule workflow, one per
// tick of a schedule generation, on the wait queue, sleeps until its tick
// (a durable timer: a restart neither loses nor doubles it), starts the
// deploy <name>@<UTC time> with the plan captured at submission, and
// enqueues the workflow of the next tick.
//
// A tick missed while no worker ran (downtime) is run once when a worker
// comes back, not once per missed tick: the latest missed tick runs, and
// the next one is counted from it.
const (
	scheduleWorkflow = "manent.schedule"
	scheduleTopic    = "schedule"
	// maxMissedScan bounds the search of the latest missed tick.
	maxMissedScan = 200_000
)

// ScheduleInput is the input of the schedule workflow.
type ScheduleInput struct {
	Name       string      `json:"name"`
	Generation int         `json:"generation"`
	Cron       string      `json:"cron"`
	TimeZone   string      `json:"timezone"`
	Template   DeployInput `json:"template"`
	// Since is when this generation started: its first tick comes after it.
	Since time.Time `json:"since"`
}

func scheduleWorkflowID(name string, generation int) string {
	return fmt.Sprintf("%s:schedule:%d", name, generation)
}

// tickID is the ID of the deploy of a tick: <schedule>@<UTC time>.
func tickID(name string, tick time.Time) string {
	return name + "@" + tick.UTC().Format("20060102-150405")
}

func parseCron(expr, tz string) (cron.Schedule, *time.Location, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, nil, fmt.Errorf("time zone %q: %w", tz, err)
	}
	s, err := cron.ParseStandard(expr)
	if err != nil {
		return nil, nil, fmt.Errorf("cron %q: %w", expr, err)
	}
	return s, loc, nil
}

// submitSchedule creates or updates the recurring schedule of d: the
// checks of a submission already ran; the plan is captured now.
func (e *Engine) submitSchedule(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, eff deploy.Effective, plan deploy.Plan, dec deploy.Decision) (*deploy.Submission, error) {
	if dec.Approvals != nil || dec.Change != nil {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "schedule refused", Fields: []deploy.FieldError{{
			Path: "schedule.cron", Message: "governance requires approvals or a change ticket for this environment: a recurring schedule cannot wait for them"}}}
	}
	if _, _, err := parseCron(d.Schedule.Cron, d.Schedule.TimeZone); err != nil {
		return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid descriptor",
			Fields: []deploy.FieldError{{Path: "schedule.cron", Message: err.Error()}}}
	}
	name := d.ID
	if name == "" {
		name = d.Application + "-" + d.Environment + "-schedule"
	}
	tmpl := DeployInput{Requester: who.Subject, RequesterGroups: who.Groups, Descriptor: *d, Effective: eff, Plan: plan}
	tmpl.Descriptor.ID, tmpl.Descriptor.Schedule = "", nil
	raw, err := json.Marshal(tmpl)
	if err != nil {
		return nil, fmt.Errorf("encode schedule template: %w", err)
	}
	tz := d.Schedule.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	now := time.Now().UTC()
	sc := deploy.RecurringSchedule{Name: name, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		Cron: d.Schedule.Cron, TimeZone: tz, Requester: who.Subject, Template: raw}
	var previous int
	var previousTick *time.Time
	if old, err := e.store.GetSchedule(ctx, name); err == nil {
		previousTick = old.LastTick
		if ok, _ := e.authz.Allowed(who, deploy.Resource{Tenant: old.Tenant, Application: old.Application, Environment: old.Environment}, deploy.PermSubmit); !ok {
			return nil, deploy.Errorf(deploy.ECONFLICT, "schedule %q belongs to another application", name)
		}
		previous = old.Generation
	}
	saved, created, err := e.store.UpsertSchedule(ctx, sc, func(tx any, generation int) error {
		in := ScheduleInput{Name: name, Generation: generation, Cron: sc.Cron, TimeZone: tz, Template: tmpl, Since: now}
		_, err := dbos.Enqueue[string](e.dbos, waitQueue, scheduleWorkflow, in,
			dbos.WithEnqueueWorkflowID(scheduleWorkflowID(name, generation)),
			dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion),
			dbos.WithEnqueueTransaction(tx))
		return err
	})
	if err != nil {
		return nil, err
	}
	if saved.NextTick == nil {
		// What the workflow will compute a moment later, for the answer.
		if sched, loc, err := parseCron(sc.Cron, tz); err == nil {
			next := planTick(sched, loc, now, now)
			saved.NextTick = &next
		}
	}
	if previous > 0 {
		// The older generation stops at once rather than at its next tick.
		e.stopSchedule(name, previous, previousTick)
	}
	dep := deploy.Deployment{ID: name, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: deploy.StateScheduled, Requester: who.Subject, CreatedAt: saved.CreatedAt, UpdatedAt: saved.UpdatedAt,
		Artifact: d.Artifact, Descriptor: *d, Effective: eff, Plan: plan, Decision: dec}
	return &deploy.Submission{Deployment: dep, Created: created, Schedule: &saved}, nil
}

type tickPlan struct {
	Stop bool      `json:"stop,omitempty"`
	Tick time.Time `json:"tick"`
}

// scheduleWorkflowFn waits for one tick, starts its deploy, and hands over
// to the workflow of the next tick: each workflow stays short (DBOS replays
// a workflow's whole history when it recovers it), and its sequence of
// steps depends only on recorded results, never on the clock.
func (e *Engine) scheduleWorkflowFn(ctx dbos.Context, in ScheduleInput) (string, error) {
	p, err := dbos.RunAsStep(ctx, func(c context.Context) (tickPlan, error) {
		return e.nextTick(c, in)
	}, dbos.WithStepName("manent.schedule.next"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return "", err
	}
	if p.Stop {
		return "stopped", nil
	}
	for {
		// Always one Recv, then a recorded decision: a resumed workflow
		// replays the same steps whatever the time is now.
		msg, err := sleepOrWake(ctx, scheduleTopic, time.Until(p.Tick))
		if err != nil {
			return "", fmt.Errorf("wait for the next tick: %w", err)
		}
		if msg == "stop" {
			return "stopped", nil
		}
		reached, err := dbos.RunAsStep(ctx, func(context.Context) (bool, error) {
			return !time.Now().Before(p.Tick), nil
		}, dbos.WithStepName("manent.schedule.reached"))
		if err != nil {
			return "", err
		}
		if reached {
			break
		}
	}
	stop, err := dbos.RunAsStep(ctx, func(c context.Context) (bool, error) {
		return e.tick(c, in, p.Tick)
	}, dbos.WithStepName("manent.schedule.tick"), dbos.WithStepMaxRetries(10))
	if err != nil {
		return "", err
	}
	if stop {
		return "stopped", nil
	}
	return "ticked", nil
}

// scheduleTickWorkflowID is the workflow that follows the tick since: one
// ID per tick, so a step that runs again enqueues nothing twice.
func scheduleTickWorkflowID(name string, generation int, since time.Time) string {
	return fmt.Sprintf("%s:schedule:%d:%s", name, generation, since.UTC().Format("20060102-150405"))
}

// stopSchedule tells the workflows a schedule generation may be waiting in
// to stop now rather than at their tick.
func (e *Engine) stopSchedule(name string, generation int, lastTick *time.Time) {
	_ = dbos.Send(e.dbos, scheduleWorkflowID(name, generation), "stop", scheduleTopic)
	if lastTick != nil {
		_ = dbos.Send(e.dbos, scheduleTickWorkflowID(name, generation, *lastTick), "stop", scheduleTopic)
	}
}

// nextTick finds the tick to run next: the first after the last one run;
// if that is long past (the workers were down), the latest missed tick.
func (e *Engine) nextTick(ctx context.Context, in ScheduleInput) (tickPlan, error) {
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
	sched, loc, err := parseCron(in.Cron, in.TimeZone)
	if err != nil {
		return tickPlan{}, deploy.Permanent(err)
	}
	base := in.Since
	if sc.LastTick != nil && sc.LastTick.After(base) {
		base = *sc.LastTick
	}
	tick := planTick(sched, loc, base, time.Now())
	next := tick.UTC()
	if _, err := e.store.RecordTick(ctx, in.Name, in.Generation, base, "", &next); err != nil {
		return tickPlan{}, err
	}
	return tickPlan{Tick: tick.UTC()}, nil
}

// planTick returns the tick to run after base: the next one, or, when
// several were missed before now, only the latest of them.
func planTick(sched cron.Schedule, loc *time.Location, base, now time.Time) time.Time {
	tick := sched.Next(base.In(loc))
	for i := 0; i < maxMissedScan; i++ {
		next := sched.Next(tick)
		if next.After(now) || next.IsZero() {
			break
		}
		tick = next
	}
	return tick.UTC()
}

// tick starts the deploy of a tick (idempotent by its ID) and records it.
func (e *Engine) tick(ctx context.Context, in ScheduleInput, tick time.Time) (bool, error) {
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
	di.ID = tickID(in.Name, tick)
	di.Descriptor.ID = di.ID
	now := time.Now().UTC()
	dep := deploy.Deployment{ID: di.ID, Tenant: di.Effective.Tenant, Application: di.Descriptor.Application,
		Environment: di.Descriptor.Environment, State: deploy.StateEnqueued, Requester: di.Requester,
		CreatedAt: now, UpdatedAt: now, Artifact: di.Descriptor.Artifact, Descriptor: di.Descriptor,
		Effective: di.Effective, Plan: di.Plan}
	if _, _, err := e.store.CreateDeployment(ctx, dep, func(tx any) error { return e.enqueueDeploy(di, tx) }); err != nil {
		return false, err
	}
	sched, loc, err := parseCron(in.Cron, in.TimeZone)
	if err != nil {
		return false, deploy.Permanent(err)
	}
	next := sched.Next(tick.In(loc)).UTC()
	ok, err := e.store.RecordTick(ctx, in.Name, in.Generation, tick, di.ID, &next)
	if err != nil || !ok {
		return !ok, err
	}
	successor := in
	successor.Since = tick
	if _, err := dbos.Enqueue[string](e.dbos, waitQueue, scheduleWorkflow, successor,
		dbos.WithEnqueueWorkflowID(scheduleTickWorkflowID(in.Name, in.Generation, tick)),
		dbos.WithEnqueueApplicationVersion(e.cfg.Engine.ApplicationVersion)); err != nil {
		return false, fmt.Errorf("hand over to the next tick: %w", err)
	}
	return false, nil
}

// Schedules implements deploy.Service.
func (e *Engine) Schedules(ctx context.Context) ([]deploy.RecurringSchedule, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	all, err := e.store.ListSchedules(ctx)
	if err != nil {
		return nil, err
	}
	out := []deploy.RecurringSchedule{}
	for _, sc := range all {
		res := deploy.Resource{Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment}
		if ok, err := e.authz.Allowed(who, res, deploy.PermRead); err == nil && ok {
			sc.Template = nil
			out = append(out, sc)
		}
	}
	return out, nil
}

// DeleteSchedule implements deploy.Service: it needs deployment.submit on
// the schedule's environment (who may create it may remove it).
func (e *Engine) DeleteSchedule(ctx context.Context, name string) error {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	sc, err := e.store.GetSchedule(ctx, name)
	if err != nil {
		return err
	}
	res := deploy.Resource{Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment}
	if ok, err := e.authz.Allowed(who, res, deploy.PermRead); err != nil || !ok {
		return deploy.Errorf(deploy.ENOTFOUND, "schedule %q not found", name)
	}
	if err := e.require(who, res, deploy.PermSubmit); err != nil {
		return err
	}
	if err := e.store.DeleteSchedule(ctx, name); err != nil {
		return err
	}
	e.audit(ctx, who.Subject, "schedule.delete", name, nil)
	e.stopSchedule(name, sc.Generation, sc.LastTick)
	return nil
}
