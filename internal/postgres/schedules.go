package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

type scheduleRow struct {
	bun.BaseModel `bun:"table:manent.schedules,alias:sc"`

	Name        string `bun:"name,pk"`
	Tenant      string `bun:"tenant,notnull"`
	Application string `bun:"application,notnull"`
	Environment string `bun:"environment,notnull"`
	Cron        string `bun:"cron,notnull"`
	TimeZone    string `bun:"timezone,notnull"`
	Requester   string `bun:"requester,notnull"`
	State       string `bun:"state,notnull"`
	Generation  int    `bun:"generation,notnull"`
	// Template is the engine's JSON, stored as it is (bun would store a
	// []byte as a JSON string of its base64).
	Template       json.RawMessage `bun:"template,type:jsonb,notnull"`
	CreatedAt      time.Time       `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt      time.Time       `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
	LastTick       *time.Time      `bun:"last_tick"`
	NextTick       *time.Time      `bun:"next_tick"`
	LastDeployment string          `bun:"last_deployment,notnull"`
	LastError      string          `bun:"last_error,notnull"`
}

func fromScheduleRow(r *scheduleRow) deploy.RecurringSchedule {
	return deploy.RecurringSchedule{Name: r.Name, Tenant: r.Tenant, Application: r.Application,
		Environment: r.Environment, Cron: r.Cron, TimeZone: r.TimeZone, Requester: r.Requester,
		State: r.State, Generation: r.Generation, Template: r.Template, CreatedAt: r.CreatedAt.UTC(),
		UpdatedAt: r.UpdatedAt.UTC(), LastTick: utcPtr(r.LastTick), NextTick: utcPtr(r.NextTick),
		LastDeployment: r.LastDeployment, LastError: r.LastError}
}

// UpsertSchedule implements deploy.Store.
func (s *Store) UpsertSchedule(ctx context.Context, sc deploy.RecurringSchedule, enqueue func(tx any, generation int) error) (deploy.RecurringSchedule, bool, error) {
	var out deploy.RecurringSchedule
	created := false
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row := &scheduleRow{Name: sc.Name, Tenant: sc.Tenant, Application: sc.Application, Environment: sc.Environment,
			Cron: sc.Cron, TimeZone: sc.TimeZone, Requester: sc.Requester, State: deploy.ScheduleScheduled,
			Generation: 1, Template: sc.Template}
		var prev struct {
			Generation int    `bun:"generation"`
			State      string `bun:"state"`
		}
		err := tx.NewRaw("SELECT generation, state FROM manent.schedules WHERE name = ? FOR UPDATE", sc.Name).Scan(ctx, &prev)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			created = true
			if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			created = prev.State == deploy.ScheduleDeleted
			row.Generation = prev.Generation + 1
			// A new definition starts afresh: its ticks are counted from now.
			if _, err := tx.NewRaw(`UPDATE manent.schedules SET tenant = ?, application = ?, environment = ?, cron = ?,
					timezone = ?, requester = ?, state = ?, generation = ?, template = ?, updated_at = now(),
					last_tick = NULL, next_tick = NULL, last_error = ''
				WHERE name = ?`, row.Tenant, row.Application, row.Environment, row.Cron, row.TimeZone, row.Requester,
				row.State, row.Generation, string(row.Template), row.Name).Exec(ctx); err != nil {
				return err
			}
		}
		if err := enqueue(tx.Tx, row.Generation); err != nil {
			return err
		}
		action := "schedule.update"
		if created {
			action = "schedule.create"
		}
		if err := insertAudit(ctx, tx, deploy.AuditEntry{Actor: sc.Requester, Action: action, Target: sc.Name,
			Details: map[string]any{"cron": sc.Cron, "timezone": sc.TimeZone, "generation": row.Generation}}); err != nil {
			return err
		}
		got := new(scheduleRow)
		if err := tx.NewSelect().Model(got).Where("name = ?", sc.Name).Scan(ctx); err != nil {
			return err
		}
		out = fromScheduleRow(got)
		return nil
	})
	return out, created, wrap("save schedule", err)
}

// GetSchedule implements deploy.Store.
func (s *Store) GetSchedule(ctx context.Context, name string) (*deploy.RecurringSchedule, error) {
	row := new(scheduleRow)
	err := s.db.NewSelect().Model(row).Where("name = ? AND state = ?", name, deploy.ScheduleScheduled).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, deploy.ScheduleNotFound(name)
	}
	if err != nil {
		return nil, wrap("get schedule", err)
	}
	sc := fromScheduleRow(row)
	return &sc, nil
}

// ListSchedules implements deploy.Store.
func (s *Store) ListSchedules(ctx context.Context) ([]deploy.RecurringSchedule, error) {
	var rows []scheduleRow
	err := s.db.NewSelect().Model(&rows).Where("state = ?", deploy.ScheduleScheduled).OrderExpr("name").Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("list schedules", err)
	}
	out := make([]deploy.RecurringSchedule, len(rows))
	for i := range rows {
		out[i] = fromScheduleRow(&rows[i])
	}
	return out, nil
}

// DeleteSchedule implements deploy.Store.
func (s *Store) DeleteSchedule(ctx context.Context, name string) error {
	res, err := s.db.NewRaw(`UPDATE manent.schedules SET state = ?, generation = generation + 1, next_tick = NULL,
		updated_at = now() WHERE name = ? AND state = ?`, deploy.ScheduleDeleted, name, deploy.ScheduleScheduled).Exec(ctx)
	if err != nil {
		return wrap("delete schedule", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrap("delete schedule", err)
	} else if n == 0 {
		return deploy.ScheduleNotFound(name)
	}
	return nil
}

// RecordTick implements deploy.Store.
func (s *Store) RecordTick(ctx context.Context, name string, generation int, tick time.Time, deploymentID string, next *time.Time) (bool, error) {
	var ok bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw(`UPDATE manent.schedules SET last_tick = GREATEST(COALESCE(last_tick, ?), ?),
				last_deployment = CASE WHEN ? = '' THEN last_deployment ELSE ? END,
				last_error = CASE WHEN ? = '' THEN last_error ELSE '' END, next_tick = ?, updated_at = now()
			WHERE name = ? AND generation = ? AND state = ?`,
			micro(tick), micro(tick), deploymentID, deploymentID, deploymentID, microPtr(next), name, generation,
			deploy.ScheduleScheduled).Exec(ctx)
		if ok, err = updatedOne(res, err); err != nil || !ok {
			return err
		}
		return notify(ctx, tx, deploy.EventSchedule, name)
	})
	return ok, wrap("record schedule tick", err)
}

// RecordTickFailure implements deploy.Store.
func (s *Store) RecordTickFailure(ctx context.Context, name string, generation int, tick time.Time, reason, actor string, next *time.Time) (bool, error) {
	var ok bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw(`UPDATE manent.schedules SET last_tick = GREATEST(COALESCE(last_tick, ?), ?),
				last_error = ?, next_tick = ?, updated_at = now()
			WHERE name = ? AND generation = ? AND state = ?`,
			micro(tick), micro(tick), reason, microPtr(next), name, generation, deploy.ScheduleScheduled).Exec(ctx)
		if ok, err = updatedOne(res, err); err != nil || !ok {
			return err
		}
		if err := insertAudit(ctx, tx, deploy.AuditEntry{Actor: actor, Action: "schedule.tick.failed", Target: name,
			Details: map[string]any{"tick": tick.UTC(), "generation": generation, "error": reason}}); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventSchedule, name)
	})
	return ok, wrap("record failed schedule tick", err)
}

// updatedOne reports whether an UPDATE of one row by its key found it.
func updatedOne(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
