package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"manent.dev/manent/deploy"
	"manent.dev/manent/internal/dberr"
)

// Store implements the roles of the read model (deploy.DeploymentReader,
// deploy.Submissions, ...) on the manent schema. Every write that
// changes a deploy, a step or a log sends, in its own transaction, a
// notification on the manent_events channel (see Events).
type Store struct {
	db         *bun.DB
	dbosSchema string
	// finished is called in the transaction that ends a deploy outside its
	// workflow (the end of a wait, a cancel before the start), with that
	// transaction: the engine records the deploy's finished event there.
	finished func(ctx context.Context, tx any, d deploy.Deployment) error
}

// OnFinish sets what is called in the transaction of every end of a deploy
// the store writes itself (FinishDeployment, a cancel at once, a
// rejection, a deploy whose workflow failed: FailAbandoned); set it before
// the store is used.
func (s *Store) OnFinish(fn func(ctx context.Context, tx any, d deploy.Deployment) error) {
	s.finished = fn
}

func (s *Store) finishedIn(ctx context.Context, tx bun.Tx, d deploy.Deployment) error {
	if s.finished == nil {
		return nil
	}
	return s.finished(ctx, tx.Tx, d)
}

var (
	_ deploy.DeploymentReader = (*Store)(nil)
	_ deploy.Submissions      = (*Store)(nil)
	_ deploy.WaitStore        = (*Store)(nil)
	_ deploy.AuditLog         = (*Store)(nil)
	_ deploy.LogStore         = (*Store)(nil)
	_ deploy.ExecutorStore    = (*Store)(nil)
	_ deploy.ReleaseStore     = (*Store)(nil)
	_ deploy.ScheduleStore    = (*Store)(nil)
)

// StoreOption changes a Store.
type StoreOption func(*Store)

// WithDBOSSchema names the schema of DBOS's system tables (default "dbos"),
// read by ExecutorWorkflows and FailAbandoned.
func WithDBOSSchema(schema string) StoreOption {
	return func(s *Store) { s.dbosSchema = schema }
}

// NewStore returns the Store of db, which must be migrated.
func NewStore(db *DB, opts ...StoreOption) *Store {
	s := &Store{db: db.bun, dbosSchema: "dbos"}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Channel is the PostgreSQL notification channel of deploy changes.
const Channel = "manent_events"

// The actions of the audit entries the store writes.
const (
	auditFinish      = "deployment.finish"
	auditCancel      = "deployment.cancel"
	auditAfterFinish = "after.finish"
)

// activeStates are the states of deploys that run or wait.
var activeStates = func() []string {
	var active []string
	for _, s := range deploy.States {
		if !s.Terminal() {
			active = append(active, string(s))
		}
	}
	return active
}()

func notFound(id string) error {
	return deploy.DeploymentNotFound(id)
}

// notify queues a notification; PostgreSQL sends it when the transaction
// commits, and not at all if it rolls back.
func notify(ctx context.Context, db bun.IConn, kind deploy.EventKind, id string) error {
	payload, err := eventPayload(id, kind)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "SELECT pg_notify(?, ?)", Channel, payload); err != nil {
		return wrap("notify", err)
	}
	return nil
}

func (s *Store) exists(ctx context.Context, id string) (bool, error) {
	return s.db.NewSelect().Model((*deploymentRow)(nil)).Where("id = ?", id).Exists(ctx)
}

