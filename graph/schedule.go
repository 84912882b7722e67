package graph

import (
	"manent.dev/manent/deploy"
	"manent.dev/manent/graph/model"
)

// toModelSchedule leaves the template out: it holds the captured plan and
// effective deploy, which the API shows on the deploys of each tick.
func toModelSchedule(s *deploy.RecurringSchedule) *model.Schedule {
	if s == nil {
		return nil
	}
	return &model.Schedule{
		Name: s.Name, Tenant: s.Tenant, Application: s.Application, Environment: s.Environment,
		Cron: s.Cron, Timezone: s.TimeZone, Requester: s.Requester, State: model.ScheduleState(s.State),
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, LastTick: s.LastTick, NextTick: s.NextTick,
		LastDeployment: optionalString(s.LastDeployment), LastError: optionalString(s.LastError),
	}
}
