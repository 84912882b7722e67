package service

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/crontick"
)

// submitSchedule creates or updates the recurring schedule of d: the
// checks of a submission already ran; the plan is captured now.
func (s *Service) submitSchedule(ctx context.Context, who deploy.Identity, d *deploy.Descriptor, eff deploy.Effective, plan deploy.Plan, dec deploy.Decision) (*deploy.Submission, error) {
	if dec.Approvals != nil || dec.Change != nil {
		return nil, &deploy.Error{Code: deploy.EUNPROCESSABLE, Message: "schedule refused", Fields: []deploy.FieldError{{
			Path: "schedule.cron", Message: "governance requires approvals or a change ticket for this environment: a recurring schedule cannot wait for them"}}}
	}
	tz := d.Schedule.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	sched, err := crontick.Parse(d.Schedule.Cron, tz)
	if err != nil {
		return nil, &deploy.Error{Code: deploy.EINVALID, Message: "invalid descriptor",
			Fields: []deploy.FieldError{{Path: "schedule.cron", Message: err.Error()}}}
	}
	name := d.ID
	if name == "" {
		name = d.Application + "-" + d.Environment + "-schedule"
	}
	tmpl := deploy.Job{Requester: who.Subject, RequesterGroups: who.Groups, Descriptor: *d, Effective: eff, Plan: plan}
	tmpl.Descriptor.ID, tmpl.Descriptor.Schedule = "", nil
	s.specs.SignPlan(&tmpl, name)
	raw, err := json.Marshal(tmpl)
	if err != nil {
		return nil, fmt.Errorf("encode schedule template: %w", err)
	}
	now := time.Now().UTC()
	sc := deploy.RecurringSchedule{Name: name, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		Cron: d.Schedule.Cron, TimeZone: tz, Requester: who.Subject, Template: raw}
	var previous int
	var previousTick *time.Time
	if old, err := s.store.GetSchedule(ctx, name); err == nil {
		previousTick = old.LastTick
		res := deploy.Resource{Tenant: old.Tenant, Application: old.Application, Environment: old.Environment}
		// A schedule the caller may not read is not theirs to replace, nor
		// to learn about from the answer: its name is in use, as a deploy ID.
		if !s.readable(who, res) {
			return nil, deploy.Errorf(deploy.ECONFLICT, "schedule name %q is already in use", name)
		}
		if ok, _ := s.authz.Allowed(who, res, deploy.PermSubmit); !ok {
			return nil, deploy.Errorf(deploy.ECONFLICT, "schedule %q belongs to another application", name)
		}
		previous = old.Generation
	}
	saved, created, err := s.store.UpsertSchedule(ctx, sc, func(tx any, generation int) error {
		return s.engine.EnqueueSchedule(tx, deploy.ScheduleGeneration{Name: name, Generation: generation,
			Cron: sc.Cron, TimeZone: tz, Template: tmpl, Since: now})
	})
	if err != nil {
		return nil, err
	}
	if saved.NextTick == nil {
		// What the workflow will compute a moment later, for the answer.
		next := sched.Plan(now, now)
		saved.NextTick = &next
	}
	if previous > 0 {
		// The older generation stops at once rather than at its next tick.
		s.engine.StopSchedule(name, previous, previousTick)
	}
	dep := deploy.Deployment{ID: name, Tenant: d.Tenant, Application: d.Application, Environment: d.Environment,
		State: deploy.StateScheduled, Requester: who.Subject, CreatedAt: saved.CreatedAt, UpdatedAt: saved.UpdatedAt,
		Artifact: d.Artifact, Descriptor: *d, Effective: eff, Plan: plan, Decision: dec}
	return &deploy.Submission{Deployment: dep, Created: created, Schedule: &saved}, nil
}

// Schedules implements deploy.Service.
func (s *Service) Schedules(ctx context.Context) ([]deploy.RecurringSchedule, error) {
	who := deploy.IdentityFrom(ctx)
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	all, err := s.store.ListSchedules(ctx)
	if err != nil {
		return nil, err
	}
	out := []deploy.RecurringSchedule{}
	for _, sc := range all {
		res := deploy.Resource{Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment}
		if ok, err := s.authz.Allowed(who, res, deploy.PermRead); err == nil && ok {
			sc.Template = nil
			out = append(out, sc)
		}
	}
	return out, nil
}

// DeleteSchedule implements deploy.Service: it needs deployment.submit on
// the schedule's environment (who may create it may remove it).
func (s *Service) DeleteSchedule(ctx context.Context, name string) (err error) {
	defer func() { s.auditRefused(ctx, "schedule.delete", name, err, nil) }()
	who := deploy.IdentityFrom(ctx)
	sc, err := s.scheduleDeletable(ctx, who, name)
	if err != nil {
		return err
	}
	if err := s.store.DeleteSchedule(ctx, name); err != nil {
		return err
	}
	s.audit(ctx, who.Subject, "schedule.delete", name, nil)
	s.engine.StopSchedule(name, sc.Generation, sc.LastTick)
	return nil
}

// scheduleDeletable is the check of DeleteSchedule, shared with
// MayDeleteSchedule: the schedule readable (else not found) and
// deployment.submit on its environment.
func (s *Service) scheduleDeletable(ctx context.Context, who deploy.Identity, name string) (*deploy.RecurringSchedule, error) {
	if who.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	sc, err := s.store.GetSchedule(ctx, name)
	if err != nil {
		return nil, err
	}
	res := deploy.Resource{Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment}
	if ok, err := s.authz.Allowed(who, res, deploy.PermRead); err != nil || !ok {
		return nil, deploy.ScheduleNotFound(name)
	}
	if err := s.require(who, res, deploy.PermSubmit); err != nil {
		return nil, err
	}
	return sc, nil
}

// MayDeleteSchedule implements deploy.Service.
func (s *Service) MayDeleteSchedule(ctx context.Context, name string) error {
	_, err := s.scheduleDeletable(ctx, deploy.IdentityFrom(ctx), name)
	return err
}