// CreateDeployment implements deploy.Store. A deploy it creates comes back
// as Get would read it at once, without reading it again.
func (s *Store) CreateDeployment(ctx context.Context, d deploy.Deployment, enqueue func(tx any) error) (*deploy.Deployment, bool, error) {
	if d.ID == "" {
		return nil, false, errors.New("create deployment: no ID")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, wrap("create deployment", err)
	}
	defer func() { _ = tx.Rollback() }()
	// ON CONFLICT waits for a concurrent insert of the same ID to commit or
	// roll back, so of two submits of one ID exactly one inserts.
	// The row comes back as stored, with its defaults, into a row of its
	// own: scanning the jsonb into the inserted row would decode into the
	// slices and maps it shares with d, which belong to the caller.
	stored := new(deploymentRow)
	err = tx.NewInsert().Model(toDeploymentRow(d)).On("CONFLICT (id) DO NOTHING").Returning("?Columns").Scan(ctx, stored)
	if errors.Is(err, sql.ErrNoRows) {
		_ = tx.Rollback()
		existing, err := s.Get(ctx, d.ID)
		if err != nil {
			return nil, false, wrap("read existing deployment", err)
		}
		return existing, false, nil
	}
	if err != nil {
		return nil, false, wrap("create deployment", err)
	}
	deps, err := recordSubmission(ctx, tx, d)
	if err != nil {
		return nil, false, err
	}
	if enqueue != nil {
		if err := enqueue(tx.Tx); err != nil {
			return nil, false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, false, wrap("create deployment", err)
	}
	created := fromDeploymentRow(stored)
	asCreated(&created, deps)
	return &created, true, nil
}

// recordSubmission writes, in one statement, what goes with the deploy d
// just inserted in tx: its dependencies, its deployment.submit entry (a
// deploy never exists without it) and its notification; unless its ID is
// retired, which is refused. It returns the states of d's dependencies, as
// Get reads them, read in that statement too.
//
// The retired ID is read after the insert, in a statement of its own: an
// insert that waited for a retention removing the ID's deploy then reads
// the retired ID that retention wrote, which the insert's snapshot, taken
// before the wait, does not hold. The count of notified is read because a
// WITH query that nothing reads is not run (its inserts are).
func recordSubmission(ctx context.Context, tx bun.Tx, d deploy.Deployment) ([]deploy.Dependency, error) {
	audit := toAuditRow(submitAudit(d))
	payload, err := eventPayload(d.ID, deploy.EventDeployment)
	if err != nil {
		return nil, err
	}
	after := pgdialect.Array(d.Descriptor.After)
	rows, err := tx.QueryContext(ctx, `WITH r AS MATERIALIZED (
			SELECT EXISTS (SELECT FROM manent.retired_ids WHERE id = ?) AS retired
		), after AS (
			INSERT INTO manent.dependencies (deployment_id, depends_on)
			SELECT ?, a.id FROM r, unnest(?::text[]) AS a(id) WHERE NOT r.retired
			ON CONFLICT DO NOTHING
		), audit AS (
			INSERT INTO manent.audit (actor, action, target, details)
			SELECT ?, ?, ?, ?::jsonb FROM r WHERE NOT r.retired
		), notified AS (
			SELECT pg_notify(?, ?) FROM r WHERE NOT r.retired
		)
		SELECT r.retired, n.count, d.id, d.state, d.tenant, d.application, d.environment
		FROM r CROSS JOIN (SELECT count(*) FROM notified) AS n
			LEFT JOIN manent.deployments AS d ON NOT r.retired AND d.id = ANY(?::text[])`,
		d.ID, d.ID, after, audit.Actor, audit.Action, audit.Target, audit.Details, Channel, payload, after)
	if err != nil {
		return nil, wrap("record submission", err)
	}
	defer func() { _ = rows.Close() }()
	var retired bool
	var found []dependencyRow
	for rows.Next() {
		var notified int
		var id, state, tenant, app, env sql.NullString
		if err := rows.Scan(&retired, &notified, &id, &state, &tenant, &app, &env); err != nil {
			return nil, wrap("record submission", err)
		}
		if id.Valid {
			found = append(found, dependencyRow{ID: id.String, State: state.String, Tenant: tenant.String,
				Application: app.String, Environment: env.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("record submission", err)
	}
	if retired {
		return nil, deploy.Errorf(deploy.ECONFLICT, "deployment ID %q was used before: an ID names one deploy for good, choose another", d.ID)
	}
	return inOrder(d.Descriptor.After, found), nil
}

// submitAudit is the deployment.submit entry of d.
func submitAudit(d deploy.Deployment) deploy.AuditEntry {
	details := map[string]any{"tenant": d.Tenant, "application": d.Application, "environment": d.Environment,
		"version": d.Artifact.Version, "dry_run": d.DryRun, "state": d.State}
	if d.Release != "" {
		details["release"] = d.Release
	}
	if d.RollbackOf != "" {
		details["rollback_of"] = d.RollbackOf
	}
	if d.Schedule != "" {
		details["schedule"] = d.Schedule
	}
	if d.PromotedFrom != "" {
		details["promoted_from"] = d.PromotedFrom
	}
	if d.Decision.Rule != "" {
		details["governance"] = d.Decision
	}
	// The hashes of the custom steps' specifications, what revoked_specs
	// takes: the audit says which definition a deploy was submitted with.
	for _, s := range d.Plan.Steps {
		if s.SpecHash == "" {
			continue
		}
		hashes, _ := details["spec_hashes"].(map[string]string)
		if hashes == nil {
			hashes = map[string]string{}
			details["spec_hashes"] = hashes
		}
		hashes[s.Name] = s.SpecHash
	}
	return deploy.AuditEntry{Actor: d.Requester, Action: "deployment.submit", Target: d.ID, Details: details}
}

// FinishDeployment implements deploy.WaitStore, for the ends of a deploy
// outside its run (a wait that ended it): it never puts a deploy in
// service, and a SUCCESS is refused. A deploy that already ended is left as
// it is: the workflow's step that calls this may run again after a crash,
// and must then change nothing.
func (s *Store) FinishDeployment(ctx context.Context, o deploy.Outcome) error {
	if !o.State.Terminal() || o.State == deploy.StateSuccess {
		return fmt.Errorf("finish deployment %s: %s is not the end of a wait", o.ID, o.State)
	}
	o.Error = line(o.Error)
	var finishedAt *time.Time
	if !o.FinishedAt.IsZero() {
		t := micro(o.FinishedAt)
		finishedAt = &t
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row := new(deploymentRow)
		err := tx.NewRaw(`UPDATE manent.deployments AS d SET state = ?, error = ?,
				sha256 = CASE WHEN ? = '' THEN d.sha256 ELSE ? END,
				finished_at = COALESCE(?, now()), current_step = '', updated_at = now()
			WHERE id = ? AND state IN (?)
			RETURNING *`,
			o.State, o.Error, o.SHA256, o.SHA256, finishedAt, o.ID, bun.List(guard(o.State))).Scan(ctx, row)
		if errors.Is(err, sql.ErrNoRows) {
			found, err := tx.NewSelect().Model((*deploymentRow)(nil)).Where("id = ?", o.ID).Exists(ctx)
			if err != nil {
				return err
			}
			if !found {
				return notFound(o.ID)
			}
			return nil
		}
		if err != nil {
			return err
		}
		d := fromDeploymentRow(row)
		actor := o.Actor
		if actor == "" {
			actor = d.Requester
		}
		if err := insertAudit(ctx, tx, finishAudit(d, actor)); err != nil {
			return err
		}
		if d.State == deploy.StateDependencyFailed {
			if err := insertAudit(ctx, tx, afterFinishAudit(d.ID, d.Descriptor.After, d.State, d.Error, actor)); err != nil {
				return err
			}
		}
		if err := s.finishedIn(ctx, tx, d); err != nil {
			return err
		}
		return notify(ctx, tx, deploy.EventDeployment, o.ID)
	})
	return wrap("finish deployment", err)
}

func finishAudit(d deploy.Deployment, actor string) deploy.AuditEntry {
	details := map[string]any{
		"state": d.State, "tenant": d.Tenant, "application": d.Application,
		"environment": d.Environment, "version": d.Artifact.Version, "dry_run": d.DryRun,
	}
	if d.SHA256 != "" {
		details["sha256"] = d.SHA256
	}
	if d.Error != "" {
		details["error"] = d.Error
	}
	return deploy.AuditEntry{Actor: actor, Action: auditFinish, Target: d.ID, Details: details}
}

// afterFinishAudit is the entry of the end of a wait for dependencies
// that did not let the deploy run: it failed, or the deploy was cancelled.
func afterFinishAudit(id string, after []string, state deploy.State, reason, actor string) deploy.AuditEntry {
	return deploy.AuditEntry{Actor: actor, Action: auditAfterFinish, Target: id,
		Details: map[string]any{"state": state, "reason": reason, "after": after}}
}

// RequestCancel implements deploy.Store. A deploy that has not started
// (ENQUEUED, or waiting) is cancelled at once; a PENDING one is flagged and
// stops at the start of its next step (see Recorder.Advance). The first
// request's actor is the one recorded as having cancelled it. A cancel at
// once writes the deployment.finish entry under the canceller; one that
// ends a wait for dependencies also ends that wait (after.finish).
func (s *Store) RequestCancel(ctx context.Context, id, actor string) (deploy.CancelResult, error) {
	var res deploy.CancelResult
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var state string
		var requested bool
		var after []string
		err := tx.QueryRowContext(ctx, `SELECT state, cancel_requested, COALESCE(descriptor->'after', '[]'::jsonb)
			FROM manent.deployments WHERE id = ? FOR UPDATE`, id).Scan(&state, &requested, jsonList{&after})
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		res.Before = deploy.State(state)
		switch {
		case res.Before.Terminal():
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q already ended: %s", id, state)
		case res.Before == deploy.StatePending:
			if requested {
				return nil // one request is enough, and one audit entry
			}
			_, err = tx.ExecContext(ctx, `UPDATE manent.deployments SET cancel_requested = true, cancelled_by = ?,
				cancelled_from = ?, updated_at = now() WHERE id = ?`, actor, res.Before, id)
		case !deploy.CanTransition(res.Before, deploy.StateCancelled):
			return deploy.Errorf(deploy.ECONFLICT, "deployment %q cannot be cancelled: %s", id, state)
		default:
			res.Immediate = true
			row := new(deploymentRow)
			err = tx.NewRaw(`UPDATE manent.deployments SET state = ?, cancel_requested = true,
				cancelled_by = ?, cancelled_from = ?, error = ?, finished_at = now(), current_step = '', updated_at = now()
				WHERE id = ? RETURNING *`,
				deploy.StateCancelled, actor, res.Before, text(deploy.CancelledWhile(actor, res.Before)), id).Scan(ctx, row)
			if err == nil {
				// It ends here: no workflow finishes it later.
				err = insertAudit(ctx, tx, finishAudit(fromDeploymentRow(row), actor))
			}
			if err == nil {
				err = s.finishedIn(ctx, tx, fromDeploymentRow(row))
			}
		}
		if err != nil {
			return err
		}
		entry := deploy.AuditEntry{Actor: actor, Action: auditCancel, Target: id,
			Details: map[string]any{"before": res.Before, "immediate": res.Immediate}}
		if err := insertAudit(ctx, tx, entry); err != nil {
			return err
		}
		if res.Before == deploy.StateWaitingDependency {
			entry := afterFinishAudit(id, after, deploy.StateCancelled, deploy.CancelledWhile(actor, res.Before), actor)
			if err := insertAudit(ctx, tx, entry); err != nil {
				return err
			}
		}
		return notify(ctx, tx, deploy.EventDeployment, id)
	})
	if err != nil {
		return deploy.CancelResult{}, wrap("cancel deployment", err)
	}
	return res, nil
}

// jsonList scans a jsonb array of strings.
type jsonList struct{ dst *[]string }

func (j jsonList) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	case nil:
		*j.dst = nil
		return nil
	default:
		return fmt.Errorf("scan a json list from %T", src)
	}
	return json.Unmarshal(b, j.dst)
}

