package postgres

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"manent.dev/manent/deploy"
)

var _ deploy.DeliveryStore = (*Store)(nil)

// deliveryRow is a row of manent.callback_deliveries.
type deliveryRow struct {
	bun.BaseModel `bun:"table:manent.callback_deliveries"`

	ID            string     `bun:"id,pk"`
	DeploymentID  string     `bun:"deployment_id"`
	EventID       string     `bun:"event_id"`
	EventType     string     `bun:"event_type"`
	Step          string     `bun:"step"`
	Callback      int        `bun:"callback"`
	URL           string     `bun:"url"`
	Body          string     `bun:"body"`
	State         string     `bun:"state"`
	Attempts      int        `bun:"attempts"`
	Replays       int        `bun:"replays"`
	LastStatus    int        `bun:"last_status"`
	LastError     string     `bun:"last_error"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	DeliveredAt   *time.Time `bun:"delivered_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

func fromDeliveryRow(r deliveryRow) deploy.Delivery {
	return deploy.Delivery{ID: r.ID, DeploymentID: r.DeploymentID, EventID: r.EventID, EventType: deploy.NoticeType(r.EventType),
		Step: r.Step, Callback: r.Callback, URL: r.URL, Body: r.Body, State: deploy.DeliveryState(r.State), Attempts: r.Attempts,
		LastStatus: r.LastStatus, LastError: r.LastError, NextAttemptAt: r.NextAttemptAt, DeliveredAt: r.DeliveredAt,
		CreatedAt: r.CreatedAt}
}

// PutDelivery implements deploy.DeliveryStore.
func (s *Store) PutDelivery(ctx context.Context, d deploy.Delivery, maxSteps int, note string) (deploy.DeliveryPut, error) {
	var out deploy.DeliveryPut
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		out = deploy.DeliveryPut{}
		// Recorded already (a snapshot taken again): the body recorded
		// first is the one sent, and a note stays a note.
		var state string
		var attempts int
		err := tx.QueryRowContext(ctx, `SELECT body, state, attempts FROM manent.callback_deliveries WHERE id = ?`, d.ID).
			Scan(&out.Body, &state, &attempts)
		if err == nil {
			out.Send = state != string(deploy.DeliveryDead) || attempts > 0
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		pending := true
		if d.EventType == deploy.NoticeStep && maxSteps > 0 {
			// One snapshot at a time counts a callback's step events.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('manent.callback_steps'), hashtext(? || ':' || ?::text))`,
				d.DeploymentID, d.Callback); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM manent.callback_deliveries
				WHERE deployment_id = ? AND callback = ? AND event_type = 'step'`, d.DeploymentID, d.Callback).Scan(&n); err != nil {
				return err
			}
			switch {
			case n > maxSteps:
				return nil
			case n == maxSteps:
				pending = false
			}
		}
		if pending {
			_, err = tx.ExecContext(ctx, `INSERT INTO manent.callback_deliveries
					(id, deployment_id, event_id, event_type, step, callback, url, body, state)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
				d.ID, d.DeploymentID, d.EventID, d.EventType, text(d.Step), d.Callback, d.URL, d.Body)
			out = deploy.DeliveryPut{Body: d.Body, Send: true}
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO manent.callback_deliveries
					(id, deployment_id, event_id, event_type, step, callback, url, body, state, last_error)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'dead', ?)`,
				d.ID, d.DeploymentID, d.EventID, d.EventType, text(d.Step), d.Callback, d.URL, d.Body, line(note))
			out = deploy.DeliveryPut{Body: d.Body, Noted: true}
		}
		if err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, d.DeploymentID)
	})
	return out, wrap("record callback delivery", err)
}

// RecordDelivery implements deploy.DeliveryStore.
func (s *Store) RecordDelivery(ctx context.Context, id string, a deploy.DeliveryAttempt) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var deployment string
		err := tx.QueryRowContext(ctx, `UPDATE manent.callback_deliveries SET state = ?, attempts = ?, last_status = ?,
				last_error = ?, next_attempt_at = ?, delivered_at = COALESCE(?, delivered_at), updated_at = now()
			WHERE id = ? RETURNING deployment_id`,
			a.State, a.Attempts, a.LastStatus, line(a.LastError), microPtr(a.NextAttemptAt), microPtr(a.DeliveredAt), id).Scan(&deployment)
		if errors.Is(err, sql.ErrNoRows) {
			// The deploy was removed by the retention meanwhile.
			return nil
		}
		if err != nil {
			return err
		}
		if a.State == deploy.DeliveryDisabled && a.LastStatus == http.StatusGone {
			// The receiver's own 410: its URL is disabled for the tenant.
			_, err := tx.ExecContext(ctx, `INSERT INTO manent.callback_disabled (tenant, url, deployment_id, delivery_id)
				SELECT d.tenant, c.url, c.deployment_id, c.id FROM manent.callback_deliveries c
					JOIN manent.deployments d ON d.id = c.deployment_id
				WHERE c.id = ? ON CONFLICT (tenant, url) DO NOTHING`, id)
			if err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventDeployment, deployment)
	})
	return wrap("record callback attempt", err)
}

// URLDisabled implements deploy.DeliveryStore.
func (s *Store) URLDisabled(ctx context.Context, deploymentID, url string) (bool, error) {
	var ok bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM manent.callback_disabled c
			JOIN manent.deployments d ON d.tenant = c.tenant WHERE d.id = ? AND c.url = ?)`, deploymentID, url).Scan(&ok)
	return ok, wrap("read disabled callbacks", err)
}

