package deploy

import (
	"context"
	"time"
)

// Schedule states: a schedule in force has the state the lifecycle gives
// it (SCHEDULED), the one its submission answers with.
const (
	ScheduleScheduled = string(StateScheduled)
	ScheduleDeleted   = "DELETED"
)

// RecurringSchedule is a schedule.cron: every tick starts a deploy
// <name>@<UTC time> that runs the plan captured at submission.
type RecurringSchedule struct {
	Name        string
	Tenant      string
	Application string
	Environment string
	Cron        string
	TimeZone    string
	Requester   string
	State       string
	Generation  int
	// Template is the deploy every tick starts (descriptor, effective
	// deploy and plan as submitted), as JSON the engine owns.
	Template       []byte
	CreatedAt      time.Time
	UpdatedAt      time.Time
	LastTick       *time.Time
	NextTick       *time.Time
	LastDeployment string
	// LastError is why the last tick started no deploy (its deploy ID was
	// taken); "" when it started one. LastDeployment stays the deploy of
	// the last tick that did.
	LastError string
}

// ScheduleStore keeps the recurring schedules.
type ScheduleStore interface {
	// UpsertSchedule creates the schedule, or replaces the one of that name
	// (a new generation), and calls enqueue with the transaction (*sql.Tx)
	// and the generation, so the schedule workflow starts atomically.
	UpsertSchedule(ctx context.Context, s RecurringSchedule, enqueue func(tx any, generation int) error) (RecurringSchedule, bool, error)
	// GetSchedule returns a schedule (ENOTFOUND when none or deleted).
	GetSchedule(ctx context.Context, name string) (*RecurringSchedule, error)
	// ListSchedules returns the active schedules, by name.
	ListSchedules(ctx context.Context) ([]RecurringSchedule, error)
	// DeleteSchedule marks it deleted (a new generation, so its workflow stops).
	DeleteSchedule(ctx context.Context, name string) error
	// RecordTick records a tick of the given generation; false when the
	// schedule changed meanwhile. A tick with its deploy clears LastError.
	// Every write notifies subscribers with an EventSchedule of the name.
	RecordTick(ctx context.Context, name string, generation int, tick time.Time, deploymentID string, next *time.Time) (bool, error)
	// RecordTickFailure records a tick that started no deploy, with why
	// (LastError), and its schedule.tick.failed audit entry by actor, in
	// one transaction; false when the schedule changed meanwhile.
	RecordTickFailure(ctx context.Context, name string, generation int, tick time.Time, reason, actor string, next *time.Time) (bool, error)
}

// ScheduleService is the API of recurring schedules.
type ScheduleService interface {
	// Schedules lists the schedules the caller may read.
	Schedules(ctx context.Context) ([]RecurringSchedule, error)
	// DeleteSchedule stops a schedule: ENOTFOUND, EFORBIDDEN.
	DeleteSchedule(ctx context.Context, name string) error
}

// ScheduleGeneration is one generation of a recurring schedule as its
// workflow runs it: every tick starts a deploy of Template.
type ScheduleGeneration struct {
	Name       string `json:"name"`
	Generation int    `json:"generation"`
	Cron       string `json:"cron"`
	TimeZone   string `json:"timezone"`
	Template   Job    `json:"template"`
	// Since is when the generation started: its first tick comes after it.
	Since time.Time `json:"since"`
}