// AppendLog implements deploy.LogStore: the lines of any number of deploys
// in one statement. Sequence numbers are taken from each deploy's row of
// manent.log_sequences under its lock, so concurrent writers of one log
// never collide and a reader never sees a later line before an earlier one
// commits; the rows are locked in the order of their IDs, so two writers
// of the same deploys never deadlock. The deploys' own rows are only
// share-locked (FOR KEY SHARE, against a removal), so a batch and the
// operations of its deploys never wait for each other. The lines of a
// deploy that is gone (retention) go with it.
func (s *Store) AppendLog(ctx context.Context, lines ...deploy.LogLine) error {
	return s.appendLog(ctx, deploy.LogBatch{Lines: lines})
}

// AppendLogBatch implements deploy.LogStore: AppendLog, but the batch's
// number is checked against the last one its writer stored, and recorded,
// in the statement that writes its lines. A batch sent again after its
// commit was not answered writes nothing, so its lines are not doubled
// (the writer cannot tell a commit lost from one done).
func (s *Store) AppendLogBatch(ctx context.Context, b deploy.LogBatch) error {
	if len(b.Lines) > 0 && (b.Writer == "" || b.Number == 0) {
		return fmt.Errorf("append log: a batch of lines needs its writer and its number")
	}
	return s.appendLog(ctx, b)
}

