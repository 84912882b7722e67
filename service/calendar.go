package service

import (
	"context"
	"fmt"
	"time"

	"manent.dev/manent/deploy"
	"manent.dev/manent/descriptor"
)

// FreezeCalendar lists the freeze windows of an environment that intersect
// [from, to), cut to deploy.MaxFreezeCalendarRange; an empty tenant is the
// server's default one, as for a submission. The caller needs
// deployment.read there, and like Get an environment it may not read is
// not found. Without governance the calendar is empty; a governor that
// cannot list its windows (one without deploy.FreezeCalendar, a Rego
// policy) answers EUNPROCESSABLE.
//
// The calendar has no descriptor: freeze rules that match on a region
// (the descriptor's label) are listed only for deploys that carry it, so
// they are not listed here.
func (s *Service) FreezeCalendar(ctx context.Context, res deploy.Resource, from, to time.Time) ([]deploy.FreezeWindow, error) {
	id := deploy.IdentityFrom(ctx)
	if id.Anonymous() {
		return nil, deploy.Errorf(deploy.EUNAUTHENTICATED, "authentication required")
	}
	if res.Tenant == "" {
		res.Tenant = s.cfg.Server.DefaultTenant
	}
	notFound := deploy.Errorf(deploy.ENOTFOUND, "environment %s/%s/%s not found", res.Tenant, res.Application, res.Environment)
	if !descriptor.ValidName(res.Tenant) || !descriptor.ValidName(res.Application) || !descriptor.ValidName(res.Environment) {
		return nil, notFound
	}
	if ok, err := s.authz.Allowed(id, res, deploy.PermRead); err != nil {
		return nil, fmt.Errorf("authorize: %w", err)
	} else if !ok {
		return nil, notFound
	}
	if to.Before(from) {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "the end of the calendar (%s) is before its start (%s)",
			to.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339))
	}
	if to.Sub(from) > deploy.MaxFreezeCalendarRange {
		to = from.Add(deploy.MaxFreezeCalendarRange)
	}
	if s.gov == nil {
		return []deploy.FreezeWindow{}, nil
	}
	cal, ok := s.gov.(deploy.FreezeCalendar)
	if !ok {
		// An empty list would say "never frozen" of freezes it cannot see.
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "the freeze calendar is not available with this server's governance")
	}
	in := deploy.GovernanceInput{
		Identity: id, Tenant: res.Tenant, Application: res.Application, Environment: res.Environment,
		Labels: map[string]string{}, Time: from,
	}
	ws, err := cal.Calendar(ctx, in, from, to)
	if err != nil {
		return nil, err
	}
	if ws == nil {
		ws = []deploy.FreezeWindow{}
	}
	return ws, nil
}

// FreezeCalendars lists the calendars of several environments at once
// (see deploy.Service): the rules of FreezeCalendar for each, but an
// environment that is not found for the caller is an entry without
// windows, so that a view of many environments is not refused for one.
func (s *Service) FreezeCalendars(ctx context.Context, envs []deploy.Resource, from, to time.Time) ([]deploy.EnvironmentFreezes, error) {
	if len(envs) > deploy.MaxFreezeCalendars {
		return nil, deploy.Errorf(deploy.EUNPROCESSABLE, "%d environments asked: at most %d at once", len(envs), deploy.MaxFreezeCalendars)
	}
	out := make([]deploy.EnvironmentFreezes, len(envs))
	for i, res := range envs {
		if res.Tenant == "" {
			res.Tenant = s.cfg.Server.DefaultTenant
		}
		ws, err := s.FreezeCalendar(ctx, res, from, to)
		switch {
		case err == nil:
			out[i] = deploy.EnvironmentFreezes{Resource: res, Readable: true, Windows: ws}
		case deploy.ErrorCode(err) == deploy.ENOTFOUND:
			out[i] = deploy.EnvironmentFreezes{Resource: res}
		default:
			return nil, err
		}
	}
	return out, nil
}