// Deliveries implements deploy.DeliveryStore.
func (s *Store) Deliveries(ctx context.Context, deploymentID string) ([]deploy.Delivery, error) {
	var rows []deliveryRow
	if err := s.db.NewSelect().Model(&rows).Where("deployment_id = ?", deploymentID).
		Order("created_at", "id").Scan(ctx); err != nil {
		return nil, wrap("read callback deliveries", err)
	}
	// Never nil: a deploy read with its deliveries says so (see
	// deploy.NewStatusCallbacks).
	out := make([]deploy.Delivery, len(rows))
	for i, r := range rows {
		out[i] = fromDeliveryRow(r)
	}
	return out, nil
}

// StartReplay implements deploy.DeliveryStore.
func (s *Store) StartReplay(ctx context.Context, deploymentID, deliveryID string, disabled bool,
	enqueue func(tx any, r []deploy.Replay) error) ([]deploy.Replay, error) {
	states := []string{string(deploy.DeliveryDead)}
	if disabled {
		states = append(states, string(deploy.DeliveryDisabled))
	}
	var out []deploy.Replay
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if deliveryID != "" {
			var state string
			err := tx.QueryRowContext(ctx, `SELECT state FROM manent.callback_deliveries WHERE id = ? AND deployment_id = ? FOR UPDATE`,
				deliveryID, deploymentID).Scan(&state)
			if errors.Is(err, sql.ErrNoRows) {
				return deploy.Errorf(deploy.ENOTFOUND, "deployment %q has no callback delivery %q", deploymentID, deliveryID)
			}
			if err != nil {
				return err
			}
			if state != string(deploy.DeliveryDead) && (!disabled || state != string(deploy.DeliveryDisabled)) {
				return deploy.Errorf(deploy.ECONFLICT, "callback delivery %q is %s: only a dead delivery (or a disabled one, asked for) is replayed", deliveryID, state)
			}
		}
		var rows []deliveryRow
		q := tx.NewRaw(`UPDATE manent.callback_deliveries SET state = 'pending', replays = replays + 1, next_attempt_at = NULL,
				updated_at = now()
			WHERE deployment_id = ? AND state IN (?) AND (? = '' OR id = ?)
			RETURNING *`, deploymentID, bun.List(states), deliveryID, deliveryID)
		if err := q.Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var tenant string
		if err := tx.QueryRowContext(ctx, `SELECT tenant FROM manent.deployments WHERE id = ?`, deploymentID).Scan(&tenant); err != nil &&
			!errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var urls []string
		for _, r := range rows {
			out = append(out, deploy.Replay{Delivery: fromDeliveryRow(r), N: r.Replays, Tenant: tenant})
			urls = append(urls, r.URL)
		}
		if disabled && len(urls) > 0 {
			// Replaying a disabled delivery enables its URL again, for every
			// deploy of the tenant.
			if _, err := tx.ExecContext(ctx, `DELETE FROM manent.callback_disabled WHERE tenant = ? AND url IN (?)`,
				tenant, bun.List(urls)); err != nil {
				return err
			}
		}
		if err := enqueue(tx.Tx, out); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, deploymentID)
	})
	if err != nil {
		return nil, wrap("replay callback deliveries", err)
	}
	return out, nil
}