// writerRetention is how long the last batch number of a writer that
// stopped writing is kept: a batch sent again later than that (after an
// outage as long) could be stored twice.
const writerRetention = "30 days"

func (s *Store) appendLog(ctx context.Context, b deploy.LogBatch) error {
	events := make([]string, len(b.Events))
	for i, e := range b.Events {
		p, err := eventPayload(e.DeploymentID, e.Kind)
		if err != nil {
			return err
		}
		events[i] = p
	}
	lines := b.Lines
	if len(lines) == 0 {
		if len(events) == 0 {
			return nil
		}
		// Notifications alone: sent again after an error, they only make
		// their readers read once more.
		var notified int
		err := s.db.DB.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p) AS n`,
			Channel, events).Scan(&notified)
		return wrap("notify", err)
	}
	counts := map[string]int64{}
	n := len(lines)
	// A line without a time takes the statement's (times[i] "").
	ids, ks, times := make([]string, n), make([]int64, n), make([]string, n)
	steps, levels, messages := make([]string, n), make([]string, n), make([]string, n)
	for i, l := range lines {
		r := toLogRow(l, 0)
		counts[l.DeploymentID]++
		ids[i], ks[i] = r.DeploymentID, counts[l.DeploymentID]
		if !r.Time.IsZero() {
			times[i] = r.Time.Format(time.RFC3339Nano)
		}
		steps[i], levels[i], messages[i] = r.Step, r.Level, r.Message
	}
	deploys := make([]string, 0, len(counts))
	for id := range counts {
		deploys = append(deploys, id)
	}
	sort.Strings(deploys)
	added, payloads := make([]int64, len(deploys)), make([]string, len(deploys))
	for i, id := range deploys {
		p, err := eventPayload(id, deploy.EventLog)
		if err != nil {
			return err
		}
		added[i], payloads[i] = counts[id], p
	}
	// One round trip instead of three statements per deploy: on a busy
	// worker the log is most of the statements a deploy costs. With real
	// parameters, not bun's inlined ones: the server keeps the statement's
	// plan instead of parsing and planning a new text at every batch.
	// once is the writer's row, taken for this batch or left as it was
	// when the batch is not past the last one stored: then no deploy is
	// locked, so no line is written and no log event sent (the batch's
	// events are sent again: they only make readers read once more). A
	// writer's first batch removes the rows of the writers long stopped.
	var notified int
	err := s.db.DB.QueryRowContext(ctx, `WITH once AS MATERIALIZED (
			INSERT INTO manent.log_writers AS w (writer, batch, written_at)
			SELECT $11::text, $12::bigint, now() WHERE $11::text <> ''
			ON CONFLICT (writer) DO UPDATE SET batch = EXCLUDED.batch, written_at = EXCLUDED.written_at
			WHERE w.batch < EXCLUDED.batch
			RETURNING 1
		), stale AS (
			DELETE FROM manent.log_writers
			WHERE $12::bigint = 1 AND writer <> $11::text AND written_at < now() - $13::interval
		), live AS MATERIALIZED (
			SELECT d.id FROM manent.deployments AS d
			WHERE d.id = ANY($1::text[]) AND ($11::text = '' OR EXISTS (SELECT FROM once))
			ORDER BY d.id FOR KEY SHARE
		), counts AS (
			SELECT c.id, c.n, c.payload FROM unnest($1::text[], $2::bigint[], $3::text[]) AS c(id, n, payload)
			JOIN live AS k ON k.id = c.id
		), taken AS (
			INSERT INTO manent.log_sequences AS q (deployment_id, seq)
			SELECT c.id, c.n FROM counts AS c ORDER BY c.id
			ON CONFLICT (deployment_id) DO UPDATE SET seq = q.seq + EXCLUDED.seq
			RETURNING q.deployment_id AS id, q.seq
		), seq AS (
			SELECT c.id, t.seq - c.n AS base, c.payload FROM taken AS t JOIN counts AS c ON c.id = t.id
		), ins AS (
			INSERT INTO manent.deployment_logs (deployment_id, seq, time, step, level, message)
			SELECT l.id, s.base + l.k, COALESCE(NULLIF(l.time, '')::timestamptz, now()), l.step, l.level, l.message
			FROM unnest($4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[])
				AS l(id, k, time, step, level, message)
			JOIN seq AS s ON s.id = l.id
		)
		SELECT count(*) FROM (
			SELECT pg_notify($10, s.payload) FROM seq AS s
			UNION ALL SELECT pg_notify($10, p) FROM unnest($14::text[]) AS p
		) AS n`,
		deploys, added, payloads, ids, ks, times, steps, levels, messages, Channel,
		b.Writer, int64(b.Number), writerRetention, events).Scan(&notified)
	return wrap("append log", err)
}

// Get implements deploy.Store.
func (s *Store) Get(ctx context.Context, id string) (*deploy.Deployment, error) {
	row := new(deploymentRow)
	err := s.db.NewSelect().Model(row).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, wrap("get deployment", err)
	}
	d := fromDeploymentRow(row)
	steps, err := s.steps(ctx, id)
	if err != nil {
		return nil, err
	}
	d.Steps = steps[id]
	if d.Decision.Approvals != nil {
		if d.Approvals, err = s.approvals(ctx, id); err != nil {
			return nil, err
		}
	}
	if d.Effective.Rollout != nil {
		if d.WaveApprovals, err = s.waveApprovals(ctx, id); err != nil {
			return nil, err
		}
	}
	if len(d.Descriptor.After) > 0 {
		if d.Dependencies, err = s.dependencyStates(ctx, d.Descriptor.After); err != nil {
			return nil, err
		}
	}
	if len(d.Descriptor.Callbacks) > 0 {
		if d.Deliveries, err = s.Deliveries(ctx, id); err != nil {
			return nil, err
		}
	}
	return &d, nil
}

// asCreated gives d, a deploy just created, what Get reads beside its row:
// the rows of its steps, approvals and deliveries reference it, so none
// exists yet, and each is what Get answers for none; deps are the states
// of its dependencies (recordSubmission). TestCreateDeploymentAnswersAsGet
// and the service's TestSubmissionIsGet keep the two in step.
func asCreated(d *deploy.Deployment, deps []deploy.Dependency) {
	if d.Decision.Approvals != nil {
		d.Approvals = []deploy.Approval{}
	}
	if d.Effective.Rollout != nil {
		d.WaveApprovals = []deploy.Approval{}
	}
	if len(d.Descriptor.After) > 0 {
		d.Dependencies = deps
	}
	if len(d.Descriptor.Callbacks) > 0 {
		d.Deliveries = []deploy.Delivery{}
	}
}

// Logs implements deploy.Store. limit defaults to 1000 and is at most 10000.
func (s *Store) Logs(ctx context.Context, id string, after int64, limit int) ([]deploy.LogLine, error) {
	if limit <= 0 {
		limit = 1000
	}
	limit = min(limit, 10000)
	var rows []logRow
	err := s.db.NewSelect().Model(&rows).Where("deployment_id = ? AND seq > ?", id, after).
		Order("seq").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, wrap("get logs", err)
	}
	if len(rows) == 0 {
		if found, err := s.exists(ctx, id); err != nil {
			return nil, wrap("get logs", err)
		} else if !found {
			return nil, notFound(id)
		}
	}
	lines := make([]deploy.LogLine, len(rows))
	for i := range rows {
		lines[i] = fromLogRow(&rows[i])
	}
	return lines, nil
}

// SucceededVersions implements deploy.SuccessHistory: one query on the
// deployments of the environment, whatever later deploys did.
func (s *Store) SucceededVersions(ctx context.Context, res deploy.Resource, n int) ([]string, error) {
	var versions []string
	err := s.db.NewRaw(`SELECT artifact->>'version' AS version
		FROM manent.deployments
		WHERE tenant = ? AND application = ? AND environment = ? AND state = ? AND NOT dry_run
			AND COALESCE(artifact->>'version', '') <> ''
		GROUP BY artifact->>'version'
		ORDER BY max(finished_at) DESC NULLS LAST, version
		LIMIT ?`, res.Tenant, res.Application, res.Environment, string(deploy.StateSuccess), n).Scan(ctx, &versions)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, wrap("read succeeded versions", err)
	}
	return versions, nil
}

// AppendAudit implements deploy.Store.
func (s *Store) AppendAudit(ctx context.Context, e deploy.AuditEntry) error {
	return wrap("append audit entry", insertAudit(ctx, s.db, e))
}

func insertAudit(ctx context.Context, db bun.IDB, e deploy.AuditEntry) error {
	_, err := db.NewInsert().Model(toAuditRow(e)).Exec(ctx)
	return err
}

// wrap adds context to internal errors and lets *deploy.Error through as is,
// so callers still branch on its code. An error that means the database is
// out of reach also wraps deploy.ErrUnavailable: the engine waits for the
// database instead of failing a deploy.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *deploy.Error
	if errors.As(err, &de) {
		return err
	}
	if dberr.Unavailable(err) {
		return fmt.Errorf("%s: %w: %w", op, deploy.ErrUnavailable, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
