package main

import (
	"time"

	"manent.dev/manent/client"
)

// scheduleView is a recurring schedule in the JSON of the CLI: the shape and
// the words of the schedule in the REST answer to its submission
// (snake_case, state SCHEDULED).
type scheduleView struct {
	Name           string     `json:"name"`
	Tenant         string     `json:"tenant"`
	Application    string     `json:"application"`
	Environment    string     `json:"environment"`
	Cron           string     `json:"cron"`
	TimeZone       string     `json:"timezone"`
	Requester      string     `json:"requester"`
	State          string     `json:"state"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	LastTick       *time.Time `json:"last_tick"`
	NextTick       *time.Time `json:"next_tick"`
	LastDeployment *string    `json:"last_deployment"`
	// LastError is why the last tick started no deploy; null when it did.
	LastError *string `json:"last_error"`
}

func toScheduleView(s *client.ScheduleDetail) scheduleView {
	return scheduleView{Name: s.Name, Tenant: s.Tenant, Application: s.Application, Environment: s.Environment,
		Cron: s.Cron, TimeZone: s.Timezone, Requester: s.Requester, State: string(s.State),
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(), LastTick: utcTime(s.LastTick), NextTick: utcTime(s.NextTick),
		LastDeployment: nonEmpty(s.LastDeployment), LastError: nonEmpty(s.LastError)}
}

func toScheduleViews(ss []client.ScheduleDetail) []scheduleView {
	out := make([]scheduleView, len(ss))
	for i := range ss {
		out[i] = toScheduleView(&ss[i])
	}
	return out
}

func utcTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
